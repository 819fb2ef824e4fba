#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun import chrome FILES...: the traces of three processes (an annotated
# C program that forks, an annotated C++ program) become one profile of the
# trace collector's shape whose counts are those an independent reader
# (tests/annotate/check-trace.py) finds in the files; exclusive times
# agree with the nesting; hosts and processes are told apart; a trace cut
# short (no closing bracket) and PerfFlowAspect-style files load; every
# malformed input is one line naming the file and the event, and leaves
# the store as it was.
. "$srcdir/tests/test-lib.sh"

command -v python3 >/dev/null || test_skip_all "python3 is needed to read the profiles"
. "$TEST_SRCDIR/tests/annotate/annotate-lib.sh"
query() { python3 "$TEST_SRCDIR/plugins/collect/trace/tests/trace-query.py" "$@"; }
newest() { ls -t .perun/jobs/*.perf | head -n 1; }
field() { awk -v k="$2" -v n="$3" -v c="$4" '$1 == k && $2 == n { print $c }' "$1"; }

test_expect_success 'setup: a perun instance and three processes traced' '
	test_make_git_project proj && (cd proj && perun init >/dev/null) &&
	annotate_build &&
	mkdir run && PERUN_ANNOTATE="log-dir=run:name=driver" ./annotated fork &&
	PERUN_ANNOTATE="log-dir=run:name=shapes:log-event=compact:log-format=object" \
		./annotatedxx &&
	test $(ls run | wc -l) = 3 &&
	python3 "$ANN/check-trace.py" run/* >sum
'

test_expect_success 'three files, one profile: the counts of the files' '
	(cd proj && perun import chrome ../run/* >out 2>err &&
	 test_grep "^Imported profile .*/\.perun/jobs/chrome-.*\.perf$" out &&
	 test ! -s err && cp "$(newest)" ../p.perf) &&
	for r in work nap load area risky; do
		test "$(query p.perf calls $r)" = "$(field sum region $r 3)" || return 1
	done &&
	test "$(query p.perf calls work)" = 23 &&
	test "$(query p.perf calls request)" = 4 && test "$(query p.perf calls job)" = 3 &&
	test "$(query p.perf field request async)" = True &&
	test "$(query p.perf field request exclusive)" = None &&
	test "$(query p.perf field work async)" = None &&
	test "$(query p.perf calls "!ProcessResource!")" = 3 &&
	test "$(query p.perf calls "!ThreadResource!")" = 10 &&
	python3 -c "import sys; sys.exit(not $(query p.perf min nap) >= 2000)" &&
	python3 -c "import sys; sys.exit(not $(query p.perf min request) >= 3000)" &&
	test "$(query p.perf field work process)" = driver &&
	test "$(query p.perf field area process)" = shapes &&
	test "$(query p.perf field work host)" = "$(hostname | cut -d. -f1)" &&
	test_grep "\"mixed(time delta)\": \"us\"" p.perf &&
	test_grep "\"cmd\": \"driver shapes\"" p.perf
'

test_expect_success 'exclusive times: nested regions are the callees' '
	test "$(query p.perf exclusive work area risky)" = ok
'

test_expect_success 'the chrome and flamegraph views show it' '
	(cd proj && perun show 0@p chrome -o ../view.json && perun show 0@p flamegraph -o ../fg.svg) &&
	python3 -c "import json; d=json.load(open(\"view.json\")); assert len([e for e in d[\"traceEvents\"] if e[\"ph\"] == \"X\" and e[\"name\"] == \"work\"]) == 23" &&
	test_grep "work" fg.svg
'

test_expect_success 'regression analysis models the regions of the imported profile' '
	(cd proj && perun postprocessby 0@p regression-analysis -dp call-order >out 2>err &&
	 test_grep "^Postprocessed " out && cp "$(newest)" ../models.perf) &&
	python3 -c "import json; d = json.load(open(\"models.perf\")); assert {\"work\", \"nap\", \"area\"} <= {m[\"uid\"] for m in d[\"models\"]}"
'

# Two hosts with the same pid, PerfFlowAspect style (float ts, no closing
# bracket in one), and a region a crash left open: it ends at the last
# event of its thread, the counter at 1800.
test_expect_success 'hosts, a file cut short, a region left open' '
	cat >a.pfw <<-\EOF &&
	[
	{"name": "process_labels", "ph": "M", "pid": 7, "args": {"labels": "alpha"}},
	{"name": "foo", "cat": "a.py", "pid": 7, "tid": 7, "ts": 1000.0, "ph": "X", "dur": 500.0},
	{"name": "foo", "cat": "a.py", "pid": 7, "tid": 7, "ts": 2000.0, "ph": "B"},
	{"name": "bar", "cat": "a.py", "pid": 7, "tid": 7, "ts": 2100.0, "ph": "B"},
	{"name": "bar", "cat": "a.py", "pid": 7, "tid": 7, "ts": 2300.0, "ph": "E"},
	{"name": "foo", "cat": "a.py", "pid": 7, "tid": 7, "ts": 2400.0, "ph": "E"},
	EOF
	cat >b.pfw <<-\EOF &&
	{"traceEvents": [
	{"name": "process_labels", "ph": "M", "pid": 7, "args": {"labels": "beta"}},
	{"name": "foo", "pid": 7, "tid": "7", "ts": 1500, "ph": "B"},
	{"name": "bar", "pid": 7, "tid": 7, "ts": 1600, "ph": "b", "cat": "io", "id": 1},
	{"name": "bar", "pid": 7, "tid": 8, "ts": 1900, "ph": "e", "cat": "io", "id": 1},
	{"name": "tick", "pid": 7, "tid": 7, "ts": 1700, "ph": "i"},
	{"name": "q", "pid": 7, "tid": 7, "ts": 1800, "ph": "C", "args": {"n": 1}}
	]}
	EOF
	(cd proj && perun import chrome ../a.pfw ../b.pfw >/dev/null && cp "$(newest)" ../h.perf) &&
	test "$(query h.perf calls "!ProcessResource!")" = 2 &&
	test "$(query h.perf field foo host)" = "$(printf "alpha\nbeta")" &&
	test "$(query h.perf calls foo)" = 3 && test "$(query h.perf calls bar)" = 2 &&
	test "$(query h.perf orders foo)" = "0 0 1" &&
	python3 - <<-\EOF
	import json
	d = json.load(open("h.perf"))
	rows = []
	for tid, cols in d["resources"].items():
	    keys = d["resource_type_map"][tid]
	    for i in range(len(cols["amount"])):
	        r = dict(keys); r.update({k: v[i] for k, v in cols.items()}); rows.append(r)
	foo = sorted((r["host"], r["timestamp"], r["amount"], r.get("exclusive")) for r in rows if r["uid"] == "foo")
	# alpha: X at 1000 (500), B/E 2000-2400 holding bar (200); beta: open from 1500 to 1900
	assert foo == [("alpha", 0.0, 500.0, 500.0), ("alpha", 1000.0, 400.0, 200.0),
	               ("beta", 500.0, 300.0, 300.0)], foo
	bar = sorted((r["host"], r["amount"], r["tid"]) for r in rows if r["uid"] == "bar")
	assert bar == [("alpha", 200.0, 7), ("beta", 300.0, 7)], bar
	EOF
'

bad() {
	printf "%s\n" "$2" >"$1"
	(cd proj && store_snapshot >../before &&
	 test_exit_code 2 perun import chrome ../ok.json "../$1" 2>../err &&
	 store_snapshot >../after) &&
	test_cmp before after && test $(wc -l <err) = 1
}

test_expect_success 'malformed input: one line naming the file and the event; store unchanged' '
	printf "[{\"name\":\"x\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}]\n" >ok.json &&
	bad nojson.json "{\"traceEvents\": [" &&
	test_grep "^perun: cannot import .\.\./nojson\.json.: line " err &&
	bad scalar.json "{\"events\": []}" &&
	test_grep "nor an object with traceEvents" err &&
	bad notobj.json "[1]" && test_grep "event 0: not an object" err &&
	bad noph.json "[{\"name\":\"x\"}]" && test_grep "event 0: no .ph. string" err &&
	bad phase.json "[{\"name\":\"x\",\"ph\":\"Q\",\"pid\":1,\"tid\":1,\"ts\":1}]" &&
	test_grep "phase.json.: event 0 (ph .Q.): not a known phase" err &&
	bad dur.json "[{\"ph\":\"M\",\"name\":\"m\"},{\"name\":\"x\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1}]" &&
	test_grep "dur.json.: event 1 (ph .X.): needs a .dur. >= 0" err &&
	bad ts.json "[{\"name\":\"x\",\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":\"now\"}]" &&
	test_grep "event 0 (ph .B.): needs .name. (string), .ts. (number)" err &&
	bad id.json "[{\"name\":\"x\",\"ph\":\"b\",\"pid\":1,\"tid\":1,\"ts\":1}]" &&
	test_grep "event 0 (ph .b.): needs an .id." err &&
	(cd proj && test_exit_code 2 perun import chrome ../missing.json 2>../err) &&
	test_grep "missing.json" err &&
	(cd proj && test_exit_code 2 perun import chrome 2>../err) &&
	test_grep "usage: perun import chrome <file>\.\.\." err
'

test_expect_success 'files without regions are refused' '
	printf "[{\"name\":\"t\",\"ph\":\"i\",\"pid\":1,\"tid\":1,\"ts\":1}]\n" >none.json &&
	(cd proj && test_exit_code 2 perun import chrome ../none.json 2>../err) &&
	test_grep "no regions" err
'

test_done
