#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The pages of bars and flow show their title once, as the page's
# heading (the one chart under it had a second heading with the same
# text).  A self-made memory profile; no shared data.
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/tests/helpers/browser-lib.sh"
chartjs_require

cat >mem.perf <<'EOF_PROFILE'
{"header": {"type": "memory", "cmd": "p", "args": "", "workload": "", "units": {"memory": "B"}},
 "collector_info": {"name": "memory", "params": {}}, "postprocessors": [], "models": [],
 "resources": {"a#0": {"amount": [4, 8], "snapshot": [0, 1]}},
 "resource_type_map": {"a#0": {"uid": "f", "type": "memory", "subtype": "malloc"}}}
EOF_PROFILE

for view in bars flow; do
	test_expect_success "$view: the title is the page's one heading" "
		perun show mem.perf $view --of amount --graph-title 'Memory of p' >out &&
		grep -o '<h[1-6]>[^<]*</h[1-6]>' $view.html >actual &&
		echo '<h1>Memory of p</h1>' >expect &&
		test_cmp expect actual
	"
done

test_done
