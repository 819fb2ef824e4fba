#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Folded stacks of a trace profile with fractional times, read back by
# speedscope's own importer (the npm package speedscope, run in Node.js by
# tests/helpers/speedscope-read.mjs): every line is taken, the weights are
# integers in the profile's unit and the total is the rounded exact total.
. "$srcdir/tests/test-lib.sh"

. "$TEST_SRCDIR/tests/helpers/speedscope-lib.sh"
speedscope_require

# main [0, 100.4) calls f three times and g once; g runs again on its own
# for 9561.345000000005 us: self times 9561.345, 49.45, 20.6 and 30.35.
cat >frac.perf <<'EOF'
{"header": {"type": "mixed", "cmd": "prog", "args": "", "workload": "",
            "units": {"mixed(time delta)": "us"}},
 "collector_info": {"name": "trace", "params": {}}, "postprocessors": [], "models": [],
 "resources": {"main#0": {"amount": [100.4], "timestamp": [0], "tid": [1]},
               "f#0": {"amount": [20.3, 0.2, 0.1], "timestamp": [10, 75, 80], "tid": [1, 1, 1]},
               "g#0": {"amount": [30.35, 9561.345000000005], "timestamp": [40, 200],
                       "tid": [1, 1]}},
 "resource_type_map": {"main#0": {"uid": "main", "type": "mixed", "subtype": "time delta"},
                       "f#0": {"uid": "f", "type": "mixed", "subtype": "time delta"},
                       "g#0": {"uid": "g", "type": "mixed", "subtype": "time delta"}}}
EOF

test_expect_success 'the weights are integers, each within 1 of its exact time' '
	perun show frac.perf folded -o frac.folded &&
	cat >expect <<-\EOF &&
	g 9561
	main 50
	main;f 20
	main;g 31
	EOF
	test_cmp expect frac.folded
'

test_expect_success 'speedscope reads every line; its total is the rounded 9661.745 us' '
	node "$READ" "$bundle" frac.folded >read &&
	{ echo "format Importing as collapsed stack format" && cat expect && echo "total 9662"; } >want &&
	test_cmp want read
'

test_expect_success 'integer weights (kperf samples) come through unchanged' '
	cat >k.perf <<-\EOF &&
	{"header": {"type": "time", "cmd": "ls", "workload": "", "units": {"time": "sample"}},
	 "collector_info": {"name": "kperf", "params": {}}, "postprocessors": [],
	 "resources": {"leaf#0": {"amount": [6, 7]}, "mid#0": {"amount": [2]}},
	 "resource_type_map": {
	  "leaf#0": {"uid": "leaf", "trace": [{"func": "root"}, {"func": "mid"}]},
	  "mid#0": {"uid": "mid", "trace": [{"func": "root"}]}}}
	EOF
	perun show k.perf folded >k.folded &&
	printf "%s\\n" "root;mid 2" "root;mid;leaf 13" >expect &&
	test_cmp expect k.folded &&
	node "$READ" "$bundle" k.folded >read &&
	{ echo "format Importing as collapsed stack format" && cat expect && echo "total 15"; } >want &&
	test_cmp want read
'

test_done
