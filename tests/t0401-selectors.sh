#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Profile selectors at their edges, with self-made profiles: tags outside
# an instance, a tracked tag given to add, numbers past any index (no
# overflow into 0@i) and ranges far past the profiles there are.
. "$srcdir/tests/test-lib.sh"

test_expect_success 'setup: an instance with one tracked and two pending profiles' '
	git init -q proj && (cd proj && perun init >/dev/null &&
	git commit -q --allow-empty -m v1 &&
	h=$(git rev-parse HEAD) &&
	test_time_profile 1.0 $h >.perun/jobs/a.perf && perun add .perun/jobs/a.perf >/dev/null &&
	test_time_profile 2.0 $h >.perun/jobs/b.perf &&
	test_time_profile 3.0 $h >.perun/jobs/c.perf)
'

test_expect_success 'outside an instance a tag says that no instance is here' '
	mkdir outside && (cd outside &&
	 for cmd in "show 0@i tableof resources" "show 1@p-2@p tableof resources" \
		"showdiff 0@i 1@i report" "show HEAD^0@i tableof resources"; do
		test_exit_code 2 perun $cmd >out 2>err || exit 1
		tag=$(echo "$cmd" | cut -d" " -f2) &&
		echo "perun: not a perun instance: '"'"'$tag'"'"' names a profile of one (run '"'"'perun init'"'"' first, or name a profile file)" >expect &&
		test_cmp expect err && test ! -s out || exit 1
	 done)
'

test_expect_success 'outside an instance a file named like a tag is a file' '
	(cd outside && test_time_profile 5.0 >0@i &&
	 perun show 0@i tableof resources >out && test_grep "^ *5 .*main$" out)
'

test_expect_success 'add of a tracked tag says it is tracked and changes nothing' '
	(cd proj && store_snapshot >before &&
	 test_exit_code 2 perun add 0@i 2>err &&
	 test_grep "^perun: profile 0@i is already tracked at [0-9a-f]\{12\}$" err &&
	 store_snapshot >after && test_cmp before after)
'

test_expect_success 'a tag number past any index is not found (no overflow)' '
	(cd proj &&
	 for n in 18446744073709551616 9223372036854775808 4294967296 99999999999999999999999; do
		test_exit_code 2 perun show ${n}@i tableof resources >out 2>err || exit 1
		echo "perun: no profile ${n}@i: there is 1 tracked profile" >expect &&
		test_cmp expect err || exit 1
	 done)
'

test_expect_success 'a range far past the profiles warns once and takes what there is' '
	(cd proj && perun rm 0@p-999999@p >out 2>err &&
	 test $(wc -l <err) -eq 1 &&
	 test_grep "^perun: warning: 0@p-999999@p: only 2 pending profiles; the rest of the range is skipped$" err &&
	 ! test -e .perun/jobs/b.perf && ! test -e .perun/jobs/c.perf)
'

test_done
