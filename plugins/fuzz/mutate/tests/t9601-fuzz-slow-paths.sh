#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun fuzz finds the slow paths of small C programs built with
# --coverage: with a fixed --seed, an input at least 10x slower than its
# seed within the execution limit.  The slowdowns are algorithmic
# (quadratic in the shape the rules make) and measured by the fuzzer itself.
. "$srcdir/tests/test-lib.sh"

progs="$TEST_SRCDIR/plugins/fuzz/mutate/tests/progs"
command -v gcov >/dev/null || test_skip_all 'no gcov'

# build <prog>: compile it with gcov instrumentation in its own directory
# (gcov data is written next to the object file).
build() {
	mkdir -p "$1" && (cd "$1" && cc -O1 --coverage -o "$1" "$progs/$1.c")
}

# fuzz <prog> <seeds> <out> [options]: run from the program's directory.
fuzz() {
	prog=$1 seeds=$2 out=$3
	shift 3
	(cd "$prog" && perun fuzz --cmd "./$prog" -w "../$seeds" -o "../$out" \
		--collector-params "--repeat 1 --warmup 0" --hang-timeout 3 \
		--exec-limit 20 --interesting-files-limit 3 "$@") >"$out.txt"
}

# slowdown <out>: the worst slowdown the summary reports, as an integer.
slowdown() {
	sed -n "s/^  worst slowdown *\([0-9.]*\)x$/\1/p" "$1.txt" | cut -d. -f1
}

test_expect_success 'setup: three programs and their seeds' '
	build longline && build hashwords && build sortline &&
	mkdir lines words numbers &&
	printf "the quick brown fox jumps over the lazy dog\nhello world\nshort\n" \
		>lines/a.txt &&
	printf "one two three four five six\nseven eight nine ten\n" >words/w.txt &&
	awk "BEGIN { srand(5); for (i = 0; i < 2000; i++) printf \"%d \", int(rand() * 99999); print \"\" }" \
		>numbers/n.txt
'

test_expect_success 'a quadratic path on long lines: >= 10x' '
	fuzz longline lines out-lines --seed 1 --max-executions 60 --max-size 8000 &&
	cat out-lines.txt &&
	test "$(slowdown out-lines)" -ge 10
'

# 60 executions reach four doublings of the words (7x on a fast CPU, where
# starting the program weighs more), 100 a fifth (over 100x).
test_expect_success 'a hash table slowed by repeated words: >= 10x' '
	fuzz hashwords words out-words --seed 1 --max-executions 100 --max-size 40000 &&
	cat out-words.txt &&
	test "$(slowdown out-words)" -ge 10
'

test_expect_success 'a quicksort slowed by sorted input: >= 10x' '
	fuzz sortline numbers out-numbers --seed 1 --max-executions 60 \
		--max-size-ratio 1.2 &&
	cat out-numbers.txt &&
	test "$(slowdown out-numbers)" -ge 10 &&
	grep -E "T\.(6|7)" out-numbers.txt | grep -q "^  n-"
'

test_expect_success 'the findings, their diffs, the logs and the graphs' '
	ls out-lines/*.txt >findings &&
	test -s findings &&
	for f in $(cat findings); do
		n=$(basename "$f") &&
		test -f "out-lines/diffs/$n-diff.html" || return 1
	done &&
	grep -q "<tr class=\"add\">" out-lines/diffs/*-diff.html &&
	test -s out-lines/logs/coverage_plot_data.txt &&
	test -s out-lines/logs/degradation_plot_data.txt &&
	test_cmp out-lines.txt out-lines/logs/results_data.txt &&
	grep -q "<svg" out-lines/graphs/coverage_ts.svg &&
	grep -q "<svg" out-lines/graphs/degradations_ts.svg &&
	grep -c "<svg" out-lines/graphs/fuzz.html >n && test "$(cat n)" -eq 2 &&
	! grep -q "https\?://[a-z]*\.\(cdn\|js\)" out-lines/graphs/fuzz.html &&
	test ! -e out-lines/.work
'

test_expect_success 'the summary: executions, coverage, rules' '
	grep -E "^  executions +60 " out-lines.txt &&
	grep -E "^  max coverage ratio +[0-9]" out-lines.txt &&
	grep -E "^  T\.1 +[0-9]+ +[0-9]+ " out-lines.txt &&
	test "$(grep -c "^  T\.[0-9]" out-lines.txt)" -eq 16
'

# Coverage counts are exact and with --seed no timing verdict steers the
# search, so the whole run repeats (t9602 shows it against random times).
test_expect_success 'the same --seed makes the same mutants' '
	fuzz longline lines again --seed 1 --max-executions 60 --max-size 8000 &&
	cp out-lines/logs/executions.log first &&
	cp again/logs/executions.log second &&
	test "$(wc -l <first)" -ge 3 &&
	test_cmp first second &&
	fuzz longline lines other --seed 2 --max-executions 60 --max-size 8000 &&
	cp other/logs/executions.log third &&
	! cmp -s first third
'

test_expect_success 'the in-process .gcda reader finds it as well' '
	fuzz longline lines gcda --seed 1 --max-executions 60 --max-size 8000 \
		--coverage-reader gcda &&
	test "$(slowdown gcda)" -ge 10 &&
	a=$(head -n 1 gcda/logs/executions.log | cut -d" " -f7) &&
	b=$(head -n 1 out-lines/logs/executions.log | cut -d" " -f7) &&
	test "$a" -gt 0 && test "$b" -gt 0 && test "$a" -ne "$b"
'

test_expect_success '--no-plotting writes no graphs' '
	fuzz longline lines noplot --seed 1 --max-executions 5 --no-plotting &&
	test ! -e noplot/graphs/coverage_ts.svg
'

test_done
