#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun showdiff <baseline> <target> report: one self-contained page with
# every (uid, trace) record; opened in headless Chromium: no errors, all
# rows there with the amounts python sums, sorting, filtering, grouping.
. "$srcdir/tests/test-lib.sh"
test_fixtures
. "$TEST_SRCDIR/tests/helpers/browser-lib.sh"

base="$FIXTURES/kperf/kperf-baseline.perf"
targ="$FIXTURES/kperf/kperf-target.perf"

test_expect_success 'strings escape quotes, markup, backslashes and control bytes' '
	python3 - "$base" odd.perf <<-\EOP &&
	import json, sys
	p = json.load(open(sys.argv[1]))
	for t in p["resource_type_map"].values():
	    t["uid"] = "a\"b<c>&d\\e\tf\u00e9g"
	json.dump(p, open(sys.argv[2], "w"))
	EOP
	perun showdiff odd.perf "$targ" report -o - >odd.html &&
	python3 - odd.html <<-\EOP
	import sys
	want = "\"a\\u0022b\\u003cc\\u003e\\u0026d\\u005ce\\u0009f\u00e9g\""
	sys.exit(want not in open(sys.argv[1], encoding="utf-8").read())
	EOP
'

browser_require
page=report-diff-of-kperf-baseline-and-kperf-target.html

test_expect_success 'the page: every record, amounts as python sums them' '
	perun showdiff "$base" "$targ" report >out &&
	test_grep "^report of [0-9]* records written to $page$" out &&
	browser_check $page report --count "#rows tr" --count "#head th" \
		--eval "JSON.stringify(PERUN_REPORT.rows.map(r => [r[0], r[1], r[2], r[3]]).sort())" &&
	test "$(browser_count "#head th")" = 8 &&
	python3 - "$base" "$targ" >want <<-\EOP &&
	import json, sys
	def flat(v):
	    if isinstance(v, list):
	        return ",".join(":".join(str(x) for x in f.values()) for f in v)
	    return str(v)
	rows = {}
	for side, path in enumerate(sys.argv[1:]):
	    p = json.load(open(path))
	    for rid, cols in p["resources"].items():
	        t = p["resource_type_map"][rid]
	        r = rows.setdefault((flat(t["uid"]), flat(t.get("trace", []))), [0, 0])
	        r[side] += sum(cols["amount"])
	out = sorted([[u, t, a, b] for (u, t), (a, b) in rows.items()], key=lambda r: [str(x) for x in r])
	print(len(out))
	print(json.dumps(json.dumps(out, separators=(",", ":"))))
	EOP
	test "$(browser_count "#rows tr")" = "$(head -1 want)" &&
	tail -1 want >want.rows &&
	browser_eval "JSON.stringify(PERUN_REPORT.rows.map(r => [r[0], r[1], r[2], r[3]]).sort())" >got &&
	python3 -c "import json,sys; a=json.loads(json.load(open(sys.argv[1]))); b=json.loads(json.load(open(sys.argv[2]))); sys.exit(sorted(map(str,a)) != sorted(map(str,b)))" want.rows got
'

test_expect_success 'sorted by change, filtered, grouped by uid' '
	browser_check $page report-filtered \
		--eval "(perunReport.state.filter = \"read_line\", perunReport.draw(), document.querySelectorAll(\"#rows tr\").length)" \
		--eval "(perunReport.state.filter = \"\", perunReport.state.byUid = true, perunReport.draw(), document.querySelectorAll(\"#rows tr\").length)" \
		--eval "document.querySelector(\"#rows tr td\").textContent" &&
	test "$(browser_eval "(perunReport.state.filter = \"read_line\", perunReport.draw(), document.querySelectorAll(\"#rows tr\").length)")" = 1 &&
	uids=$(python3 -c "import json,sys; print(len({t[\"uid\"] for f in sys.argv[1:] for t in json.load(open(f))[\"resource_type_map\"].values()}))" "$base" "$targ") &&
	test "$(browser_eval "(perunReport.state.filter = \"\", perunReport.state.byUid = true, perunReport.draw(), document.querySelectorAll(\"#rows tr\").length)")" = "$uids" &&
	first=$(browser_eval "document.querySelector(\"#rows tr td\").textContent") &&
	case $first in *compute*|*kernel*) ;; *) echo "first row: $first"; false ;; esac
'

test_expect_success '-o names the page; - writes it to standard output' '
	perun showdiff "$base" "$targ" report -o mine.html >out &&
	test -s mine.html &&
	perun showdiff "$base" "$targ" report -o - >stdout.html &&
	test_cmp mine.html stdout.html
'

test_expect_success 'errors: one profile, extra words, unwritable output' '
	test_exit_code 2 perun show "$base" report 2>err &&
	test_grep "only compares two profiles" err &&
	test_exit_code 2 perun showdiff "$base" "$targ" report extra 2>err &&
	test_must_fail perun showdiff "$base" "$targ" report -o no/such/dir/r.html 2>err &&
	test_grep "no/such/dir/r.html" err
'

test_done
