#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The test suite under AddressSanitizer and UBSan: perun, libperun, the
# plugins and the test programs built with --enable-sanitizers in
# ./build-asan (beside ./build), then make check.  Any sanitizer report
# fails the run, even one of a command whose failure a test expected or
# whose output it threw away.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build-asan
logs=$dir/sanitizer-logs
# Reports go to files as well as failing the process: abort_on_error makes
# an expected-to-fail command die by a signal, which test_must_fail rejects;
# log_path keeps the reports of output a test discards.
# Leaks are only logged (LSAN_OPTIONS exitcode=0), so that a test's exit
# codes stay its own; the log still fails the run.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:log_exe_name=1:log_path=$logs/asan
export LSAN_OPTIONS=exitcode=0:print_suppressions=0:suppressions=$top/scripts/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1:log_path=$logs/ubsan
# Tests that cannot run under the sanitizers skip (test_skip_sanitized).
export PERUN_TEST_SANITIZED=1
# World-writable: tests run some commands as nobody, whose reports
# would otherwise go to a stderr the test may discard.
rm -rf "$logs" && mkdir -p "$logs" && chmod 1777 "$logs"
PERUN_BUILD_DIR=$dir "$top/scripts/build.sh" --enable-sanitizers
status=0
"$top/scripts/make-check.sh" "$dir" || status=$?
# LeakSanitizer's own tracer sometimes dies of SIGSEGV while it stops a
# process's threads at exit, on a loaded machine (gcc 12's runtime; known
# upstream, google/sanitizers#1353): no leak report, but the process dies
# and its test fails.  When every report is that crash, the failed test
# files run once more, with fresh logs; a second crash or any other
# report still fails the run.
tracer_crash() { grep -q "^Tracer caught signal" "$1" && grep -q "LeakSanitizer has encountered a fatal error" "$1"; }
if [ $status -ne 0 ] && [ -n "$(ls -A "$logs")" ]; then
	crashes=yes
	for f in "$logs"/*; do tracer_crash "$f" || crashes=; done
	if [ -n "$crashes" ]; then
		failed=
		for trs in $(cd "$dir" && grep -l "^:test-result: \(FAIL\|ERROR\)" $(find . -name '*.trs')); do
			test=${trs#./}
			test=${test%.trs}
			[ -f "$top/$test.sh" ] && test=$test.sh
			failed="$failed $test"
		done
		echo "LeakSanitizer's tracer crashed (not a leak report) in:${failed:- no test file}"
		for f in "$logs"/*; do echo "== $f"; cat "$f"; done
		if [ -n "$failed" ]; then
			echo "those test files once more:"
			rm -f "$logs"/*
			status=0
			make -C "$dir" check TESTS="$failed" || status=$?
		fi
	fi
fi
if [ -n "$(ls -A "$logs")" ]; then
	echo "sanitizer reports:"
	for f in "$logs"/*; do echo "== $f"; head -60 "$f"; done
	status=1
fi
exit $status
