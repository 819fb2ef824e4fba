#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun show <profile> bars: every aggregation function against an
# independent computation in python over the profile's JSON, read back from
# the chart in headless Chromium; stacked and grouped SVGs; error paths.
. "$srcdir/tests/test-lib.sh"
test_fixtures
. "$TEST_SRCDIR/tests/helpers/browser-lib.sh"

browser_require
chartjs_require
mem="$FIXTURES/memory/memory-basic.perf"
cpx="$FIXTURES/mixed/points-models.perf"
DATA='JSON.stringify(PERUN_PLOTS[0].chart.data.datasets.map(d => [d.label, d.data]))'
LABELS='JSON.stringify(PERUN_PLOTS[0].chart.data.labels)'

# oracle <profile> <func> <of> <per> <by>: [labels, [[series, values]...]]
oracle() {
	python3 - "$@" <<-\EOP
	import json, statistics, sys
	path, func, of, per, by = sys.argv[1:]
	p = json.load(open(path))
	# Perun's flattening of a dict uid: values in its key priority order
	rank = {"bin": 0, "file": 1, "source": 1, "package": 1, "module": 2, "class": 3,
	        "struct": 3, "function": 4, "func": 4, "method": 4, "procedure": 4,
	        "line": 5, "instruction": 6}
	def flat(v):
	    if isinstance(v, dict):
	        return ":".join(flat(v[k]) for k in sorted(v, key=lambda k: rank.get(k, 7)))
	    return str(v)
	cells = {}
	for rid, cols in p["resources"].items():
	    pers = p["resource_type_map"][rid]
	    n = len(next(iter(cols.values()), []))
	    for i in range(n):
	        row = dict(pers)
	        row.update({k: v[i] for k, v in cols.items()})
	        row["snapshots"] = row.get("snapshot", 0)
	        cells.setdefault((row[per], flat(row[by])), []).append(row[of])
	xs = sorted({k[0] for k in cells})
	groups = sorted({k[1] for k in cells})
	agg = {"sum": sum, "mean": statistics.mean, "count": len, "median": statistics.median,
	       "min": min, "max": max, "nunique": lambda v: len(set(v))}[func]
	series = [[g, [agg(cells[(x, g)]) if (x, g) in cells else None for x in xs]] for g in groups]
	print(json.dumps([[str(x) for x in xs], series]))
	EOP
}

for func in sum mean count nunique median min max; do
	test_expect_success "bars $func of amount per snapshots by uid" '
		perun show "$mem" bars $func --of amount --by uid -f $func.html >out &&
		test_grep "^bar graph written to $func.html (and $func.svg)$" out &&
		browser_check $func.html bars-$func --count canvas --eval "$LABELS" --eval "$DATA" &&
		test "$(browser_count canvas)" = 1 &&
		oracle "$mem" $func amount snapshots uid >want &&
		python3 -c "import json; w = json.load(open(\"want\")); print(json.dumps(w[0]))" >want.labels &&
		python3 -c "import json; w = json.load(open(\"want\")); print(json.dumps(w[1]))" >want.data &&
		browser_eval "$LABELS" >got.labels &&
		browser_same_json want.labels got.labels &&
		browser_eval "$DATA" >got.data &&
		browser_same_json want.data got.data
	'
done

test_expect_success 'stacked SVG: one bar per non-empty cell, each on the one below' '
	perun show "$mem" bars --of amount --by subtype -f st.html >out &&
	python3 - st.svg "$mem" <<-\EOP
	import json, sys, xml.etree.ElementTree as ET
	ns = "{http://www.w3.org/2000/svg}"
	root = ET.parse(sys.argv[1]).getroot()
	bars = root.findall(f".//{ns}rect[@class=\"bar\"]")
	p = json.load(open(sys.argv[2]))
	cells = set()
	for rid, cols in p["resources"].items():
	    t = p["resource_type_map"][rid]
	    for i in range(len(cols["amount"])):
	        cells.add((t.get("snapshot", 0), t["subtype"]))
	assert len(bars) == len(cells), (len(bars), len(cells))
	assert len(root.findall(f".//{ns}g[@class=\"legend\"]/{ns}text")) == len({c[1] for c in cells})
	EOP
'

test_expect_success 'grouped bars stand side by side' '
	perun show "$mem" bars --of amount --by subtype --grouped -f gr.html >out &&
	browser_check gr.html bars-grouped --eval "PERUN_PLOTS[0].chart.options.scales.x.stacked" &&
	test "$(browser_eval PERUN_PLOTS[0].chart.options.scales.x.stacked)" = false &&
	python3 - gr.svg <<-\EOP
	import sys, xml.etree.ElementTree as ET
	ns = "{http://www.w3.org/2000/svg}"
	xs = [float(r.get("x")) for r in ET.parse(sys.argv[1]).getroot().iter(ns + "rect") if r.get("class") == "bar"]
	assert len(xs) == len(set(xs)), "grouped bars overlap"
	EOP
'

test_expect_success 'a complexity profile, per structure-unit-size' '
	perun show "$cpx" bars mean --of amount --per structure-unit-size --by uid -f cpx.html >out &&
	browser_check cpx.html bars-complexity --count canvas &&
	test "$(browser_count canvas)" = 1
'

test_expect_success 'errors: no --of, a bad function, an unknown key, text summed' '
	test_exit_code 2 perun show "$mem" bars 2>err &&
	test_grep -i "of" err &&
	test_exit_code 2 perun show "$mem" bars average --of amount 2>err &&
	test_grep "invalid aggregation function ${SQ:-}.average${SQ:-}. (choose from count, max, mean, median, min, nunique, sum)" err &&
	test_exit_code 2 perun show "$mem" bars --of amount --by nope 2>err &&
	test_grep "invalid resource key ${SQ:-}.nope${SQ:-}. (choose from address, amount, snapshot, snapshots, subtype, time, trace, type, uid, uid:function, uid:line, uid:source)" err &&
	test_exit_code 2 perun show "$mem" bars sum --of subtype 2>err &&
	test_grep "${SQ:-}.subtype${SQ:-}. cannot be aggregated by ${SQ:-}.sum${SQ:-}.: its values are not numbers" err &&
	test_exit_code 2 perun show "$mem" bars sum extra --of amount 2>err &&
	test_grep "unexpected argument ${SQ:-}.extra" err &&
	! ls bars.html 2>/dev/null
'

test_expect_success 'nunique and count work on text' '
	perun show "$mem" bars nunique --of subtype -f nu.html >out &&
	browser_check nu.html bars-nunique --eval "$DATA" &&
	oracle "$mem" nunique subtype snapshots type >want &&
	python3 -c "import json; print(json.dumps(json.load(open(\"want\"))[1]))" >want.data &&
	browser_eval "$DATA" >got &&
	python3 - want.data got <<-\EOP
	import json, sys
	want = json.load(open(sys.argv[1]))
	got = json.loads(json.load(open(sys.argv[2])))
	# one series named after the key, the values as the oracle counts them
	assert [g[0] for g in got] == ["subtype"], got
	assert got[0][1] == want[0][1], (got, want)
	EOP
'

test_done
