#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Programs annotated with <perun/annotate.h> (tests/annotate: a 4-thread C
# program, a C++ one) traced by the ebpf engine with no options: their
# annotations are USDT probes with semaphores, picked up and paired by
# suffix; every sync region is measured with its exact count and at least
# its sleep, also when the userspace strategy probes the functions too;
# async regions begun in main and ended by workers are matched by id.
. "$srcdir/tests/test-lib.sh"
. "$srcdir/plugins/collect/trace/tests/trace-lib.sh"
trace_require_bpf
command -v c++ >/dev/null || test_skip_all "no C++ compiler"
. "$TEST_SRCDIR/tests/annotate/annotate-lib.sh"

# region <profile> <name> <calls> <min us>: the pair <name>_begin#<name>_end
region() {
	test $(query "$1" calls "$2_begin#$2_end") = "$3" &&
	at_least "$(query "$1" min "$2_begin#$2_end")" "$4"
}

test_expect_success 'setup: the annotated programs and a perun instance' '
	trace_project &&
	annotate_build -g
'

test_expect_success 'no options: the annotations are the regions, async ones too' '
	cd proj &&
	perun collect -c ./annotated trace >out 2>err &&
	p=$(newest_profile) &&
	region "$p" work 20 3000 && region "$p" nap 20 2000 && region "$p" load 20 1000 &&
	test $(query "$p" tids work_begin#work_end) = 4 &&
	test $(query "$p" calls request_async_start#request_async_finish) = 4 &&
	at_least "$(query "$p" min request_async_start#request_async_finish)" 3000 &&
	test "$(query "$p" field work_begin#work_end location)" = annotated
'

test_expect_success 'C++: a method, a scope left by an exception, async jobs' '
	cd proj &&
	perun collect -c ./annotatedxx trace >out 2>err &&
	p=$(newest_profile) &&
	region "$p" area 12 1000 && region "$p" risky 2 2000 &&
	test $(query "$p" calls job_async_start#job_async_finish) = 3 &&
	test $(query "$p" tids area_begin#area_end) = 3
'

test_expect_success 'the userspace strategy probes the functions and the annotations' '
	cd proj &&
	perun collect -c ./annotated trace -s userspace >out 2>err &&
	p=$(newest_profile) &&
	test $(query "$p" calls work) = 20 &&
	test $(query "$p" calls work_begin#work_end) = 20 &&
	test $(query "$p" calls nap_begin#nap_end) = 20
'

test_expect_success 'PERUN_ANNOTATE and the tracer at once: both see every region' '
	cd proj &&
	mkdir json && PERUN_ANNOTATE="log-dir=json" perun collect -c ./annotated trace >out 2>err &&
	test $(query $(newest_profile) calls work_begin#work_end) = 20 &&
	python3 "$ANN/check-trace.py" json/* >sum &&
	test_grep "^region work 20 " sum
'

test_done
