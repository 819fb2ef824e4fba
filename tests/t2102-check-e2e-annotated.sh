#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End to end on an annotated program: a git repository of a C program
# whose regions (<perun/annotate.h>) "parse" and "solve" sleep 2 ms each
# per item; in v2 "solve" sleeps 12 ms.  Each version is built, run with
# PERUN_ANNOTATE (a driver process and a forked worker: two trace files),
# the files imported with 'perun import chrome' and registered at their
# commit (and, where eBPF runs, collected by the trace collector with no
# options); 'perun check head' on v2 names the region "solve" as the
# degradation and leaves "parse" alone, and --fail-on degradation exits 1.
# A 6x slowdown of sleeps: machine load cannot flip the verdict.
. "$srcdir/tests/test-lib.sh"

command -v cc >/dev/null || test_skip_all "no C compiler"
command -v jq >/dev/null || test_skip_all "jq is not installed"
LIBDIR="$TEST_BUILDDIR/sdk/.libs"

prog_c() { # <solve ms>
	cat <<-EOC
	#define _POSIX_C_SOURCE 200809L
	#include <perun/annotate.h>
	#include <sys/wait.h>
	#include <time.h>
	#include <unistd.h>
	static void ms(long n) { struct timespec t = { 0, n * 1000000L }; nanosleep(&t, 0); }
	static void parse(void) { PERUN_CRITICAL_PATH(parse, around); ms(2); }
	static void solve(void) { PERUN_CRITICAL_PATH(solve, around); ms($1); }
	static void run(void) { for (int i = 0; i < 8; i++) { parse(); solve(); } }
	int main(void)
	{
		pid_t pid = fork();
		run();
		if (pid > 0)
			waitpid(pid, 0, 0);
		return 0;
	}
	EOC
}

build_and_record() { # <version>
	cc -std=c11 -O2 -I"$TEST_SRCDIR/sdk/include" -o prog prog.c -L"$LIBDIR" \
		-lperun-annotate -Wl,-rpath,"$LIBDIR" &&
	rm -rf traces && mkdir traces &&
	PERUN_ANNOTATE="name=prog:log-dir=traces:log-event=compact" ./prog &&
	test $(ls traces | wc -l) = 2 &&
	perun import chrome traces/* >out &&
	perun add "$(sed -n "s/^Imported profile //p" out)" >/dev/null &&
	if test "$have_bpf" = yes; then
		perun collect -c ./prog trace >out 2>/dev/null &&
		perun add "$(sed -n "s/^Collected profile //p" out)" >/dev/null
	fi
}

# The same regions through the trace collector's eBPF engine, where it
# can run (root, BTF, the plugin built).
have_bpf=no
if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] &&
	[ -e "$PERUN_PLUGIN_PATH/collect/trace.so" ] && command -v bpftool >/dev/null &&
	bpftool prog list >/dev/null 2>&1; then
	have_bpf=yes
else
	say "eBPF tracing cannot run here: the JSON route only"
fi

test_expect_success 'two versions, each run, imported and registered at its commit' '
	git init -q project && cd project &&
	printf "prog\ntraces/\n" >.gitignore &&
	prog_c 2 >prog.c && git add . && git commit -q -m "v1" &&
	perun init >/dev/null &&
	cat >>.perun/local.yml <<-\EOC &&
	degradation:
	  apply: all
	  strategies:
	    - method: aat
	EOC
	build_and_record &&
	prog_c 12 >prog.c && git commit -q -am "v2: solve is slower" &&
	build_and_record &&
	perun log --short >log && test $(grep -c "chrome" log) -ge 0
'

test_expect_success 'check head names solve, not parse, as the degradation' '
	cd project &&
	perun check --format json head >head.json &&
	jq -r ".changes[] | select(.result | test(\"Degradation\")) | .location" head.json |
		sort -u >degraded &&
	grep -x solve degraded && ! grep -q "^parse" degraded &&
	perun check head >out &&
	test_grep "solve" out
'

if test $have_bpf = yes; then
	test_expect_success 'traced by eBPF: check head names solve_begin#solve_end' '
		cd project &&
		jq -r ".changes[] | select(.result | test(\"Degradation\")) | .location" \
			head.json | sort -u >degraded &&
		grep -x "solve_begin#solve_end" degraded && ! grep -q "^parse" degraded
	'
fi

test_expect_success 'check head --fail-on degradation exits 1' '
	cd project &&
	test_exit_code 1 perun check head --fail-on degradation >/dev/null
'

test_done
