#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The core weighs every verdict against the measured noise: counts of
# both sides beside each verdict, a changed count flagged, and a verdict
# the noise explains kept out of the findings and of the gate (shown
# with -v and in --format json as "unreliable" with why).  The method
# here is aat, whose ratio of means an outlier or a spread can push past
# 2.  Self-made profiles; no shared test data.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null || test_skip_all "jq is not installed"

# prof <name> <type> <amounts of f, comma separated> [<amounts of g>]:
# a profile of uid f (and g) with one resource per amount.
prof() {
	g=${4:+, \"g#0\": {\"amount\": [$4]\}}
	gt=${4:+, \"g#0\": {\"uid\": \"g\", \"type\": \"$2\"\}}
	cat >"$1" <<-EOF
	{
	  "header": {"type": "$2", "cmd": "prog", "args": "", "workload": "in",
	             "units": {"$2": "s"}},
	  "collector_info": {"name": "c", "params": {}},
	  "postprocessors": [], "models": [], "origin": "",
	  "resources": {"f#0": {"amount": [$3]}$g},
	  "resource_type_map": {"f#0": {"uid": "f", "type": "$2"}$gt}
	}
	EOF
}

rep() { python3 -c "import sys; print(', '.join([sys.argv[1]] * int(sys.argv[2])))" "$1" "$2"; }

test_expect_success 'setup' '
	git init -q proj && (cd proj && perun init >/dev/null &&
	git commit -q --allow-empty -m v1 &&
	cat >>.perun/local.yml <<-EOF
	degradation:
	  strategies:
	    - method: aat
	EOF
	prof base-runs.perf time "1.0, 1.01, 0.99, 1.0, 1.0" "2.0, 2.0, 2.0, 2.0, 2.0" &&
	prof outlier-runs.perf time "1.0, 1.0, 1.01, 0.99, 9.0" "2.0, 2.0, 2.0, 2.0, 2.0" &&
	prof slow-runs.perf time "2.5, 2.52, 2.49, 2.5, 2.51" "2.0, 2.0, 2.0, 2.0, 2.0" &&
	prof base-calls.perf mixed "$(rep 2 1000)" "$(rep 400 10)" &&
	prof fewer-calls.perf mixed "$(rep 3000 25)" "$(rep 400 10)" &&
	prof spread-calls.perf mixed "0.1, 199.9" "$(rep 400 10)" &&
	prof even-calls.perf mixed "100, 300" "$(rep 400 10)")
'

test_expect_success 'an outlier run: the median did not move; unreliable, no gate' '
	(cd proj &&
	 perun check profiles base-runs.perf outlier-runs.perf --fail-on maybe >out &&
	 test_grep "^no changes found$" out &&
	 test_grep "^1 verdict within the noise, not reported (-v shows it)$" out &&
	 perun -v check profiles base-runs.perf outlier-runs.perf >out &&
	 test_grep "^  f: time Degradation by aat from 1.0s to 2.6s: effect 1.6 within the method.s noise 3.2; runs 5 -> 5 (\$ prog in)$" out &&
	 test_grep "runs 5 -> 5" out)
'

test_expect_success 'a real slowdown of every run is a finding with its counts' '
	(cd proj &&
	 test_exit_code 1 perun check profiles base-runs.perf slow-runs.perf --fail-on degradation >out &&
	 test_grep "^at f:$" out &&
	 test_grep "Degradation from: 1.0s -> to: 2.5s \[runs 5 -> 5, effect size 1.5" out &&
	 perun check profiles base-runs.perf slow-runs.perf --format json >out.json &&
	 jq -e ".changes[0].counts == {baseline: 5, target: 5, unit: \"runs\", changed: false} and
		.changes[0].unreliable == null and .changes[0].p_value < 0.05 and
		.summary.unreliable == 0" out.json)
'

test_expect_success 'calls 1,000 -> 25: reported with the change of count flagged' '
	(cd proj &&
	 test_exit_code 1 perun check profiles base-calls.perf fewer-calls.perf --fail-on degradation >out &&
	 test_grep "calls 1,000 -> 25 (changed)" out &&
	 perun check profiles base-calls.perf fewer-calls.perf --format json >out.json &&
	 jq -e "[.verdicts[] | select(.location == \"f\")][0].counts.changed == true" out.json)
'

test_expect_success 'an effect within the method'"'"'s own noise is unreliable' '
	(cd proj &&
	 perun check profiles spread-calls.perf even-calls.perf --fail-on maybe --format json >out.json &&
	 jq -e "[.verdicts[] | select(.location == \"f\")][0] |
		.result == \"Degradation\" and (.unreliable | test(\"within the method.s noise\"))" out.json &&
	 jq -e ".changes == [] and .summary.unreliable == 1" out.json)
'

test_expect_success 'unreliable verdicts go to no report format as findings' '
	(cd proj && perun status >before &&
	 perun check profiles base-runs.perf outlier-runs.perf --format sarif >out.sarif &&
	 jq -e ".runs[0].results == []" out.sarif &&
	 perun check profiles base-runs.perf outlier-runs.perf --format junit >out.xml &&
	 ! grep -q "<failure" out.xml &&
	 perun status >after && test_cmp before after)
'

# trace <file> <uid>:<us per call>:<factor>[:<stretched>:<by>:<calls>]...:
# one traced run, each function called <calls> times (40), per-call times
# spread a little, its last <stretched> calls <by> times as long (100: a
# preempted moment); self times beside the calls, and the whole process,
# !ProcessResource!, without.
trace() {
	python3 - "$@" <<-'PY'
	import json, sys
	res, tmap, total = {}, {}, 0.0
	for spec in sys.argv[2:] + ["!ProcessResource!"]:
	    fn, base, factor, stretched, by, calls = (spec.split(":") + ["0", "1", "0", "100", "40"][
	        len(spec.split(":")) - 1:])[:6]
	    n = int(calls)
	    amounts = [total] if fn == "!ProcessResource!" else [
	        float(base) * float(factor) * (1 + 0.01 * (c % 5)) *
	        (float(by) if c >= n - int(stretched) else 1) for c in range(n)]
	    total += sum(amounts)
	    key = fn + "#0"
	    tmap[key] = {"uid": fn, "type": "mixed", "subtype": "time delta"}
	    res[key] = {"amount": amounts}
	    if fn != "!ProcessResource!":
	        res[key]["exclusive"] = amounts
	json.dump({"header": {"type": "mixed", "cmd": "prog", "args": "", "workload": "in",
	                      "units": {"mixed(time delta)": "us"}},
	           "collector_info": {"name": "trace", "params": {}}, "postprocessors": [],
	           "models": [], "origin": "", "resources": res,
	           "resource_type_map": tmap}, open(sys.argv[1], "w"))
	PY
}

# five functions, f at factor $2, the others at $3
run() { trace "$1" f:100:"$2" g:200:"$3" h:300:"$3" j:400:"$3" k:500:"$3"; }

test_expect_success 'a whole traced run 2.2x slower (a loaded machine) is no finding' '
	(cd proj && run r1.perf 1 1 && run loaded.perf 2.2 2.2 && run slow-f.perf 2.2 1 &&
	 perun check profiles r1.perf loaded.perf --fail-on degradation --format json >out.json &&
	 jq -e "[.verdicts[] | select(.result == \"Degradation\")] | length == 6 and
		all(.unreliable | test(\"moved with the whole run\"))" out.json &&
	 test_exit_code 1 perun check profiles r1.perf slow-f.perf --fail-on degradation \
		--format json >out.json &&
	 jq -e "[.changes[] | .location] == [\"f\"]" out.json)
'

test_expect_success 'two of three functions 10x slower in one run: both found' '
	(cd proj && trace t3.perf f:100:1 g:100:1 h:1:1 && trace t3-two.perf f:100:10 g:100:10 h:1:1 &&
	 test_exit_code 1 perun check profiles t3.perf t3-two.perf --fail-on degradation \
		--format json >out.json &&
	 jq -e "[.changes[] | .location] == [\"f\", \"g\"]" out.json)
'

test_expect_success 'the evidence read in the method'"'"'s walk weighs as a walk of its own' '
	(cd proj &&
	 for pair in "base-runs outlier-runs" "base-runs slow-runs" "base-calls fewer-calls" \
		"base-calls spread-calls" "r1 loaded" "r1 slow-f" "t3 t3-two"; do
		set -- $pair &&
		perun -v check profiles $1.perf $2.perf --format json >shared.json &&
		PERUN_TEST_UNSHARED_WALKS=1 perun -v check profiles $1.perf $2.perf \
			--format json >own.json &&
		jq -e "[.verdicts[] | .counts] | length > 0 and all(. != null)" shared.json &&
		test_cmp own.json shared.json || return 1
	 done)
'

# As fib(19) on a busy machine: the mean of 2,000 calls 3x, by 2% of them
# (the preempted ones); the tail of a real change moves a quartile.  The
# whole process, one wall time a side, still moved: it is reported.
test_expect_success 'a few calls stretched by a busy machine are no finding' '
	(cd proj && trace t4.perf f:100:1:0:1:2000 g:100:1 h:1:1 &&
	 trace t4-stretched.perf f:100:1:40:100:2000 g:100:1 h:1:1 &&
	 perun check profiles t4.perf t4-stretched.perf --format json >out.json &&
	 jq -e "[.verdicts[] | select(.location == \"f\")] | length == 1 and
		(.[0].unreliable | test(\"a few calls made the change, not the bulk\"))" out.json &&
	 jq -e "[.changes[] | .location] | index(\"f\") == null" out.json &&
	 trace t4-tail.perf f:100:1:600:5:2000 g:100:1 h:1:1 &&
	 test_exit_code 1 perun check profiles t4.perf t4-tail.perf --fail-on degradation \
		--format json >out.json &&
	 jq -e "[.changes[] | .location] | index(\"f\")" out.json)
'

# rss <file> <bytes>: a time profile with real time and max-rss.
rss() {
	cat >"$1" <<-EOF
	{"header": {"type": "time", "cmd": "prog", "args": "", "workload": "in",
	            "units": {"time": "s", "memory": "B"}},
	 "collector_info": {"name": "time", "params": {}}, "postprocessors": [],
	 "models": [], "origin": "",
	 "resources": {"prog#0": {"amount": [1.0, 1.01, 0.99]},
	               "prog:max-rss#1": {"amount": [$2, $2, $2]}},
	 "resource_type_map": {"prog#0": {"uid": "prog", "type": "time", "subtype": "real"},
	                       "prog:max-rss#1": {"uid": "prog:max-rss", "type": "memory",
	                                          "subtype": "max-rss"}}}
	EOF
}

test_expect_success 'max-rss is in bytes, in the text and in SARIF' '
	(cd proj && rss rss1.perf 1000000 && rss rss3.perf 3000000 &&
	 perun check profiles rss1.perf rss3.perf --format json >out.json &&
	 jq -e "[.changes[] | select(.location == \"prog:max-rss\")][0] |
		.from == \"1000000.0B\" and .to == \"3000000.0B\"" out.json &&
	 perun check profiles rss1.perf rss3.perf --format sarif >out.sarif &&
	 jq -r ".runs[0].results[0].message.text" out.sarif >msg &&
	 test_grep "3000000.0B" msg && ! grep -q "0s" msg)
'

test_expect_success 'degradation.noise.enabled: false gives the method'"'"'s raw verdicts' '
	(cd proj &&
	 perun config --local set degradation.noise.enabled false &&
	 test_exit_code 1 perun check profiles base-runs.perf outlier-runs.perf --fail-on maybe >out &&
	 test_grep "^at f:$" out &&
	 perun config --local set degradation.noise.enabled true)
'

test_expect_success 'a bad noise setting is one error naming the key' '
	(cd proj &&
	 perun config --local set degradation.noise.alpha 7 &&
	 test_exit_code 2 perun check profiles base-runs.perf slow-runs.perf 2>err &&
	 echo "perun: degradation.noise.alpha: 7 is not within 0 and 1" >expect &&
	 test_cmp expect err &&
	 perun config --local set degradation.noise.alpha 0.05)
'

test_done
