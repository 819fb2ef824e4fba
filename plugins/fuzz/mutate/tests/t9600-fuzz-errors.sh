#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun fuzz: bad input gets one clear error before any fuzzing; hangs and
# crashes land in hangs/ and faults/; Ctrl-C stops with the summary.
. "$srcdir/tests/test-lib.sh"

progs="$TEST_SRCDIR/plugins/fuzz/mutate/tests/progs"

test_expect_success 'setup: a program, seeds and rules' '
	cc -O1 -o trap "$progs/trap.c" &&
	mkdir seeds empty &&
	printf "a line with some words\nanother one here\n" >seeds/s.txt &&
	: >empty/nothing.txt &&
	printf "\"a+\": aaaa\n" >rules.yml
'

# fuzz_fails <message> <fuzz options>: exit 2, the one line, nothing made.
fuzz_fails() {
	msg=$1
	shift
	test_exit_code 2 perun fuzz "$@" -o out --skip-coverage-testing --seed 1 2>err &&
	test_grep "$msg" err &&
	test "$(wc -l <err)" -eq 1 &&
	test ! -e out/logs/executions.log
}

test_expect_success 'a seed directory with no usable file' '
	fuzz_fails "no usable input sample in .empty." --cmd ./trap -w empty
'

test_expect_success 'a missing seed' '
	fuzz_fails "cannot read input sample .nowhere." --cmd ./trap -w nowhere
'

test_expect_success 'a seed filter matching nothing' '
	fuzz_fails "matching --workloads-filter" --cmd ./trap -w seeds --workloads-filter "\.xml$"
'

test_expect_success 'a command that does not exist' '
	fuzz_fails "command .no-such-program. not found" --cmd no-such-program -w seeds &&
	fuzz_fails "command .\./nothing-here. not found" --cmd ./nothing-here -w seeds
'

test_expect_success 'a program without gcov data when coverage is asked' '
	test_exit_code 2 perun fuzz --cmd ./trap -w seeds -o out -g . 2>err &&
	test_grep "no gcov data (.gcno) in" err &&
	test ! -e out
'

test_expect_success 'an unwritable output directory' '
	: >afile &&
	test_exit_code 2 perun fuzz --cmd ./trap -w seeds -o afile/out \
		--skip-coverage-testing 2>err &&
	test_grep "cannot create directory .afile/out." err
'

test_expect_success 'malformed regex rules' '
	printf "pattern: [unclosed\n  bad: indent\n" >bad.yml &&
	fuzz_fails "regex rules .bad.yml." --cmd ./trap -w seeds -r bad.yml &&
	printf "\"(x\": y\n" >bad2.yml &&
	fuzz_fails "pattern .(x.:" --cmd ./trap -w seeds -r bad2.yml &&
	printf -- "- a\n- b\n" >bad3.yml &&
	fuzz_fails "not a mapping" --cmd ./trap -w seeds -r bad3.yml
'

test_expect_success 'an unknown fuzzer or collector' '
	test_exit_code 2 perun fuzz --fuzzer nope --cmd ./trap -w seeds -o out 2>err &&
	test_grep "no fuzz plugin named .nope." err &&
	test_exit_code 2 perun fuzz -c nope --cmd ./trap -w seeds -o out 2>err &&
	test_grep "no collect plugin named .nope." err
'

test_expect_success 'in an instance: --minor-version is resolved by its VCS' '
	mkdir inst && (
		cd inst && perun init --vcs-type svs >/dev/null &&
		test_exit_code 2 perun fuzz --cmd ../trap -w ../seeds -o out -m no-such-rev \
			--skip-coverage-testing --max-executions 5 2>err &&
		test "$(wc -l <err)" -eq 1 && test_grep "no-such-rev" err &&
		test ! -e out &&
		perun fuzz --cmd ../trap -w ../seeds -o out --skip-coverage-testing --seed 1 \
			--max-executions 5 --collector-params "--repeat 1 --warmup 0" >out.txt &&
		test_grep "^perun fuzz: done" out.txt
	)
'

test_expect_success 'hangs land in hangs/, crashes in faults/' '
	perun fuzz --cmd ./trap -w seeds -o found --skip-coverage-testing --seed 7 \
		--hang-timeout 0.3 --max-executions 60 --mutations-per-rule unitary \
		--collector-params "--repeat 1 --warmup 0" >out.txt &&
	ls found/hangs >hangs && ls found/faults >faults &&
	test -s hangs && test -s faults &&
	grep -E "^  hangs +$(wc -l <hangs)$" out.txt &&
	grep -E "^  faults +$(wc -l <faults)$" out.txt &&
	for f in found/faults/*; do
		./trap "$f"; rc=$?; test $rc -gt 128 || return 1
	done &&
	for f in found/hangs/*; do
		timeout 1 ./trap "$f"; rc=$?; test $rc -eq 124 || return 1
	done
'

if command -v script >/dev/null; then
	test_expect_success 'on a terminal: an AFL-like status, quiet otherwise' '
		script -qec "perun fuzz --cmd ./trap -w seeds -o tty --skip-coverage-testing \
			--seed 1 --max-executions 30 --hang-timeout 0.3 \
			--collector-params \"--repeat 1 --warmup 0\"" /dev/null >tty.txt &&
		test_grep "exec speed: " tty.txt &&
		test_grep "hangs: [0-9]* *faults: [0-9]*" tty.txt &&
		test_grep "degradations: [0-9]" tty.txt &&
		perun fuzz --cmd ./trap -w seeds -o notty --skip-coverage-testing --seed 1 \
			--max-executions 30 --hang-timeout 0.3 2>notty.err >/dev/null &&
		test_must_fail grep "exec speed" notty.err
	'
fi

test_expect_success 'SIGINT stops the run cleanly with the summary' '
	cc -O1 -o slow "$progs/longline.c" &&
	{ perun fuzz --cmd ./slow -w seeds -o stopped --skip-coverage-testing --seed 3 \
		--collector-params "--repeat 1 --warmup 0" >stop.txt 2>stop.err & } &&
	pid=$! &&
	# the handler is in once the output directory is; then let it fuzz
	n=0 && while test ! -e stopped/logs/executions.log && test $n -lt 600
	do sleep 0.1; n=$((n + 1)); done &&
	sleep 2 && kill -INT $pid &&
	wait $pid; rc=$? &&
	test $rc -eq 130 &&
	test_grep "^perun fuzz: interrupted" stop.txt &&
	test_grep "^rule efficiency:" stop.txt &&
	test -s stopped/logs/results_data.txt &&
	test ! -e stopped/.work
'

test_done
