#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun fuzz --seed repeats a whole run, not only its first round: the
# program does exact work (so gcov counts are exact) but sleeps a random
# time, so the verdicts of the check method on its profiles change from
# run to run; those verdicts must not steer which mutants come next.
. "$srcdir/tests/test-lib.sh"

progs="$TEST_SRCDIR/plugins/fuzz/mutate/tests/progs"
command -v gcov >/dev/null || test_skip_all 'no gcov'

test_expect_success 'setup: a program with random run time and a seed' '
	mkdir jitter &&
	(cd jitter && cc -O0 --coverage -o jitter "$progs/jitter.c") &&
	mkdir seeds &&
	printf "abc abc abc\nthe quick brown fox jumps over the lazy dog\nxyz\n" >seeds/s.txt
'

# fuzz <out> <seed>: a run of several rounds, each profiled candidate
# judged on a random wall time.
fuzz() {
	(cd jitter && perun fuzz --cmd ./jitter -w ../seeds -o "../$1" --seed "$2" \
		--collector-params "--repeat 1 --warmup 0" --hang-timeout 20 \
		--exec-limit 12 --interesting-files-limit 3 --max-executions 120 \
		--max-size 4000 --coverage-reader gcda --no-plotting) >"$1.txt"
}

test_expect_success 'two runs with the same --seed' '
	fuzz one 7 && fuzz two 7 &&
	cut -d" " -f1 one/logs/executions.log | sort -u >rounds &&
	test "$(wc -l <rounds)" -ge 5 &&
	grep -q " candidate " one/logs/executions.log
'

test_expect_success 'make the same mutants in every round, byte for byte' '
	test "$(wc -l <one/logs/executions.log)" -eq 119 &&
	test_cmp one/logs/executions.log two/logs/executions.log
'

test_expect_success 'and keep the same crashing mutants' '
	ls one/faults >faults-one && ls two/faults >faults-two &&
	test -s faults-one &&
	test_cmp faults-one faults-two &&
	for f in $(cat faults-one); do
		cmp one/faults/$f two/faults/$f || return 1
	done
'

test_expect_success 'another --seed makes other mutants' '
	fuzz three 8 &&
	! cmp -s one/logs/executions.log three/logs/executions.log
'

test_done
