#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun show <profile> scatter on the project's own profiles (models made by
# perun postprocessby) and, where they are, Python Perun's: the page opens
# offline in headless Chromium without errors, with one plot per uid and
# one curve per model of that uid, each over its own interval; the static
# SVGs parse and hold the same; error paths.
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/tests/helpers/browser-lib.sh"

. "$TEST_SRCDIR/tests/helpers/postprocess-lib.sh"
browser_require
chartjs_require
postprocess_inputs

# What the profile holds, read independently with python's json: per uid
# (sorted) the number of points and of models, and the models' intervals.
expect() {
	python3 - "$1" <<-\EOP
	import json, sys
	p = json.load(open(sys.argv[1]))
	rows = {}
	for rid, cols in p["resources"].items():
	    uid = p["resource_type_map"][rid]["uid"]
	    rows[uid] = rows.get(uid, 0) + len(next(iter(cols.values()), []))
	for uid in sorted(u for u in rows if rows[u]):
	    ms = [m for m in p.get("models", []) if m["uid"] == uid]
	    print(uid, rows[uid], len(ms))
	EOP
}

# check_scatter <profile> <name>: render, open, compare with expect.
check_scatter() {
	rm -rf out && mkdir out &&
	perun show "$1" scatter -f out/page >stdout 2>err &&
	test_cmp /dev/null err &&
	expect "$1" >expected &&
	n=$(wc -l <expected) &&
	test "$n" -gt 0 &&
	test_grep "^$n plots\{0,1\} written to out/page.html" stdout &&
	browser_check out/page.html "$2" --count div.plot --count canvas \
		--eval "JSON.stringify(PERUN_PLOTS.map(p => [p.chart.data.datasets.length, p.chart.data.datasets[0].data.length]))" &&
	test "$(browser_count div.plot)" = "$n" &&
	test "$(browser_count canvas)" = "$n" &&
	# datasets: the points and one per model; every point is on the page
	awk -v q='"' 'BEGIN { printf "%s[", q } { printf "%s[%d,%d]", (NR > 1 ? "," : ""), $NF + 1, $(NF - 1) } END { print "]" q }' expected >want.json &&
	browser_eval "JSON.stringify(PERUN_PLOTS.map(p => [p.chart.data.datasets.length, p.chart.data.datasets[0].data.length]))" >got.json &&
	test_cmp want.json got.json &&
	test "$(ls out/page_*.svg | wc -l)" = "$n" &&
	python3 - out/page_*.svg <<-\EOP
	import sys, xml.etree.ElementTree as ET
	ns = "{http://www.w3.org/2000/svg}"
	for f in sys.argv[1:]:
	    root = ET.parse(f).getroot()
	    assert root.tag == ns + "svg", f
	    assert root.findall(f".//{ns}g[@class='points']/{ns}circle"), f + ": no points"
	    assert root.find(f".//{ns}g[@class='legend']") is not None, f + ": no legend"
	EOP
}

# postprocess <out> <in> <postprocessor and options>: models of our own.
postprocess() {
	(cd proj && perun postprocessby -ot "$1" "$2" $3 >/dev/null 2>&1) &&
	cp "proj/.perun/jobs/$1.perf" "$1.perf"
}

test_expect_success 'setup: profiles with models made by the postprocessors' '
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null) &&
	for kind in exp lin; do
		postprocess $kind-rg "$pp/${kind}_datapoints_rg_ma_kr.perf" regressogram &&
		postprocess $kind-rg-ma ../$kind-rg.perf moving-average &&
		postprocess $kind-rg-ma-kr ../$kind-rg-ma.perf kernel-regression || return 1
	done &&
	postprocess full "$pp/linear_model_datapoints.perf" regression-analysis &&
	postprocess bisection "$pp/quad_model_datapoints.perf" "regression-analysis -m bisection" &&
	postprocess interval "$pp/exp_model_datapoints.perf" "regression-analysis -m interval"
'

# ranges <profile>: per uid (sorted) the [x_start, x_end] of its models.
ranges() {
	python3 - "$1" <<-\EOP
	import json, sys
	p = json.load(open(sys.argv[1]))
	uids = sorted({m["uid"] for m in p["resource_type_map"].values()})
	ranges = [[[m["x_start"], m["x_end"]] for m in p["models"] if m["uid"] == u] for u in uids]
	print(json.dumps(json.dumps(ranges, separators=(",", ":"))))
	EOP
}

# check_segments <profile> <name>: interval and bisection models are
# segments over their own intervals.
check_segments() {
	check_scatter "$1" "$2" &&
	browser_check out/page.html "$2-ranges" \
		--eval "JSON.stringify(PERUN_PLOTS.map(p => p.series.slice(1).map(s => [s.xy[0], s.xy[s.xy.length - 2]])))" &&
	ranges "$1" >want &&
	browser_eval "JSON.stringify(PERUN_PLOTS.map(p => p.series.slice(1).map(s => [s.xy[0], s.xy[s.xy.length - 2]])))" >got &&
	test_cmp want got
}

test_expect_success 'non-parametric models: regressogram, moving average, kernel regression' '
	check_scatter exp-rg-ma-kr.perf exp-rg-ma-kr &&
	check_scatter lin-rg-ma-kr.perf lin-rg-ma-kr
'

test_expect_success 'parametric models of every kind' '
	check_scatter "$FIXTURES/mixed/points-models.perf" points-models &&
	check_scatter full.perf full-computation
'

test_expect_success 'interval and bisection models are segments over their intervals' '
	check_segments bisection.perf bisection &&
	check_segments interval.perf interval
'

test_expect_success 'a profile without models: points only' '
	check_scatter "$pp/exp_model_datapoints.perf" no-models
'

test_expect_shared 'Python Perun'"'"'s non-parametric models' '
	check_scatter "$upp/exp_datapoints_rg_ma_kr.perf" exp-rg-ma-kr &&
	check_scatter "$upp/lin_datapoints_rg_ma_kr.perf" lin-rg-ma-kr
'

test_expect_shared 'Python Perun'"'"'s parametric models of every kind' '
	check_scatter "$upp/complexity-models.perf" complexity-models &&
	check_scatter "$upp/full_computation.perf" full-computation
'

test_expect_shared 'Python Perun'"'"'s interval and bisection models' '
	check_segments "$upp/bisection_computation.perf" bisection &&
	check_scatter "$upp/interval_computation.perf" interval
'

test_expect_shared 'a profile of Python Perun without models: points only' '
	check_scatter "$TESTDATA/full_profiles/prof-2-complexity-2017-03-20-21-40-42.perf" no-models
'

test_expect_success 'labels, title and --filename with .html' '
	perun show "$FIXTURES/mixed/points-models.perf" scatter -xl "size [elements]" -yl "time" \
		-gt "My title" -f named.html >stdout &&
	test -s named.html &&
	test_grep "My title; uid: linear_work(int)" named.html &&
	test_grep "size \[elements\]" named_linear_work\(int\).svg &&
	python3 -c "import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])" \
		named_linear_work\(int\).svg
'

test_expect_success 'an unknown key is named' '
	test_exit_code 2 perun show "$FIXTURES/mixed/points-models.perf" scatter --of nope 2>err &&
	test_grep "option ${SQ:-}.--of${SQ:-}.: ${SQ:-}.nope${SQ:-}. is not a key of the profile${SQ:-}.s resources" err &&
	test_exit_code 2 perun show "$FIXTURES/mixed/points-models.perf" scatter --per nope 2>err &&
	test_grep "option ${SQ:-}.--per${SQ:-}.: ${SQ:-}.nope" err &&
	! ls scatter*.html 2>/dev/null
'

test_expect_success 'a profile without resources is refused' '
	test_must_fail perun show "$FIXTURES/mixed/points-empty.perf" scatter 2>err &&
	test_grep "the profile has no resources" err
'

test_expect_success 'no Chart.js: a clear error and no page' '
	rm -f scatter*.html &&
	test_must_fail env PERUN_CHARTJS=/nonexistent/chart.js \
		perun show "$FIXTURES/mixed/points-models.perf" scatter 2>err &&
	test_grep "cannot read Chart.js from ${SQ:-}.*/nonexistent/chart.js.*libjs-chart.js" err &&
	! ls scatter*.html 2>/dev/null
'

test_expect_success 'an unwritable output is an error naming it' '
	test_must_fail perun show "$FIXTURES/mixed/points-models.perf" scatter -f no/such/dir/x 2>err &&
	test_grep "no/such/dir/x" err
'

test_expect_success 'positional arguments are refused' '
	test_exit_code 2 perun show "$FIXTURES/mixed/points-models.perf" scatter extra 2>err &&
	test_grep "unexpected argument ${SQ:-}.extra" err
'

test_done
