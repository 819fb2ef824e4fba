#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun show <profile> flow: accumulated and plain flows against an
# independent computation in python over the profile's JSON, read back
# from the page in headless Chromium; stacked areas in the SVG; errors.
. "$srcdir/tests/test-lib.sh"
test_fixtures
. "$TEST_SRCDIR/tests/helpers/browser-lib.sh"

browser_require
chartjs_require
mem="$FIXTURES/memory/memory-basic.perf"
SERIES='JSON.stringify(PERUN_PLOTS.map(p => [p.chart.data.datasets.length, p.series.map(s => [s.label, s.xy])]))'

# oracle <profile> <func> <of> <through> <by> <accumulate 0|1>
oracle() {
	python3 - "$@" <<-\EOP
	import json, statistics, sys
	path, func, of, through, by, acc = sys.argv[1:]
	p = json.load(open(path))
	cells = {}
	for rid, cols in p["resources"].items():
	    pers = p["resource_type_map"][rid]
	    for i in range(len(next(iter(cols.values()), []))):
	        row = dict(pers)
	        row.update({k: v[i] for k, v in cols.items()})
	        row["snapshots"] = row.get("snapshot", 0)
	        cells.setdefault((row[through], str(row[by])), []).append(row[of])
	xs = sorted({k[0] for k in cells})
	agg = {"sum": sum, "count": len, "max": max, "mean": statistics.mean}[func]
	series = []
	for g in sorted({k[1] for k in cells}):
	    run, xy = 0, []
	    for x in xs:
	        v = agg(cells[(x, g)]) if (x, g) in cells else 0
	        run = run + v if acc == "1" else v
	        xy += [x, run]
	    series.append([g, xy])
	print(json.dumps([[len(series), series]]))
	EOP
}

test_expect_success 'accumulated sum of amount through snapshots by subtype' '
	perun show "$mem" flow --of amount --by subtype >out &&
	test_grep "^flow graph written to flow.html (and flow.svg)$" out &&
	browser_check flow.html flow-accumulated --count canvas --eval "$SERIES" &&
	test "$(browser_count canvas)" = 1 &&
	oracle "$mem" sum amount snapshots subtype 1 >want &&
	browser_eval "$SERIES" >got &&
	browser_same_json want got
'

test_expect_success '--no-accumulate, count and max' '
	for f in count max; do
		perun show "$mem" flow $f --of amount --by subtype --no-accumulate -f $f.html >out &&
		browser_check $f.html flow-$f --eval "$SERIES" &&
		oracle "$mem" $f amount snapshots subtype 0 >want &&
		browser_eval "$SERIES" >got &&
		browser_same_json want got || return 1
	done
'

test_expect_success 'stacked: every area lies on the one below in the SVG' '
	perun show "$mem" flow --of amount --by uid --stacked -f st.html >out &&
	browser_check st.html flow-stacked --eval "PERUN_PLOTS[0].chart.options.scales.y.stacked" &&
	test "$(browser_eval PERUN_PLOTS[0].chart.options.scales.y.stacked)" = true &&
	browser_check st.svg flow-stacked-svg --count path.area &&
	groups=$(python3 -c "import json,sys; p=json.load(open(sys.argv[1])); print(len({json.dumps(t[\"uid\"], sort_keys=True) for t in p[\"resource_type_map\"].values()}))" "$mem") &&
	test "$(browser_count path.area)" = "$groups" &&
	python3 - st.svg <<-\EOP
	import re, sys, xml.etree.ElementTree as ET
	ns = "{http://www.w3.org/2000/svg}"
	areas = [a for a in ET.parse(sys.argv[1]).getroot().iter(ns + "path") if a.get("class") == "area"]
	def pts(a):
	    return [tuple(map(float, m)) for m in re.findall(r"([-0-9.]+) ([-0-9.]+)", a.get("d"))]
	for lower, upper in zip(areas, areas[1:]):
	    lo, up = pts(lower), pts(upper)
	    n = len(lo) // 2
	    top_of_lower = lo[:n]
	    base_of_upper = list(reversed(up[n:]))
	    assert top_of_lower == base_of_upper, "an area does not stand on the one below"
	EOP
'

test_expect_success 'errors: no --of, a bad function, an unknown key' '
	rm -f flow.html &&
	test_exit_code 2 perun show "$mem" flow 2>err &&
	test_exit_code 2 perun show "$mem" flow total --of amount 2>err &&
	test_grep "invalid aggregation function ${SQ:-}.total" err &&
	test_exit_code 2 perun show "$mem" flow --of amount --through nope 2>err &&
	test_grep "invalid resource key ${SQ:-}.nope" err &&
	! ls flow.html 2>/dev/null
'

test_done
