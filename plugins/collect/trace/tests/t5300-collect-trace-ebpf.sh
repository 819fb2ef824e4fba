#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun collect trace -e ebpf: real uprobes, uretprobes and USDT probes on
# small programs built here: exact call counts, lower bounds of durations,
# exclusive times, threads, forks, a crash and the timeout.
. "$srcdir/tests/test-lib.sh"
. "$srcdir/plugins/collect/trace/tests/trace-lib.sh"
trace_require_bpf

test_expect_success 'setup: programs and a perun instance' '
	trace_project &&
	for p in calls threads forker forever crash usdt klass reexec; do build_prog $p || exit 1; done
'

test_expect_success 'userspace strategy: exact call counts of every function' '
	cd proj &&
	perun collect -c ./calls trace -s userspace >out 2>err &&
	test_grep "^Collected profile .*/\.perun/jobs/trace-.*\.perf$" out &&
	p=$(newest_profile) &&
	trace_check_calls "$p" &&
	test $(query "$p" calls main) = 1 &&
	test "$(query "$p" field leaf location)" = calls &&
	test "$(query "$p" field leaf type)" = mixed &&
	test "$(query "$p" field leaf subtype)" = "time delta" &&
	test_grep "\"mixed(time delta)\": \"us\"" "$p"
'

test_expect_success 'a function that sleeps 30 ms lasts at least 30000 us' '
	cd proj &&
	p=$(newest_profile) &&
	at_least "$(query "$p" min nap)" 30000
'

test_expect_success 'exclusive times add up to the inclusive ones' '
	cd proj &&
	test "$(query $(newest_profile) exclusive main)" = ok
'

test_expect_success 'call orders count the calls of each function' '
	cd proj &&
	test "$(query $(newest_profile) orders work)" = "0 1 2 3 4 5 6 7 8 9"
'

test_expect_success 'sampling: every 10th call in the kernel, call-order counts all' '
	cd proj &&
	perun collect -c ./calls trace -s custom -f leaf#10 -f work >/dev/null 2>&1 &&
	p=$(newest_profile) &&
	test $(query "$p" calls leaf) = 100 &&
	test $(query "$p" calls work) = 10 &&
	query "$p" orders leaf | cut -d" " -f1-3 >actual &&
	echo "0 10 20" >expect && test_cmp expect actual &&
	test "$(query "$p" exclusive work)" = ok
'

test_expect_success 'u_sampled samples 20 by default, --global-sampling overrides' '
	cd proj &&
	perun collect -c ./calls trace -s u_sampled >/dev/null 2>&1 &&
	test $(query $(newest_profile) calls leaf) = 50 &&
	perun collect -c ./calls trace -s u_sampled -g 500 >/dev/null 2>&1 &&
	test $(query $(newest_profile) calls leaf) = 2
'

test_expect_success 'threads: each thread its own resources and thread record' '
	cd proj &&
	perun collect -c ./threads trace -s userspace >/dev/null 2>&1 &&
	p=$(newest_profile) &&
	trace_check_threads "$p" &&
	test $(query "$p" calls worker) = 4
'

test_expect_success 'fork: the child process is followed' '
	cd proj &&
	perun collect -c ./forker trace -s userspace >/dev/null 2>&1 &&
	p=$(newest_profile) &&
	trace_check_fork "$p" &&
	test $(query "$p" calls main) = 1 &&
	query "$p" processes >procs &&
	test $(wc -l <procs) = 2 &&
	awk "NR == FNR { pid[\$1] = 1; next } (\$2 in pid) { n++ } END { exit n != 1 }" \
		procs procs
'

test_expect_success 'timeout: the program is stopped, what ran is recorded' '
	cd proj &&
	perun collect -c ./forever trace -s userspace -t 0.5 >out 2>err &&
	trace_check_timeout $(newest_profile)
'

test_expect_success 'crash: calls cut short by the signal end with the process' '
	cd proj &&
	perun collect -c ./crash trace -s userspace >out 2>err &&
	trace_check_crash $(newest_profile)
'

test_expect_success 'usdt: suffix pairs, a rule pair and a single probe' '
	cd proj &&
	perun collect -c ./usdt trace -s custom -u region -u region_end \
		-u "phase_a#phase_z" -u tick >/dev/null 2>&1 &&
	p=$(newest_profile) &&
	test $(query "$p" calls region#region_end) = 3 &&
	at_least "$(query "$p" min region#region_end)" 10000 &&
	test $(query "$p" calls phase_a#phase_z) = 2 &&
	at_least "$(query "$p" min phase_a#phase_z)" 5000 &&
	test $(query "$p" calls tick#tick) = 3
'

test_expect_success 'usdt: the userspace strategy finds and pairs them itself' '
	cd proj &&
	perun collect -c ./usdt trace -s userspace >/dev/null 2>&1 &&
	p=$(newest_profile) &&
	test $(query "$p" calls region#region_end) = 3 &&
	test $(query "$p" calls load_begin#load_end) = 2 &&
	test $(query "$p" calls save_start#save_finish) = 2 &&
	at_least "$(query "$p" min save_start#save_finish)" 3000 &&
	test $(query "$p" calls tick#tick) = 3 &&
	test $(query "$p" calls main) = 1 &&
	perun collect -c ./usdt trace -s userspace --no-usdt >/dev/null 2>&1 &&
	test $(query $(newest_profile) calls region#region_end) = 0
'

test_expect_success 'C++: uids are demangled, --func takes the plain name' '
	cd proj &&
	perun collect -c ./klass trace -f "shapes::Square::area" >/dev/null 2>&1 &&
	p=$(newest_profile) &&
	test "$(query "$p" calls "shapes::Square::area(int) const")" = 6
'

test_expect_success '--libs: functions of a shared library' '
	cd proj &&
	trace_build_uselib &&
	perun collect -c ./uselib trace -l "$PWD/libtwice.so" -f libtwice.so#twice >/dev/null 2>&1 &&
	p=$(newest_profile) &&
	test $(query "$p" calls twice) = 9 &&
	test "$(query "$p" field twice location)" = libtwice.so
'

test_expect_success '--binary: the command is a script running the binary' '
	cd proj &&
	printf "#!/bin/sh\nexec %s\n" "$PWD/calls" >run.sh && chmod +x run.sh &&
	perun collect -c ./run.sh trace -b ./calls -f work >/dev/null 2>&1 &&
	test $(query $(newest_profile) calls work) = 10
'

test_expect_success '--keep-temps and --verbose-trace keep the raw data and probes' '
	cd proj &&
	perun collect -c ./calls trace -f work -k -vt >out 2>err &&
	dir=$(sed -n "s/^perun: info: trace: temporary files kept in //p" err) &&
	test -s "$dir/raw.events" && test -s "$dir/raw.txt" &&
	test_grep "^0 func 1 0x[0-9a-f]* calls work work -1$" "$dir/probes.txt" &&
	test $(grep -c ";work$" "$dir/raw.txt") = 20
'

test_expect_success '--output-handling capture keeps and shows the output, suppress drops it' '
	cd proj &&
	printf "#!/bin/sh\necho hello from the program\nexec %s\n" "$PWD/calls" >hello.sh &&
	chmod +x hello.sh &&
	perun collect -c ./hello.sh trace -b ./calls -f work -o capture -k >out 2>err &&
	dir=$(sed -n "s/^perun: info: trace: temporary files kept in //p" err) &&
	test_grep "hello from the program" "$dir/output.txt" &&
	test_grep "hello from the program" err && ! grep "hello from" out &&
	perun collect -c ./hello.sh trace -b ./calls -f work -o suppress >out 2>err &&
	! grep "hello from" out err &&
	perun collect -c ./hello.sh trace -b ./calls -f work >out 2>err &&
	test_grep "hello from the program" err && ! grep "hello from" out
'

test_expect_success '--dynamic: a location timed between its hits' '
	cd proj &&
	perun collect -c ./calls trace -d "work" -d "calls#leaf+0" >/dev/null 2>&1 &&
	p=$(newest_profile) &&
	test $(query "$p" calls work#work) = 9 &&
	test $(query "$p" calls leaf+0#leaf+0) = 999
'

test_expect_success 'usdt: a sampled explicit pair' '
	cd proj &&
	perun collect -c ./usdt trace -u "region#region_end#2" >/dev/null 2>&1 &&
	p=$(newest_profile) &&
	test "$(query "$p" orders region#region_end)" = "0 2"
'

test_expect_success 'all strategy: global functions, not the local ones' '
	cd proj &&
	printf "static int hidden(int x) { return x + 1; }\nint shown(int x) { return hidden(x); }\nint main(void) { return shown(1) == 7; }\n" >scope.c &&
	cc -O0 -o scope scope.c &&
	perun collect -c ./scope trace -s all >/dev/null 2>&1 &&
	p=$(newest_profile) &&
	test $(query "$p" calls shown) = 1 && test $(query "$p" calls hidden) = 0 &&
	perun collect -c ./scope trace -s userspace >/dev/null 2>&1 &&
	test $(query $(newest_profile) calls hidden) = 1
'

test_expect_success 'exec: calls of the old image end at the exec' '
	cd proj &&
	perun collect -c ./reexec trace -s userspace >/dev/null 2>&1 &&
	trace_check_reexec $(newest_profile)
'

test_done
