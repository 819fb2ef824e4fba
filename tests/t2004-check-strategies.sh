#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# degradation.strategies across levels: local rules come before the
# shared default (aat), and a rule of method "none" keeps the rules after
# it from the profiles it matches.  Self-made profiles; the frozen check
# plugin of tests/abi, which always finds one change, stands in for a
# second method.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null || test_skip_all "jq is not installed"

test_expect_success 'setup: two time profiles, the second three times slower' '
	mkdir -p more/check &&
	cp "$TEST_BUILDDIR/tests/abi/.libs/check_1_3.so" more/check/ &&
	git init -q proj && (cd proj && perun init >/dev/null &&
	git commit -q --allow-empty -m v1 &&
	test_time_profile 1.0 >../base.perf && test_time_profile 3.0 >../slow.perf)
'

methods() {
	perun --plugin-path "$TRASH_DIRECTORY/more:$PERUN_PLUGIN_PATH" check profiles ../base.perf ../slow.perf --format json >out.json &&
	jq -r "[.verdicts[].method] | unique | join(\" \")" out.json
}

test_expect_success 'the shared default (aat) applies when local.yml has no rules' '
	(cd proj && echo aat >expect && methods >actual && test_cmp expect actual)
'

test_expect_success 'local rules come first, the shared default still applies' '
	(cd proj && perun config --local set degradation.strategies "[{method: check_1_3}]" &&
	 echo "aat check_1_3" >expect && methods >actual && test_cmp expect actual)
'

test_expect_success 'a rule of method none keeps the shared rules away' '
	(cd proj &&
	 perun config --local set degradation.strategies "[{method: check_1_3}, {method: none}]" &&
	 echo check_1_3 >expect && methods >actual && test_cmp expect actual &&
	 perun config --local set degradation.strategies "[{method: none}]" &&
	 echo >expect && methods >actual && test_cmp expect actual)
'

test_expect_success 'none applies only to the profiles its rule matches' '
	(cd proj &&
	 perun config --local set degradation.strategies "[{collector: trace, method: none}]" &&
	 echo aat >expect && methods >actual && test_cmp expect actual)
'

test_done
