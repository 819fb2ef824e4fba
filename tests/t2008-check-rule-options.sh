#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A strategy rule may give its method options of its own ("options:",
# overriding degradation.<option>) and judge one subtype only
# ("subtype:"); the method's plain rule then leaves that subtype to it.
# cpd over a history of self-made time profiles where real and
# sys triple at v4.  No shared data.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null || test_skip_all "jq is not installed"
test -e "$PERUN_PLUGIN_PATH/check/cpd.so" || test_skip_all "cpd is not built (needs GSL)"

# prof <real> <sys> <origin>: five runs of prog, real and sys apart.
prof() {
	cat <<-EOF
	{"header": {"type": "time", "cmd": "prog", "args": "", "workload": "in",
	            "units": {"time": "s"}},
	 "collector_info": {"name": "time", "params": {}}, "postprocessors": [],
	 "models": [], "origin": "$3",
	 "resources": {"prog#0": {"amount": [$1.00, $1.01, $1.02, $1.01, $1.00]},
	               "prog#1": {"amount": [$2, ${2}1, ${2}2, ${2}1, $2]}},
	 "resource_type_map": {"prog#0": {"uid": "prog", "type": "time", "subtype": "real"},
	                       "prog#1": {"uid": "prog", "type": "time", "subtype": "sys"}}}
	EOF
}

test_expect_success 'setup: eight versions, real and sys 3x from v4' '
	git init -q proj && (cd proj && perun init >/dev/null &&
	for v in 1 2 3 4 5 6 7 8; do
		git commit -q --allow-empty -m v$v &&
		if [ $v -lt 4 ]; then r=1 s=0.10; else r=3 s=0.30; fi &&
		prof $r $s "$(git rev-parse HEAD)" >.perun/jobs/p$v.perf &&
		perun add .perun/jobs/p$v.perf >/dev/null || return 1
	done)
'

found() {
	perun check all --format json >out.json 2>/dev/null &&
	jq -r "[.changes[] | select(.method == \"cpd\") | .location + \"/\" + .type] | sort | join(\" \")" out.json
}

test_expect_success 'cpd with its defaults finds both' '
	(cd proj && perun config --local set degradation.strategies "[{method: cpd}, {method: none}]" &&
	 echo "prog/real prog/sys" >expect && found >actual && test_cmp expect actual)
'

test_expect_success 'a rule'"'"'s options override the configuration' '
	(cd proj && perun config --local set degradation.min_change 5 &&
	 echo >expect && found >actual && test_cmp expect actual &&
	 perun config --local set degradation.strategies "[{method: cpd, options: {min_change: 0.1}}, {method: none}]" &&
	 echo "prog/real prog/sys" >expect && found >actual && test_cmp expect actual &&
	 perun config --local set degradation.min_change 0.1)
'

test_expect_success 'a subtype rule judges its subtype; the plain rule the rest' '
	(cd proj &&
	 perun config --local set degradation.strategies "[{method: cpd, subtype: sys, options: {min-change: 5}}, {method: cpd}, {method: none}]" &&
	 echo "prog/real" >expect && found >actual && test_cmp expect actual &&
	 perun config --local set degradation.strategies "[{method: cpd, subtype: real, options: {min-change: 5}}, {method: cpd}, {method: none}]" &&
	 echo "prog/sys" >expect && found >actual && test_cmp expect actual)
'

test_expect_success 'check head gates on a history method: the change is seen a version late' '
	(cd proj && perun config --local set degradation.strategies "[{method: cpd}, {method: none}]" &&
	 find .perun -name "*.changes" -delete &&
	 test_exit_code 0 perun check head --fail-on degradation HEAD~5 >out &&
	 test_exit_code 1 perun check head --fail-on degradation HEAD~3 >out &&
	 test_grep "since $(git rev-parse --short=7 HEAD~4)" out &&
	 test_exit_code 0 perun check head --fail-on degradation >out)
'

test_expect_success '... and once: what the check of its version found is not gated again' '
	(cd proj && find .perun -name "*.changes" -delete &&
	 perun config --local set degradation.strategies "[{method: aat}, {method: cpd}, {method: none}]" &&
	 test_exit_code 1 perun check head --fail-on degradation HEAD~4 >out &&
	 test_grep "^at prog:real:$" out &&
	 test_exit_code 0 perun check head --fail-on degradation HEAD~3 >out)
'

test_expect_success 'a bad history length is one error naming it, the store unchanged' '
	(cd proj && perun config --local set degradation.strategies "[{method: cpd}, {method: none}]" &&
	 find .perun -name "*.changes" | sort | xargs -r sha1sum >before &&
	 for bad in abc 1 2x; do
		perun config --local set degradation.history_length "$bad" &&
		test_exit_code 2 perun check head 2>err >/dev/null &&
		echo "perun: degradation.history_length: not a whole number of at least 2" >expect &&
		test_cmp expect err || return 1
	 done &&
	 perun config --local set degradation.history_length 20 &&
	 find .perun -name "*.changes" | sort | xargs -r sha1sum >after && test_cmp before after)
'

test_expect_success 'an option the method lacks is one error naming it' '
	(cd proj &&
	 perun config --local set degradation.strategies "[{method: cpd, options: {min_chnage: 5}}]" &&
	 test_exit_code 2 perun check all 2>err >/dev/null &&
	 echo "perun: degradation.strategies: cpd has no option '"'"'min_chnage'"'"'" >expect &&
	 test_cmp expect err &&
	 perun config --local set degradation.strategies "[{method: cpd, subtype: [a]}]" &&
	 test_exit_code 2 perun check all 2>err >/dev/null &&
	 test_grep "the subtype of cpd is no name" err)
'

test_done
