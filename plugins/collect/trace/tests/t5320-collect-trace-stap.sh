#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun collect trace -e stap: the generated SystemTap script, and the
# clear failure where SystemTap cannot run (no stap, no kernel build tree).
. "$srcdir/tests/test-lib.sh"
. "$srcdir/plugins/collect/trace/tests/trace-lib.sh"
trace_require_plugin
if command -v stap >/dev/null && [ -d "/lib/modules/$(uname -r)/build" ]; then
	test_skip_all "SystemTap may run here: these tests check its absence"
fi

kept_dir() {
	sed -n "s/^perun: info: trace: temporary files kept in //p" "$1"
}

test_expect_success 'setup' '
	trace_project && build_prog calls && build_prog usdt
'

test_expect_success 'stap cannot run: a clear error, nothing stored' '
	cd proj &&
	store_snapshot >before &&
	test_exit_code 3 perun collect -c ./calls trace -e stap -s userspace >out 2>err &&
	test_grep "SystemTap cannot run here: .*--keep-temps keeps the generated script" err &&
	test_grep "/lib/modules/$(uname -r)/build" err &&
	store_snapshot >after && test_cmp before after &&
	test -z "$(ls .perun/tmp)"
'

test_expect_success '--keep-temps keeps the script, with a probe pair per function' '
	cd proj &&
	test_must_fail perun collect -c ./calls trace -e stap -s userspace -k >out 2>err &&
	test_grep "the generated script is kept: .*/collect.stp" err &&
	s="$(kept_dir err)/collect.stp" &&
	for f in leaf work nap main; do
		test_grep "^probe process(\"$PWD/calls\").function(\"$f\").call? {" "$s" &&
		test_grep "^probe process(\"$PWD/calls\").function(\"$f\").return? {" "$s" || return 1
	done &&
	test $(grep -c "^probe process(.*).function(" "$s") = 8 &&
	test_grep "^probe process(\"$PWD/calls\").begin {" "$s" &&
	test_grep "^probe process(\"$PWD/calls\").thread.end {" "$s"
'

test_expect_success 'sampled strategies count calls per thread in the script' '
	cd proj &&
	test_must_fail perun collect -c ./calls trace -e stap -s u_sampled -k >out 2>err &&
	s="$(kept_dir err)/collect.stp" &&
	test $(grep -c "if (sampling_cnt\[tid(), [0-9]*\]++ % 20 == 0) {" "$s") = 4 &&
	test $(grep -c "if (sampling_flag\[tid(), [0-9]*\] > 0) {" "$s") = 4
'

test_expect_success '--no-profile keeps the script too; USDT marks appear' '
	cd proj &&
	test_must_fail perun collect -c ./usdt trace -e stap -u region -u region_end -u tick --no-profile \
		>out 2>err &&
	s="$(kept_dir err)/collect.stp" &&
	test_grep "^probe process(\"$PWD/usdt\").mark(\"region\")? {" "$s" &&
	test_grep "^probe process(\"$PWD/usdt\").mark(\"region_end\")? {" "$s" &&
	test_grep "printf(\"3 %d %d;0" "$s" &&
	test_grep "printf(\"4 %d %d;1" "$s" &&
	test_grep "printf(\"2 %d %d;2" "$s"
'

test_expect_success 'the userspace strategy pairs USDT probes by their suffixes' '
	cd proj &&
	test_must_fail perun collect -c ./usdt trace -e stap -s userspace -k >out 2>err &&
	dir=$(kept_dir err) &&
	for pair in "region region_end" "load_begin load_end" "save_start save_finish" \
		"phase_a phase_a" "phase_z phase_z" "tick tick"; do
		set -- $pair
		if [ $1 = $2 ]; then kind=usdt; else kind=usdt-end; fi &&
		test_grep " $kind 1 0x[0-9a-f]* usdt $2 " "$dir/probes.txt" || return 1
	done &&
	test_grep " usdt 1 0x[0-9a-f]* usdt load_begin load_begin#load_end " "$dir/probes.txt"
'

test_done
