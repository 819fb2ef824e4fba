#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun collect ... counters: software events of programs whose counts are
# known (at least N page faults for N fresh pages, N context switches for
# N sleeps, task-clock near the CPU time the program measured itself),
# repetitions, inheritance, intervals, --pid and the errors; hardware
# events where this machine has a PMU.  No assertion on wall time.
. "$srcdir/tests/test-lib.sh"

helper="$TEST_BUILDDIR/plugins/collect/counters/tests/counters-helper"

test_expect_success 'setup: a perun instance in a git project' '
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null)
'

newest_profile() {
	ls -t .perun/jobs/*.perf | head -n 1
}

# amounts of uid $1 in the newest profile, one a line
amounts() {
	perun show "$(newest_profile)" tableof --format csv -h uid -h amount resources |
		awk -F, -v uid="$1" '$1 == uid { print $2 }'
}

sum_of() {
	amounts "$1" | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

test_expect_success 'page-faults of a program touching 2000 fresh pages: 2000 or more' '
	cd proj &&
	perun collect -c "$helper" -a "pages 2000" counters -e page-faults >out 2>err &&
	test_cmp /dev/null err &&
	test_grep "^Collected profile .*counters-" out &&
	test_grep "page-faults" out &&
	n=$(amounts page-faults) &&
	test "$n" -ge 2000 &&
	test_grep "\"count\": \"events\"" "$(newest_profile)"
'

test_expect_success 'context-switches of 50 sleeps: 50 or more' '
	cd proj &&
	perun collect -c "$helper" -a "sleeps 50" counters -e context-switches >/dev/null &&
	test "$(amounts context-switches)" -ge 50
'

test_expect_success 'task-clock of a busy loop is near the CPU time it measured' '
	cd proj &&
	perun collect -c "$helper" -a "spin 200 $PWD/cpu" counters -e task-clock >/dev/null &&
	tc=$(amounts task-clock) && cpu=$(cat cpu) &&
	awk -v tc="$tc" -v cpu="$cpu" "BEGIN { d = tc - cpu; if (d < 0) d = -d;
		exit !(d <= 0.2 * cpu + 5e6) }"
'

test_expect_success '--repeat 3: a resource per event and run, mean and spread shown' '
	cd proj &&
	perun collect -c "$helper" -a "pages 500" counters -r 3 -e page-faults,task-clock >out &&
	test_grep "(3 runs)" out &&
	test_grep "page-faults  *( +- " out &&
	test $(amounts page-faults | wc -l) = 3 &&
	test $(amounts task-clock | wc -l) = 3 &&
	perun show "$(newest_profile)" tableof --format csv -h order resources |
		tail -n +2 | sort -u >orders &&
	printf "1\n2\n3\n" >expect && test_cmp expect orders
'

test_expect_success 'the default events are those of perf stat that count here' '
	cd proj &&
	perun collect -c "$helper" -a "pages 10" counters >out &&
	for e in task-clock context-switches cpu-migrations page-faults; do
		test_grep "$e" out || return 1
	done
'

test_expect_success 'children and threads are counted, with --no-inherit not' '
	cd proj &&
	perun collect -c "$helper" -a "children 4 500" counters -e page-faults >/dev/null &&
	test "$(amounts page-faults)" -ge 2000 &&
	perun collect -c "$helper" -a "threads 4 500" counters -e page-faults >/dev/null &&
	test "$(amounts page-faults)" -ge 2000 &&
	perun collect -c "$helper" -a "children 4 500" counters --no-inherit \
		-e page-faults >/dev/null &&
	test "$(amounts page-faults)" -lt 2000
'

test_expect_success '--interval-ms: a row per interval, adding up to the whole' '
	cd proj &&
	perun collect -c "$helper" -a "sleeps 300" counters -I 50 -e context-switches >out &&
	rows=$(amounts context-switches | wc -l) &&
	test "$rows" -ge 5 &&
	test "$(sum_of context-switches)" -ge 300 &&
	perun show "$(newest_profile)" tableof --format csv -h interval -h timestamp resources |
		tail -n +2 >series &&
	test "$(cut -d, -f1 series | sort -n | tail -n 1)" = "$rows"
'

test_expect_success '--interval-ms 100 of a 1 s sleep: about 10 rows' '
	cd proj &&
	perun collect -c sleep -a 1 counters -I 100 -e task-clock >out &&
	test_grep "^ *0\.1[0-9]*  *[0-9]*\.[0-9][0-9] msec task-clock" out &&
	rows=$(amounts task-clock | wc -l) &&
	echo "rows: $rows" &&
	test "$rows" -ge 9 && test "$rows" -le 12 &&
	perun show "$(newest_profile)" tableof --format csv -h timestamp resources |
		tail -n +2 | sort -g | tail -n 1 >last &&
	awk "{ exit !(\$1 >= 0.95 && \$1 < 1.5) }" last
'

test_expect_success 'tracepoints: sched:sched_switch of 50 sleeps (tracefs of its own)' '
	cd proj &&
	tp=/sys/kernel/tracing &&
	if test -d $tp/events/sched; then
		perun collect -c "$helper" -a "sleeps 50" counters -e sched:sched_switch >/dev/null
	elif test "$(id -u)" = 0 && command -v unshare >/dev/null &&
		unshare -m sh -c "mount -t tracefs nodev $tp" 2>/dev/null; then
		unshare -m sh -c "mount -t tracefs nodev $tp &&
			perun collect -c \"$helper\" -a \"sleeps 50\" counters -e sched:sched_switch" \
			>/dev/null
	else
		echo "no tracefs and no way to mount one: skipped"; return 0
	fi &&
	test "$(amounts sched:sched_switch)" -ge 50
'

test_expect_success '--pid counts a running process for --duration' '
	cd proj &&
	{ "$helper" sleeps 100000 & } &&
	pid=$! &&
	perun collect -c sleeper counters --pid $pid --duration 0.3 -e context-switches >out;
	rc=$?; kill $pid; wait $pid;
	test $rc = 0 &&
	test_grep "for process $pid" out &&
	test "$(amounts context-switches)" -gt 0
'

test_expect_success '--pid counts the threads running already, not the main one only' '
	cd proj || return 1
	command -v cc >/dev/null || { echo "no C compiler: skipped"; return 0; }
	cat >mt.c <<-\EOF &&
	#include <pthread.h>
	#include <unistd.h>
	static volatile unsigned long sink;
	static void *spin(void *a) { (void)a; for (;;) sink++; return 0; }
	int main(void)
	{ pthread_t t[2]; for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, spin, 0); sleep(100); return 0; }
	EOF
	cc -O1 -pthread -o mt mt.c || return 1
	./mt &
	pid=$!
	sleep 0.2
	perun collect -c mt counters --pid $pid --duration 0.5 -e task-clock >out;
	rc=$?; kill $pid; wait $pid;
	test $rc = 0 &&
	ms=$(amounts task-clock | awk "{ printf \"%d\", \$1 / 1e6 }") &&
	echo "task-clock of the spinning threads: $ms ms" &&
	test "$ms" -ge 100
'

test_expect_success '--pid of a process that exits: counted until then' '
	cd proj &&
	{ "$helper" sleeps 200 & } &&
	pid=$! &&
	perun collect -c sleeper counters --pid $pid --duration 60 -e context-switches \
		>out 2>err &&
	test_grep "process $pid exited after" err &&
	test "$(amounts context-switches)" -gt 0
'

test_expect_success '--pid without --duration: Ctrl-C ends the counting, profile kept' '
	cd proj || return 1
	"$helper" sleeps 100000 &
	pid=$!
	test_interrupt "grep -q \"until Ctrl-C\" err" perun collect -c sleeper counters --pid $pid \
		-e context-switches >out 2>err
	rc=$?; kill $pid; wait $pid
	test $rc = 0 &&
	test_grep "^Collected profile" out &&
	test "$(amounts context-switches)" -gt 0
'

test_expect_success 'libpfm4 names with a PMU prefix; a raw code is a raw event' '
	cd proj &&
	perun collect -c "$helper" -a "pages 500" counters \
		-e perf::PERF_COUNT_SW_PAGE_FAULTS >/dev/null &&
	test "$(amounts perf::PERF_COUNT_SW_PAGE_FAULTS)" -ge 500 &&
	if perun events --usable --format json | grep -q "\"pmu\": \"hardware\""; then
		perun collect -c "$helper" -a "pages 1" counters -e r00c0 >/dev/null
	else
		test_exit_code 3 perun collect -c "$helper" -a "pages 1" counters -e r00c0 2>err &&
		test_grep "event .r00c0. (raw) is not supported by this machine" err
	fi
'

test_expect_success 'errors: one line, non-zero, the store as it was' '
	cd proj &&
	store_snapshot >before &&
	test_exit_code 2 perun collect -c "$helper" -a "pages 1" counters -e page-faultz \
		>out 2>err &&
	test_grep "unknown event .page-faultz.; did you mean .page-faults." err &&
	test_grep "no PMU" err &&
	test_exit_code 3 perun collect -c sleeper counters --pid 999999999 2>err &&
	test_grep "no process with pid" err &&
	test_exit_code 3 perun collect -c "$helper" -a "exit 3" counters -e page-faults 2>err &&
	test_grep "exited with status 3" err &&
	test_exit_code 2 perun collect -c "$helper" counters --duration 1 2>err &&
	test_grep "needs .--pid." err &&
	test_exit_code 2 perun collect -c "$helper" counters -I 1 2>err &&
	test_grep "interval-ms" err &&
	store_snapshot >after &&
	test_cmp before after
'

test_expect_success 'not permitted: another user'"'"'s process, perf_event_paranoid' '
	test_can_drop_privileges || return 0
	mkdir -p nobody && cp "$helper" nobody/ &&
	{ "$helper" sleeps 100000 & } &&
	pid=$! &&
	test_as_nobody nobody "
		! perun collect -c sleeper counters --pid $pid --duration 0.2 2>err &&
		if test -d /sys/bus/event_source/devices/msr &&
			test \$(cat /proc/sys/kernel/perf_event_paranoid) -ge 2; then
			! perun collect -c ./counters-helper -a \"pages 1\" counters \
				-e msr/tsc/ 2>msr-err
		else
			echo paranoid >msr-err
		fi";
	rc=$?; kill $pid; wait $pid;
	test $rc = 0 &&
	test_grep "not permitted to count .task-clock. of process $pid: it is another user.s (needs root, or CAP_SYS_PTRACE" nobody/err &&
	test $(wc -l <nobody/err) = 2 &&
	test_grep "paranoid" nobody/msr-err
'

if perun events --usable --format json instructions | grep -q "\"name\": \"instructions\""; then
	test_expect_success 'hardware: instructions of a busy loop (this machine has a PMU)' '
		cd proj &&
		perun collect -c "$helper" -a "spin 50 $PWD/cpu" counters \
			-e instructions,cycles >/dev/null &&
		test "$(amounts instructions)" -gt 1000000
	'
else
	echo "# skip hardware events: no PMU here (a virtual machine?): instructions do not count"
	test_expect_success 'no PMU: a hardware event fails naming the cause' '
		cd proj &&
		test_exit_code 3 perun collect -c "$helper" -a "pages 1" counters -e cycles \
			2>err &&
		test_grep "event .cycles. (hardware) is not supported by this machine" err &&
		test_grep "virtual machines often have no PMU" err &&
		test_grep "what counts here instead: .task-clock. or .cpu-clock." err &&
		test $(wc -l <err) = 2
	'
fi

test_done
