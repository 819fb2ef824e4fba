#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The @name@ check method through perun check profiles, named by its long
# name in degradation.strategies: verdicts per uid, the threshold from the
# configuration, and its title in reports.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null 2>&1 || test_skip_all "jq is not installed"

# prof <file> <amounts of f> <amounts of g>: a small time profile.
prof() {
	cat >"$1" <<-EOF
	{"header": {"type": "time", "cmd": "c", "workload": "w", "units": {"time": "s"}},
	 "collector_info": {"name": "time", "params": {}}, "postprocessors": [],
	 "resources": {"f#0": {"amount": [$2]}, "g#0": {"amount": [$3]}},
	 "resource_type_map": {"f#0": {"uid": "f", "type": "time"},
	                       "g#0": {"uid": "g", "type": "time"}},
	 "models": []}
	EOF
}

# The instance on svs, the vcs plugin without dependencies; the shared
# configuration names a method too (Perun's default): this one only, so
# that the test needs no other check plugin.
test_expect_success 'setup: a project whose strategy is this method' '
	perun init --vcs-type svs proj >/dev/null &&
	(cd proj &&
	 perun config --shared set degradation.strategies "[{method: @name@_mean_threshold}]" &&
	 perun config --local set degradation.strategies "[{method: @name@_mean_threshold}]") &&
	prof base.perf "1, 2, 3" "10, 10" &&
	prof target.perf "2.5, 2.5" "8, 8"
'

test_expect_success 'perun plugins inspect shows the method and title' '
	perun plugins inspect @name@ --format json >out &&
	jq -r ".kind, .method" out >actual &&
	printf "check\n@name@_mean_threshold\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a mean 25 % up degrades, 20 % down optimizes (threshold 10 %)' '
	(cd proj && perun check profiles ../base.perf ../target.perf --format json) >out.json &&
	jq -r ".verdicts[] | [.location, .result, .from, .to, .method] | join(\"|\")" \
		out.json >actual &&
	cat >expect <<-\EOF &&
	f|Degradation|2|2.5|@name@
	g|Optimization|10|8|@name@
	EOF
	test_cmp expect actual
'

test_expect_success 'degradation.@name@_threshold 0.22: only f changed' '
	(cd proj && perun config --local set degradation.@name@_threshold 0.22 >/dev/null &&
	 perun check profiles ../base.perf ../target.perf --format json) >out.json &&
	jq -r ".verdicts[] | [.location, .result] | join(\"|\")" out.json >actual &&
	printf "f|Degradation\ng|NoChange\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'the SARIF report titles the rule' '
	(cd proj && perun check profiles ../base.perf ../target.perf --format sarif) >sarif &&
	jq -r ".runs[0].tool.driver.rules[0] | [.id, .name] | @tsv" sarif >actual &&
	printf "@name@\t@name@ mean threshold\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a threshold of 0 is an input error (exit 2)' '
	(cd proj && perun config --local set degradation.@name@_threshold 0 >/dev/null &&
	 test_exit_code 2 perun check profiles ../base.perf ../target.perf) 2>err &&
	test_grep "degradation.@name@_threshold must be above 0, not 0" err
'

test_done
