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
