#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun collect ... time: profiles stored, resources, failures that leave the
# store as it was, output handling and interruption, through the real CLI.
. "$srcdir/tests/test-lib.sh"

helper="$TEST_BUILDDIR/plugins/collect/time/tests/time-helper"
q="'"

test_expect_success 'setup: a perun instance in a git project' '
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null)
'

newest_profile() {
	ls -t .perun/jobs/*.perf | head -n 1
}

test_expect_success 'collect -r 5 -w 2 stores a time profile of 5 repetitions' '
	cd proj &&
	perun collect -c "$helper" -a "record $PWD/runs" time -r 5 -w 2 >out 2>err &&
	test_cmp /dev/null err &&
	test_grep "^Collected profile .*/\.perun/jobs/time-.*\.perf$" out &&
	test $(wc -l <runs) = 7 &&
	p=$(newest_profile) &&
	perun show "$p" tableof --format csv -h subtype -h order -h type resources >table &&
	for s in real user sys; do
		for o in 1 2 3 4 5; do echo "$s,$o,time"; done
	done >expect &&
	for o in 1 2 3 4 5; do echo "max-rss,$o,memory"; done >>expect &&
	tail -n +2 table | sort >actual &&
	sort expect >expect.sorted &&
	test_cmp expect.sorted actual &&
	test_grep "\"memory\": \"B\"" "$p" &&
	test_grep "\"time\": \"s\"" "$p"
'

test_expect_success 'the command line is split like a shell, without one' '
	cd proj &&
	rm -f words &&
	perun collect -c "$helper" -a "record $PWD/words out ${q}two words${q}" \
		-w "out \"\$HOME\"" time -r 1 -w 0 >/dev/null &&
	echo "[record] [$PWD/words] [out] [two words] [out] [$HOME]" >expect &&
	test_cmp expect words
'

test_expect_success 'the command output stays off the stdout of perun' '
	cd proj &&
	perun collect -c "$helper" -a "out OUT err ERR" time -r 2 -w 1 >out 2>err &&
	test_cmp /dev/null err &&
	test $(wc -l <out) = 1 &&
	perun collect -c "$helper" -a "out OUT err ERR" time -r 2 -w 1 -o stderr >out 2>err &&
	test $(wc -l <out) = 1 &&
	printf OUTERROUTERROUTERR >expect &&
	test_cmp expect err
'

test_expect_success 'a failing command fails the collection, the store unchanged' '
	cd proj &&
	store_snapshot >before &&
	test_exit_code 3 perun collect -c "$helper" -a "exit 7" time -w 0 >out 2>err &&
	cat >expect <<-EOT &&
	perun: collector ${q}time${q}: command ${q}$helper${q} exited with status 7 in repetition 1
	perun: 1 of 1 collection failed
	EOT
	test_cmp expect err &&
	store_snapshot >after &&
	test_cmp before after
'

test_expect_success 'a command killed by a signal fails the collection' '
	cd proj &&
	test_exit_code 3 perun collect -c "$helper" -a "kill 9" time -w 1 2>err &&
	test_grep "command ${q}$helper${q} was killed by signal 9 (Killed) in warm-up run 1" err
'

test_expect_success 'a missing command is named, the store unchanged' '
	cd proj &&
	store_snapshot >before &&
	test_exit_code 3 perun collect -c perun-no-such-program time 2>err &&
	test_grep "^perun: collector ${q}time${q}: command ${q}perun-no-such-program${q} not found$" err &&
	store_snapshot >after &&
	test_cmp before after
'

test_expect_success 'bad option values are refused, the store unchanged' '
	cd proj &&
	store_snapshot >before &&
	test_must_fail perun collect -c "$helper" time -r 0 2>err &&
	test_grep "option ${q}--repeat${q} must be 1 or more, not 0" err &&
	test_must_fail perun collect -c "$helper" time --warmup -2 2>err &&
	test_grep "option ${q}--warmup${q} must be 0 or more, not -2" err &&
	test_must_fail perun collect -c "$helper" time -r many 2>err &&
	test_grep "option ${q}--repeat${q} takes a whole number, not ${q}many${q}" err &&
	store_snapshot >after &&
	test_cmp before after
'

test_expect_success '--ignore-failure records failing runs with their exit code' '
	cd proj &&
	perun collect -c "$helper" -a "exit 4" time -r 2 -w 0 -i >/dev/null &&
	perun show "$(newest_profile)" tableof --format csv -h exit-code \
		-f subtype max-rss resources >actual &&
	printf "exit-code\n4\n4\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'SIGTERM stops the collection and the command, exits 143' '
	cd proj &&
	store_snapshot >before &&
	rm -f started &&
	{ perun collect -c "$helper" -a "record $PWD/started sleep 60000" time -w 0 \
		>out 2>err & } &&
	pid=$! &&
	n=0 && while ! test -s started && test $n -lt 600; do sleep 0.1; n=$((n + 1)); done &&
	test -s started &&
	kill -TERM $pid &&
	{ wait $pid; rc=$?; } &&
	test "$rc" = 143 &&
	test_grep "interrupted while running ${q}$helper${q} (repetition 1)" err &&
	for f in /proc/[0-9]*/cmdline; do tr "\000" " " <"$f" 2>/dev/null; echo; done >procs &&
	! grep -F "record $PWD/started sleep" procs &&
	store_snapshot >after &&
	test_cmp before after
'

# The amounts of max-rss in the newest profile of the current instance.
newest_max_rss() {
	perun show "$(newest_profile)" tableof --format csv -h amount \
		-f subtype max-rss resources | tail -n +2
}

test_expect_success 'max-rss of a tiny command is not floored by the size of perun' '
	test_make_git_project outer &&
	(cd outer && perun init >/dev/null) &&
	cat >inner.sh <<-EOT &&
	cd "$PWD/proj" && exec perun collect -c "$helper" -a "exit 0" time -r 3 -w 0
	EOT
	inner=$PWD/inner.sh &&
	(cd outer && perun collect -c sh -a "$inner" time -r 1 -w 0 -o stderr >/dev/null) &&
	perun_rss=$(cd outer && newest_max_rss) &&
	(cd proj && newest_max_rss) >tiny &&
	test $(wc -l <tiny) = 3 &&
	echo "perun: $perun_rss, helper: $(tr "\n" " " <tiny)" &&
	test "$perun_rss" -gt 4194304 &&
	while read rss; do
		test "$rss" -gt 0 && test $((rss * 2)) -lt "$perun_rss" || return 1
	done <tiny
'

test_expect_success 'max-rss of a command is what it touched' '
	cd proj &&
	perun collect -c "$helper" -a "touch 16384" time -r 2 -w 0 >/dev/null &&
	newest_max_rss >rss &&
	test $(wc -l <rss) = 2 &&
	while read rss; do
		test "$rss" -ge 16777216 && test "$rss" -lt 25165824 || return 1
	done <rss
'

test_expect_success 'a missing perun-spawn is named, nothing measured otherwise' '
	cd proj &&
	store_snapshot >before &&
	PERUN_SPAWN=$PWD/no-such-dir/perun-spawn test_exit_code 3 \
		perun collect -c "$helper" time >out 2>err &&
	test_grep "^perun: collector ${q}time${q}: cannot find perun-spawn at ${q}$PWD/no-such-dir/perun-spawn${q}$" err &&
	store_snapshot >after &&
	test_cmp before after
'

test_expect_success 'a perun-spawn that dies fails the collection' '
	cd proj &&
	store_snapshot >before &&
	printf "#!/bin/sh\nexit 5\n" >dying-spawn &&
	chmod +x dying-spawn &&
	PERUN_SPAWN=$PWD/dying-spawn test_exit_code 3 \
		perun collect -c "$helper" time -w 0 >out 2>err &&
	test_grep "^perun: collector ${q}time${q}: perun-spawn exited with status 5 in repetition 1$" err &&
	store_snapshot >after &&
	test_cmp before after
'

test_done
