#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun collect trace -e instrument: programs built with
# -finstrument-functions, run with the preloaded runtime: call counts,
# durations, exclusive times, threads, forks, a crash and the timeout.
. "$srcdir/tests/test-lib.sh"
. "$srcdir/plugins/collect/trace/tests/trace-lib.sh"
trace_require_plugin

test_expect_success 'setup: instrumented programs and a perun instance' '
	trace_project &&
	for p in calls threads forker forever crash klass reexec many; do
		build_prog $p -finstrument-functions || exit 1
	done &&
	build_prog calls && mv calls plain-calls && build_prog calls -finstrument-functions
'

test_expect_success 'userspace strategy: exact call counts' '
	cd proj &&
	perun collect -c ./calls trace -e instrument -s userspace >out 2>err &&
	test_grep "^Collected profile" out &&
	p=$(newest_profile) &&
	trace_check_calls "$p" &&
	test "$(query "$p" orders work)" = "0 1 2 3 4 5 6 7 8 9"
'

test_expect_success 'durations and exclusive times' '
	cd proj &&
	p=$(newest_profile) &&
	at_least "$(query "$p" min nap)" 30000 &&
	test "$(query "$p" exclusive main)" = ok
'

test_expect_success 'a long run: 300,000 calls read as their pages are given back' '
	cd proj &&
	perun collect -c ./many -a 300000 trace -e instrument -f leaf >/dev/null 2>&1 &&
	p=$(newest_profile) &&
	test $(query "$p" calls leaf) = 300000 &&
	query "$p" orders leaf | tr " " "\n" | tail -n 1 >actual &&
	echo 299999 >expect && test_cmp expect actual
'

test_expect_success 'rules select functions and sample them' '
	cd proj &&
	perun collect -c ./calls trace -e instrument -f leaf#4 -f nap >/dev/null 2>&1 &&
	p=$(newest_profile) &&
	printf "!ProcessResource!\nleaf\nnap\n" >expect &&
	query "$p" uids >actual && test_cmp expect actual &&
	test $(query "$p" calls leaf) = 250 &&
	query "$p" orders leaf | cut -d" " -f1-3 >actual &&
	echo "0 4 8" >expect && test_cmp expect actual
'

test_expect_success 'threads: four threads, their records and calls' '
	cd proj &&
	perun collect -c ./threads trace -e instrument -s userspace >/dev/null 2>&1 &&
	trace_check_threads $(newest_profile)
'

test_expect_success 'fork: the child writes its own records' '
	cd proj &&
	perun collect -c ./forker trace -e instrument -s userspace >/dev/null 2>&1 &&
	p=$(newest_profile) &&
	trace_check_fork "$p" &&
	test $(query "$p" calls "!ProcessResource!") = 2
'

test_expect_success 'crash: the records written before the signal survive' '
	cd proj &&
	perun collect -c ./crash trace -e instrument -s userspace >out 2>err &&
	trace_check_crash $(newest_profile)
'

test_expect_success 'timeout: stopped, what ran is recorded' '
	cd proj &&
	perun collect -c ./forever trace -e instrument -s userspace -t 0.5 >out 2>err &&
	trace_check_timeout $(newest_profile)
'

test_expect_success 'C++: demangled uids' '
	cd proj &&
	perun collect -c ./klass trace -e instrument -s userspace >/dev/null 2>&1 &&
	test $(query $(newest_profile) calls "shapes::Square::area(int) const") = 6
'

test_expect_success 'a binary without -finstrument-functions is refused' '
	cd proj &&
	store_snapshot >before &&
	test_exit_code 2 perun collect -c ./plain-calls trace -e instrument -s userspace \
		>out 2>err &&
	test_grep "was not built with -finstrument-functions" err &&
	store_snapshot >after && test_cmp before after
'

test_expect_success 'a missing runtime is named' '
	cd proj &&
	PERUN_TRACE_RUNTIME=/nonexistent/libperun-instrument.so test_exit_code 3 \
		perun collect -c ./calls trace -e instrument -s userspace >out 2>err &&
	test_grep "cannot find the instrument runtime .*/nonexistent/libperun-instrument.so" err
'

test_expect_success '--watchdog logs, --zip-temps packs the temporary files' '
	cd proj &&
	perun collect -c ./calls trace -e instrument -f work -w -z >out 2>err &&
	test_grep "temporary files packed into .perun/logs/trace-.*\.tar\.gz" err &&
	tar=$(ls .perun/logs/trace-*.tar.gz) &&
	tar -tzf "$tar" >list &&
	test_grep "raw.events" list && test_grep "watchdog.log" list &&
	dir=$(sed -n "s/^perun: info: trace: temporary files kept in //p" err) &&
	test_grep "events -> .* resources" "$dir/watchdog.log"
'

test_expect_success 'SIGINT stops the program and stores nothing' '
	cd proj && rm -rf .perun/tmp/* && store_snapshot >before || exit 1
	perun collect -c ./forever trace -e instrument -s userspace >out 2>err &
	pid=$! &&
	n=0 && while ! ls .perun/tmp/trace-*/t.* >/dev/null 2>&1 && [ $n -lt 300 ]; do
		sleep 0.1; n=$((n + 1))
	done &&
	kill -INT $pid &&
	{ wait $pid; rc=$?; } &&
	test $rc -eq 130 &&
	test_grep "interrupted while tracing" err &&
	! pgrep -f "$PWD/forever" &&
	store_snapshot >after && test_cmp before after
'

test_expect_success '--diagnostics packs log, output and raw data; --quiet is quiet' '
	cd proj &&
	rm -f .perun/logs/trace-*.tar.gz &&
	perun collect -c ./calls trace -e instrument -f work -i >out 2>err &&
	tar -tzf $(ls .perun/logs/trace-*.tar.gz) >list &&
	for f in raw.events raw.txt watchdog.log output.txt probes.txt; do
		test_grep "/$f$" list || return 1
	done &&
	perun collect -c ./forever trace -e instrument -f tick -t 0.3 -o capture -q >out 2>err &&
	test_cmp /dev/null err &&
	test $(query $(newest_profile) calls tick) = 5
'

test_expect_success '--libs: an instrumented shared library' '
	cd proj &&
	trace_build_uselib -finstrument-functions &&
	perun collect -c ./uselib trace -e instrument -s userspace -l "$PWD/libtwice.so" \
		>/dev/null 2>&1 &&
	p=$(newest_profile) &&
	test $(query "$p" calls twice) = 9 &&
	test "$(query "$p" field twice location)" = libtwice.so &&
	test $(query "$p" calls main) = 1 &&
	test "$(query "$p" exclusive main)" = ok
'

test_expect_success 'exec: calls of the old image end at the exec' '
	cd proj &&
	perun collect -c ./reexec trace -e instrument -s userspace >/dev/null 2>&1 &&
	trace_check_reexec $(newest_profile)
'

test_done
