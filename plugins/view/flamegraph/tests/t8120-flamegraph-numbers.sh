#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Numbers on the flame graph are for people: totals grouped by thousands
# with at most two decimals, never float noise such as 26,112,007.17599995.
# A self-made trace profile; no shared data.
. "$srcdir/tests/test-lib.sh"

# Two calls whose times sum to a float with a long tail.
cat >trace.perf <<'EOF_PROFILE'
{"header": {"type": "mixed", "cmd": "prog", "args": "", "workload": "",
            "units": {"mixed(time delta)": "us"}},
 "collector_info": {"name": "trace", "params": {}}, "postprocessors": [], "models": [],
 "resources": {"main#0": {"amount": [26112000.1, 7.07599995], "timestamp": [0, 30000000],
                          "tid": [1, 1], "exclusive": [26112000.1, 7.07599995]}},
 "resource_type_map": {"main#0": {"uid": "main", "type": "mixed", "subtype": "time delta",
                                  "location": "prog"}}}
EOF_PROFILE

test_expect_success 'the subtitle total is rounded to two decimals' '
	perun show trace.perf flamegraph -o flame.svg >out &&
	test_grep "26,112,007.18 us in total" flame.svg &&
	! grep -q "26,112,007.1759" flame.svg
'

test_expect_success 'frame tooltips are rounded as well; the total for scripts stays exact' '
	test_grep "<title>main (26,112,007.18 us, 100.00%)</title>" flame.svg &&
	test_grep "fg:total=\"26112007.17599995\"" flame.svg
'

test_done
