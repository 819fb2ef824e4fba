#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun collect ... kperf errors: one line naming the cause, a non-zero
# exit and nothing stored, for a pid that does not exist, an unknown event
# (with counters' closest names), bad options, a failing command and, as
# an unprivileged user, the BPF permission the frame-pointer mode needs.
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/plugins/collect/kperf/tests/kperf-lib.sh"

test_expect_success 'setup: the sampled program and a perun instance' '
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null) &&
	build_hot proj/hot-fp -fno-omit-frame-pointer
'

no_profile_stored() {
	test -z "$(ls .perun/jobs/*.perf 2>/dev/null)"
}

test_expect_success 'a pid that does not exist' '
	cd proj &&
	test_must_fail perun collect -c x kperf --pid 2147483646 2>err &&
	test_grep "no process with pid 2147483646" err &&
	no_profile_stored
'

test_expect_success 'an unknown event names the closest ones' '
	cd proj &&
	test_must_fail perun collect -c ./hot-fp kperf -e cpu-clok 2>err &&
	test_grep "unknown event .cpu-clok.*cpu-clock" err &&
	no_profile_stored
'

test_expect_success 'bad options: one line each, exit 2' '
	cd proj &&
	test_exit_code 2 perun collect -c ./hot-fp kperf --duration 1 2>err &&
	test_grep "option .--duration. needs .--pid." err &&
	test_exit_code 2 perun collect -c ./hot-fp kperf --frequency 0 2>err &&
	test_grep "option .--frequency. must be 1 to 1000000, not 0" err &&
	test_exit_code 2 perun collect -c ./hot-fp kperf --stack-size 10 2>err &&
	test_grep "option .--stack-size. must be 64 to 65528" err &&
	test_exit_code 2 perun collect -c ./hot-fp kperf -g lbr 2>err &&
	no_profile_stored
'

test_expect_success 'a command that fails: an error, unless --ignore-failure' '
	cd proj &&
	cat >fails.sh <<-\EOF &&
	#!/bin/sh
	"$(dirname "$0")/hot-fp" 1000
	exit 3
	EOF
	chmod +x fails.sh &&
	test_must_fail perun collect -c ./fails.sh kperf 2>err &&
	test_grep "command .*fails.sh. exited with status 3" err &&
	no_profile_stored &&
	perun collect -c ./fails.sh kperf -i >out &&
	test_grep "^Collected profile" out
'

test_expect_success 'no BPF permission: the error names CAP_BPF; dwarf mode works' '
	test_can_drop_privileges || return 0
	mkdir -p nobody && cp proj/hot-fp nobody/ &&
	test_as_nobody nobody "
		! perun collect -c ./hot-fp -a $HOT_MS kperf 2>err &&
		perun collect -c ./hot-fp -a $HOT_MS kperf -g dwarf >out" &&
	test_grep "not permitted to load the BPF stack sampler (needs root, or CAP_BPF" nobody/err &&
	test_grep "^Collected profile" nobody/out
'

test_expect_success 'another user'"'"'s process: not permitted, saying why' '
	test_can_drop_privileges || return 0
	{ sleep 100 & } &&
	pid=$! &&
	test_as_nobody other "
		! perun collect -c sleep kperf --pid $pid -g dwarf --duration 0.2 2>err";
	rc=$?; kill $pid; wait $pid;
	test $rc = 0 &&
	test_grep "not permitted to count .cpu-clock. of process $pid: it is another user.s" other/err
'

test_done
