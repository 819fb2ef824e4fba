#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun check profiles: Perun's report, the .changes file (format, merging,
# atomic and untouched on errors), every --format, --fail-on, strategies
# from the configuration and the error paths.
. "$srcdir/tests/test-lib.sh"

# The project's own pair (tests/fixtures): one sample per function, an
# optimization 800 -> 100 ms and degradations 1 -> 2 and 300 -> 192000 ms
# planted.  Python Perun's verdicts on its pair are the last, shared-only
# case.  The weighing against the noise (which finds one-sample profiles'
# 1 ms changes negligible) is t2007's.
test_fixtures
lbd="$FIXTURES/check/single-baseline.perf"
qb="$FIXTURES/check/single-target.perf"
zero="$FIXTURES/time/time-zero.perf"
other="$FIXTURES/trace/trace-target.perf"
test_expect_success 'setup: a project with the default strategy (aat)' '
	git init -q proj && (cd proj && git commit -q --allow-empty -m root &&
	perun init >/dev/null &&
	perun config --local set degradation.noise.enabled false)
'

test_expect_success 'the text report: grouped by location, rate, models, command' '
	(cd proj && perun check profiles "$lbd" "$qb" >out &&
	 cat >expect <<-EOF &&
	[Checking two compatible profiles]

	at list_destroy(list*):
	└ 0.12x: mixed Optimization from: 800.0ms -> to: 100.0ms [calls 1 -> 1, effect size -0.875] (\$ target workload.in)
	at list_insert(list*, int):
	└ 2.0x: mixed Degradation from: 1.0ms -> to: 2.0ms [calls 1 -> 1, effect size 1] (\$ target workload.in)
	at list_search(list*, int):
	└ 640.0x: mixed Degradation from: 300.0ms -> to: 192000.0ms [calls 1 -> 1, effect size 639] (\$ target workload.in)

	3 changes | +--
	1 optimization(+), 2 degradations(-)
	EOF
	 test_cmp expect out)
'

test_expect_success 'the changes are saved to the .changes of HEAD in Perun format' '
	(cd proj && head=$(git rev-parse HEAD) &&
	 f=.perun/objects/$(echo $head | cut -c1-2)/$(echo $head | cut -c3-).changes &&
	 cat >expect <<-EOF &&
	list_destroy(list*) PerformanceChange.Optimization mixed 800.0ms 100.0ms 0.125 no 0.0 0.0 $head target workload.in
	list_insert(list*, int) PerformanceChange.Degradation mixed 1.0ms 2.0ms 2.0 no 0.0 0.0 $head target workload.in
	list_search(list*, int) PerformanceChange.Degradation mixed 300.0ms 192000.0ms 640.0 no 0.0 0.0 $head target workload.in
	EOF
	 printf "%s" "$(cat expect)" >expect.nonl &&
	 test_cmp expect.nonl "$f")
'

test_expect_success 'a later check replaces the records of the same location, type and command' '
	(cd proj && perun check profiles "$qb" "$lbd" >/dev/null &&
	 head=$(git rev-parse HEAD) &&
	 f=.perun/objects/$(echo $head | cut -c1-2)/$(echo $head | cut -c3-).changes &&
	 test $(wc -l <"$f") -eq 2 &&
	 test_grep -c "PerformanceChange" "$f" >count && echo 3 >expect && test_cmp expect count &&
	 test_grep "^list_destroy(list\*) PerformanceChange.Degradation" "$f" &&
	 test_grep "^list_search(list\*, int) PerformanceChange.Optimization" "$f")
'

test_expect_success 'status shows the summary and the list of the changes' '
	(cd proj && perun status >out &&
	 test_grep "^3 changes | ++-$" out &&
	 test_grep "^2 optimizations(+), 1 degradation(-)$" out &&
	 test_grep "^at list_search(list\*, int):$" out &&
	 perun status --short >short && test_grep "^3 changes" short &&
	 ! test_grep "^at " short &&
	 perun status --format json >st.json &&
	 jq -e "[.changes[] | .result] | sort == [\"Degradation\", \"Optimization\", \"Optimization\"]" st.json)
'

test_expect_success 'log shows them as %changes%' '
	(cd proj && perun log --short >out && test_grep " ++-$" out)
'

test_expect_success '--format json parses and carries pairs, changes, verdicts, summary' '
	(cd proj && perun check profiles "$lbd" "$qb" --format json >out.json &&
	 jq -e ".schema == \"perun-check/1\" and (.pairs | length) == 1 and
		(.changes | length) == 3 and (.verdicts | length) == 3 and
		.summary == {changes: 3, optimizations: 1, degradations: 2,
			     by_result: {Optimization: 1, Degradation: 2}, unreliable: 0} and
		.pairs[0].baseline == \"$lbd\" and .pairs[0].cmdstr == \"target workload.in\" and
		(.changes | map(.method) | unique) == [\"aat\"]" out.json)
'

test_expect_success '--format junit: a test case per pair and location, degradations fail' '
	(cd proj && perun check profiles "$lbd" "$qb" --format junit >out.xml &&
	 python3 - out.xml <<-\EOF
	import sys, xml.etree.ElementTree as ET
	root = ET.parse(sys.argv[1]).getroot()
	assert root.tag == "testsuites", root.tag
	cases = root.findall("./testsuite/testcase")
	names = sorted(c.get("name") for c in cases)
	assert names == ["list_destroy(list*)", "list_insert(list*, int)",
			 "list_search(list*, int)"], names
	failed = sorted(c.get("name") for c in cases if c.find("failure") is not None)
	assert failed == ["list_insert(list*, int)", "list_search(list*, int)"], failed
	assert root.get("tests") == "3" and root.get("failures") == "2"
	assert all(" -> " in c.get("classname") for c in cases)
	f = [c for c in cases if c.get("name") == "list_search(list*, int)"][0].find("failure")
	assert f.get("type") == "Degradation" and "aat: Degradation from 300.0ms to 192000.0ms" in f.text
	EOF
	)
'

test_expect_success '--format sarif: SARIF 2.1.0, one result per degraded location' '
	(cd proj && perun check profiles "$lbd" "$qb" --format sarif >out.sarif &&
	 python3 - out.sarif <<-\EOF
	import json, sys
	doc = json.load(open(sys.argv[1]))
	assert doc["version"] == "2.1.0" and "sarif-2.1.0" in doc["$schema"]
	run, = doc["runs"]
	assert run["tool"]["driver"]["name"] == "perun"
	rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
	res = run["results"]
	locs = [r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] for r in res]
	assert sorted(locs) == ["list_insert(list*, int)", "list_search(list*, int)"], locs
	for r in res:
	    assert r["ruleId"] == "aat" and rules[r["ruleIndex"]] == "aat"
	    assert r["level"] == "error" and r["message"]["text"]
	    assert r["properties"]["result"] == "Degradation"
	    assert r["properties"]["effectSize"] > 0 and r["properties"]["noise"] is None
	EOF
	)
'

test_expect_success '--format markdown: a summary line and a table row per change' '
	(cd proj && perun check profiles "$lbd" "$qb" --format markdown >out.md &&
	 test_grep "^\*\*3 changes\*\* in 1 compared profile pair: 2 degradations, 0 possible degradations, 1 optimization.$" out.md &&
	 test_grep "^| | Location | Change | Method | From | To | Rate | Confidence | Command |$" out.md &&
	 test_grep "^| :red_circle: | .list_search(list\*, int). | Degradation | aat | 300.0ms | 192000.0ms | 640.0x | - | .target workload.in. |$" out.md &&
	 test $(grep -c "^| :" out.md) -eq 3 &&
	 perun check profiles "$zero" "$zero" --format markdown >none.md &&
	 test_grep "^No performance changes in 1 compared profile pair.$" none.md)
'

test_expect_success '--fail-on: exit 1 at or above the level, 0 below it and without it' '
	(cd proj &&
	 test_exit_code 0 perun check profiles "$lbd" "$qb" >/dev/null &&
	 test_exit_code 1 perun check profiles "$lbd" "$qb" --fail-on degradation >/dev/null &&
	 test_exit_code 1 perun check --fail-on maybe profiles "$lbd" "$qb" >/dev/null &&
	 test_exit_code 0 perun check profiles "$lbd" "$qb" --fail-on severe >/dev/null &&
	 test_exit_code 0 perun check profiles "$qb" "$qb" --fail-on maybe >/dev/null &&
	 test_exit_code 1 perun check profiles "$lbd" "$qb" --fail-on degradation --format sarif >out &&
	 jq -e ".runs[0].results | length == 2" out)
'

test_expect_success 'strategies: rules match on collector, postprocessor and header keys' '
	(cd proj &&
	 perun config --local set degradation.strategies \
		"[{collector: time, method: bmoe}, {postprocessor: regression_analysis, type: mixed, method: bmoe}, {method: aat}]" &&
	 perun check profiles "$lbd" "$qb" --format json >out.json &&
	 jq -e "(.verdicts | map(.method) | unique) == [\"aat\", \"bmoe\"]" out.json &&
	 perun config --local set degradation.apply first >/dev/null &&
	 perun check profiles "$lbd" "$qb" --format json >first.json &&
	 jq -e "(.verdicts | map(.method) | unique) == [\"bmoe\"]" first.json &&
	 perun config --local set degradation.strategies "[{cmd: other, method: bmoe}, {method: average_amount_threshold}]" &&
	 perun check profiles "$lbd" "$qb" --format json >long.json &&
	 jq -e "(.verdicts | map(.method) | unique) == [\"aat\"]" long.json)
'

test_expect_success 'error paths exit 2 and leave the store as it was' '
	(cd proj && store_snapshot >before &&
	 test_exit_code 2 perun check profiles "$lbd" 7@i 2>err &&
	 test_grep "no profile 7@i" err &&
	 test_exit_code 2 perun check profiles "$lbd" no-such.perf 2>err &&
	 test_grep "no profile matches .no-such.perf." err &&
	 echo "{\"header\": " >broken.perf &&
	 test_exit_code 2 perun check profiles "$lbd" broken.perf 2>err &&
	 test_grep "broken.perf" err &&
	 test_exit_code 2 perun check profiles "$lbd" "$other" 2>err &&
	 test_grep "incompatible configurations" err &&
	 test_exit_code 2 perun check profiles "$lbd" 2>err &&
	 test_grep "usage: perun check profiles <baseline> <target>" err &&
	 test_exit_code 2 perun check profiles "$lbd" "$qb" --format yaml 2>err &&
	 perun config --local set degradation.strategies "[{method: nosuch}]" &&
	 store_snapshot >before &&
	 test_exit_code 2 perun check profiles "$lbd" "$qb" 2>err &&
	 test_grep "unknown check method .nosuch." err &&
	 perun config --local set degradation.strategies "[aat]" &&
	 store_snapshot >before &&
	 test_exit_code 2 perun check profiles "$lbd" "$qb" 2>err &&
	 test_grep "degradation.strategies: rule 1 is not a mapping" err &&
	 perun config --local set degradation.strategies "[{method: aat}]" &&
	 perun config --local set degradation.apply some &&
	 store_snapshot >before &&
	 test_exit_code 2 perun check profiles "$lbd" "$qb" 2>err &&
	 test_grep "degradation.apply: .some. is neither .first. nor .all." err &&
	 store_snapshot >after && test_cmp before after)
'

# The profiles are read streamed: a map found malformed during the check
# fails it with the whole load's own message, nothing saved.
test_expect_success 'a malformed resource_type_map: the load message, exit 2, no changes' '
	(cd proj && python3 - "$qb" dup-map.perf <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	key, value = next(iter(d["resource_type_map"].items()))
	text = json.dumps(d)
	entry = json.dumps({key: value})[1:-1]
	text = text.replace("\"resource_type_map\": {", "\"resource_type_map\": {" + entry + ", ", 1)
	open(sys.argv[2], "w").write(text)
	EOF
	 perun config --local set degradation.apply first >/dev/null &&
	 store_snapshot >before &&
	 test_exit_code 2 perun check profiles "$lbd" dup-map.perf >out 2>err &&
	 test_grep "^perun: cannot read profile .*/dup-map.perf.: line 1: duplicate object key$" err &&
	 test $(wc -l <err) = 1 &&
	 store_snapshot >after && test_cmp before after)
'

test_expect_success 'a malformed .changes line is skipped with a warning and dropped on save' '
	(cd proj && perun config --local set degradation.apply all &&
	 head=$(git rev-parse HEAD) &&
	 f=.perun/objects/$(echo $head | cut -c1-2)/$(echo $head | cut -c3-).changes &&
	 printf "\ngarbage line" >>"$f" &&
	 perun status >out 2>err &&
	 test_grep "warning: malformed changelog line in .*\.changes" err &&
	 perun check profiles "$lbd" "$qb" >/dev/null 2>&1 &&
	 ! test_grep garbage "$f")
'

test_expect_success '--force compares profiles of different configurations' '
	(cd proj && perun check --force profiles "$lbd" "$other" --format json >out.json &&
	 jq -e ".pairs | length == 1" out.json)
'

test_expect_success 'profiles by tag: registered (N@i, <rev>^N@i) and pending (N@p)' '
	(cd proj && h=$(git rev-parse HEAD) &&
	 jq --arg h "$h" ".origin = \$h" "$lbd" >.perun/jobs/a.perf &&
	 jq --arg h "$h" ".origin = \$h" "$qb" >.perun/jobs/b.perf &&
	 perun add .perun/jobs/a.perf --keep-profile >/dev/null &&
	 perun check profiles 0@i b.perf --format json >out.json &&
	 jq -e ".summary.degradations == 2 and .pairs[0].target_minor == \"$h\"" out.json &&
	 perun check profiles HEAD^0@i 0@p --format json >out2.json &&
	 jq -e ".pairs[0].baseline == \"HEAD^0@i\"" out2.json)
'

test_expect_shared 'Python Perun'"'"'s pair: the verdicts Python Perun gives' '
	(cd proj && d="$TESTDATA/degradation_profiles" &&
	 perun check profiles "$d/linear_base_degradated.perf" "$d/quad_base.perf" >out &&
	 cat >expect <<-EOF &&
	[Checking two compatible profiles]

	at SLList_destroy(SLList*):
	└ 0.13x: mixed Optimization from: 740.0ms -> to: 93.0ms [calls 1 -> 1, effect size -0.874] (\$ target workload.in)
	at SLList_insert(SLList*, int):
	└ 2.0x: mixed Degradation from: 1.0ms -> to: 2.0ms [calls 1 -> 1, effect size 1] (\$ target workload.in)
	at SLList_search(SLList*, int):
	└ 654.6x: mixed Degradation from: 293.0ms -> to: 191797.0ms [calls 1 -> 1, effect size 654] (\$ target workload.in)

	3 changes | +--
	1 optimization(+), 2 degradations(-)
	EOF
	 test_cmp expect out)
'

test_done
