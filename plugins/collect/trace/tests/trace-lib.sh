# SPDX-License-Identifier: GPL-3.0-or-later
# Shared set-up of the trace collector's tests: sourced after test-lib.sh.
TRACE_TESTS="$TEST_SRCDIR/plugins/collect/trace/tests"
query() { python3 "$TRACE_TESTS/trace-query.py" "$@"; }

newest_profile() {
	ls -t .perun/jobs/*.perf | head -n 1
}

# Build tests/progs/<name>.c (or .cc) into ./<name> with extra flags.
build_prog() {
	name=$1
	shift
	if [ -f "$TRACE_TESTS/progs/$name.cc" ]; then
		g++ -O0 -g -o "$name" "$TRACE_TESTS/progs/$name.cc" "$@"
	else
		cc -O0 -g -o "$name" "$TRACE_TESTS/progs/$name.c" "$@" -lpthread
	fi
}

trace_require_plugin() {
	[ -e "$PERUN_PLUGIN_PATH/collect/trace.so" ] ||
		test_skip_all "the trace collector was not built (configure found no libbpf, clang or bpftool)"
	command -v python3 >/dev/null || test_skip_all "python3 is needed to read the profiles"
}

# eBPF needs root (CAP_BPF, CAP_PERFMON) and a kernel with BTF and uprobes.
trace_require_bpf() {
	trace_require_plugin
	[ "$(id -u)" = 0 ] || test_skip_all "not root: the ebpf engine needs root or CAP_BPF and CAP_PERFMON"
	[ -r /sys/kernel/btf/vmlinux ] || test_skip_all "the kernel has no BTF (/sys/kernel/btf/vmlinux)"
	command -v bpftool >/dev/null && bpftool prog list >/dev/null 2>&1 ||
		test_skip_all "BPF is not available here (bpftool prog list fails)"
}

# A git repository with one commit and a perun instance in ./proj; cd there.
trace_project() {
	mkdir proj && cd proj && git init -q && git commit -q --allow-empty -m init &&
		perun init >/dev/null
}

# at_least <number> <min>: durations are decimals; "none" fails.
at_least() {
	python3 -c "import sys; sys.exit(not $1 >= $2)"
}

# What either engine records of the test programs, given the profile (and
# the collection's stderr in ./err where the program ends abnormally).
trace_check_calls() {
	printf "!ProcessResource!\nleaf\nmain\nnap\nwork\n" >expect &&
	query "$1" uids >actual && test_cmp expect actual &&
	test $(query "$1" calls leaf) = 1000 &&
	test $(query "$1" calls work) = 10 &&
	test $(query "$1" calls nap) = 3
}

trace_check_threads() {
	test $(query "$1" calls job) = 100 &&
	test $(query "$1" tids job) = 4 &&
	test $(query "$1" calls "!ThreadResource!") = 4 &&
	at_least "$(query "$1" min job)" 1000 &&
	test "$(query "$1" exclusive main worker)" = ok
}

trace_check_fork() {
	test $(query "$1" calls child_work) = 7 &&
	test $(query "$1" calls parent_work) = 3
}

trace_check_timeout() {
	test_grep "stopped at the timeout" err &&
	test $(query "$1" calls tick) = 5 &&
	test $(query "$1" calls spin_forever) = 1 &&
	at_least "$(query "$1" end spin_forever)" 500000
}

trace_check_crash() {
	test_grep "killed by signal 11" err &&
	test $(query "$1" calls before_crash) = 4 &&
	test $(query "$1" calls crasher) = 1 &&
	at_least "$(query "$1" min crasher)" 20000
}

trace_check_reexec() {
	test $(query "$1" calls main) = 2 &&
	test $(query "$1" calls prep) = 1 &&
	test $(query "$1" calls work) = 3 &&
	test $(query "$1" calls "!ProcessResource!") = 1 &&
	at_least "$(query "$1" min main)" 3000 &&
	test "$(query "$1" exclusive main)" = ok
}

# A shared library ./libtwice.so (extra cc flags in $@) and ./uselib calling
# its twice() nine times.
trace_build_uselib() {
	printf "int twice(int x) { return 2 * x; }\n" >lib.c &&
	printf "int twice(int x);\nint main(void) { int s = 0; for (int i = 0; i < 9; i++) s += twice(i); return s == 1; }\n" >uselib.c &&
	cc -shared -fPIC "$@" -o libtwice.so lib.c &&
	cc "$@" -o uselib uselib.c -L. -ltwice -Wl,-rpath,"$PWD"
}

