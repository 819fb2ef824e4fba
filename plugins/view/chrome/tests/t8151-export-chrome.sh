#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun show <profile> chrome: Chrome Trace Event JSON, parsed with python3's
# json: complete events that nest on each thread; for trace profiles the
# recorded calls at their times, for kperf and memory profiles the call tree
# as a flame chart whose frames add up to the profile's stacks.
. "$srcdir/tests/test-lib.sh"
test_fixtures

command -v python3 >/dev/null || test_skip_all "python3 is needed to read the JSON independently"
CHECK="$TEST_SRCDIR/plugins/view/flamegraph/tests/flame-check.py"

# check_events <json> <profile>: the events nest, and their self times
# (duration minus nested events) per stack are the profile's stacks.
check_events() {
	python3 "$CHECK" "$2" --stacks >stacks && sed -i "/^total /d" stacks &&
	python3 - "$1" stacks "$2" <<-\EOF
	import json, sys
	from collections import defaultdict
	doc = json.load(open(sys.argv[1]))
	prof = json.load(open(sys.argv[3]))
	events = [e for e in doc["traceEvents"] if e["ph"] == "X"]
	meta = [e for e in doc["traceEvents"] if e["ph"] == "M"]
	assert events and all(e["ph"] in "XM" for e in doc["traceEvents"])
	assert meta[0]["name"] == "process_name" and meta[0]["args"]["name"] == prof["header"]["cmd"]
	timed = doc["otherData"]["timeline"] == "recorded calls"
	self_of = defaultdict(float)
	threads = defaultdict(list)
	for e in events:
	    assert e["dur"] >= 0 and isinstance(e["name"], str) and e["cat"] == "perun"
	    threads[e["tid"]].append(e)
	for tid, evs in threads.items():
	    evs.sort(key=lambda e: (e["ts"], -e["dur"]))
	    stack = []
	    for e in evs:
	        while stack and e["ts"] >= stack[-1][0]["ts"] + stack[-1][0]["dur"]:
	            done, path, own = stack.pop()
	            self_of[path] += own
	        if stack:
	            parent = stack[-1]
	            end = parent[0]["ts"] + parent[0]["dur"]
	            assert e["ts"] + e["dur"] <= end + 1e-6, ("overlaps its parent", e, parent[0])
	            parent[2] -= e["dur"]
	        path = (stack[-1][1] if stack else ()) + (e["name"],)
	        stack.append([e, path, e["dur"]])
	    while stack:
	        done, path, own = stack.pop()
	        self_of[path] += own
	want = {}
	for line in open(sys.argv[2]):
	    stack, w = line.rsplit(" ", 1)
	    want[tuple(stack.split(";"))] = float(w)
	got = {p: w for p, w in self_of.items() if abs(w) > 1e-6}
	want = {p: w for p, w in want.items() if w}
	assert set(got) == set(want), (sorted(set(got) ^ set(want))[:5])
	for p in want:
	    assert abs(got[p] - want[p]) <= 1e-6 * max(1, want[p]), (p, got[p], want[p])
	if timed:
	    calls = sum(len(prof["resources"][k].get("timestamp", []))
	                for k in prof["resource_type_map"] if "timestamp" in prof["resources"][k])
	    assert len(events) == calls, (len(events), calls)
	print(len(events), "events,", len(threads), "threads")
	EOF
}

test_expect_shared 'trace profile: every recorded call at its time, nested per thread' '
	perun show "$TESTDATA/degradation_profiles/tracer_baseline.perf" chrome -o trace.json &&
	check_events trace.json "$TESTDATA/degradation_profiles/tracer_baseline.perf" >out &&
	test_grep "^2186 events, 1 threads$" out &&
	python3 -c "import json; d = json.load(open(\"trace.json\")); e = [x for x in d[\"traceEvents\"] if x[\"name\"] == \"main\"]; assert e == [dict(name=\"main\", cat=\"perun\", ph=\"X\", ts=1294827, dur=13822553, pid=1, tid=380919)], e"
'

test_expect_success 'kperf and memory profiles: a flame chart of the stacks' '
	for prof in kperf/kperf-target.perf memory/memory-basic.perf; do
		perun show "$FIXTURES/$prof" chrome >chart.json &&
		check_events chart.json "$FIXTURES/$prof" >out || return 1
		test_grep "flame chart" chart.json >/dev/null || return 1
	done
'

test_expect_shared 'times in other units become microseconds' '
	python3 - "$TESTDATA/degradation_profiles/tracer_baseline.perf" ms.perf <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	d["header"]["units"] = {"mixed(time delta)": "ms"}
	json.dump(d, open(sys.argv[2], "w"))
	EOF
	perun show ms.perf chrome -o ms.json &&
	python3 -c "import json; d = json.load(open(\"ms.json\")); e = [x for x in d[\"traceEvents\"] if x[\"name\"] == \"main\"][0]; assert (e[\"ts\"], e[\"dur\"]) == (1294827000, 13822553000), e"
'

test_expect_success 'errors: no stacks, no time unit, bad words, unwritable file' '
	test_exit_code 2 perun show "$FIXTURES/mixed/points-models.perf" chrome 2>err &&
	test_grep "^perun: view '"'"'chrome'"'"': the profile has no call stacks" err &&
	python3 - "$FIXTURES/trace/trace-baseline.perf" bytes.perf <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	d["header"]["units"] = {"mixed(time delta)": "B"}
	json.dump(d, open(sys.argv[2], "w"))
	EOF
	test_exit_code 2 perun show bytes.perf chrome 2>err &&
	test_grep "unit '"'"'B'"'"' is not a time unit" err &&
	test_exit_code 2 perun show "$FIXTURES/kperf/kperf-target.perf" chrome word 2>err &&
	test_must_fail perun show "$FIXTURES/kperf/kperf-target.perf" chrome -o no/dir/t.json 2>err &&
	test_grep "no/dir/t.json" err && test $(wc -l <err) = 1
'

test_done
