#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The @name@ fuzzer through perun fuzz: rounds that double the seed, each
# profiled by the time collector and judged against the seed, and the
# errors it gives before fuzzing.
. "$srcdir/tests/test-lib.sh"

perun plugins inspect time >/dev/null 2>&1 || test_skip_all "the time collector is not built"

test_expect_success 'perun plugins inspect shows a fuzz plugin' '
	perun plugins inspect @name@ >out &&
	test_grep "^kind: *fuzz$" out
'

test_expect_success 'setup: a command that reads its input, and a seed' '
	printf "#!/bin/sh\nexec cat \"\$1\" >/dev/null\n" >prog &&
	chmod +x prog &&
	printf "0123456789" >seed
'

test_expect_success 'three rounds: the seed twice, four and eight times over' '
	perun fuzz --fuzzer @name@ --cmd ./prog --input-sample seed --output-dir rounds \
		--exec-limit 3 >stdout 2>err &&
	for round in 1 2 3; do
		test_grep "^round $round: rounds/@name@-$round.in, $((10 << round)) bytes, [0-9]* of [1-9][0-9]* verdicts" \
			stdout || return 1
	done &&
	test $(wc -c <rounds/@name@-1.in) -eq 20 &&
	test $(wc -c <rounds/@name@-3.in) -eq 80 &&
	test "$(cat rounds/@name@-1.in)" = 01234567890123456789
'

test_expect_success '--max-size stops the growth' '
	perun fuzz --fuzzer @name@ --cmd ./prog --input-sample seed --output-dir small \
		--exec-limit 9 --max-size 50 >stdout &&
	test $(grep -c "^round " stdout) -eq 2
'

test_expect_success 'a seed that cannot be read: one line, nothing fuzzed' '
	test_must_fail perun fuzz --fuzzer @name@ --cmd ./prog --input-sample no-such-seed \
		--output-dir none --exec-limit 1 >stdout 2>err &&
	test $(wc -l <err) -eq 1 &&
	test_grep "^perun: .*no-such-seed" err &&
	test_must_fail grep "^round" stdout
'

test_done
