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
if [ -n "$(ls -A "$logs")" ]; then
	echo "sanitizer reports:"
	for f in "$logs"/*; do echo "== $f"; head -60 "$f"; done
	status=1
fi
exit $status
