#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End to end: two versions of a program in a git repository, traced by
# perun run job (the instrument engine, and eBPF where it is available),
# registered to their commits, and perun check head with the eto method
# names the function that became slower.
. "$srcdir/tests/test-lib.sh"
. "$srcdir/plugins/collect/trace/tests/trace-lib.sh"
trace_require_plugin
[ -e "$PERUN_PLUGIN_PATH/check/eto.so" ] || test_skip_all "the eto check was not built"

engines=instrument
if [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] && bpftool prog list >/dev/null 2>&1; then
	engines="instrument ebpf"
fi

# version N: parse() sleeps N ms per call, the other functions 1 ms.  The
# slowdown (39 ms a call) is far above what load does to 1 ms sleeps.
write_version() {
	cat >prog.c <<-EOC
	#include <unistd.h>
	void parse(void);
	void load(void);
	void store(void);
	void index_(void);
	void report(void);
	void parse(void) { usleep($1 * 1000); }
	void load(void) { usleep(1000); }
	void store(void) { usleep(1000); }
	void index_(void) { usleep(1000); }
	void report(void) { usleep(1000); }
	int main(void)
	{
		for (int i = 0; i < 5; i++) {
			load(); parse(); index_(); store(); report();
		}
		return 0;
	}
	EOC
}

test_expect_success 'setup: a project with a fast and a slow version' '
	mkdir proj && cd proj && git init -q &&
	printf "prog: prog.c\n\tcc -O0 -g \$(CFLAGS) -o prog prog.c\n" >Makefile &&
	printf "prog\n" >.gitignore &&
	write_version 1 && git add . && git commit -q -m "fast parse" &&
	write_version 40 && git commit -q -am "slow parse" &&
	perun init >/dev/null &&
	cat >>.perun/local.yml <<-\EOC &&
	execute:
	  pre_run:
	    - make -B CFLAGS=-finstrument-functions
	degradation:
	  apply: all
	  strategies:
	    - method: eto
	EOC
	# The shared rules (aat) would join in: check with eto alone.
	perun config --shared set degradation.strategies "[{method: eto}]" >/dev/null
'

for engine in $engines; do
	test_expect_success "$engine: perun run job traces both versions" '
		cd proj &&
		perun run -m HEAD~1 -m HEAD job -b ./prog -c trace \
			-cp trace "{engine: '$engine', strategy: userspace}" >out 2>err &&
		test_grep "^2 jobs run, 2 profiles stored$" out &&
		ls .perun/jobs/*.perf >profiles && test $(wc -l <profiles) = 2 &&
		for p in $(cat profiles); do
			test $(query "$p" calls parse) = 5 &&
			test $(query "$p" calls load) = 5 &&
			test $(query "$p" calls main) = 1 || return 1
		done
	'

	test_expect_success "$engine: the slower version took longer in parse" '
		cd proj &&
		new=$(grep -l "\"origin\": \"$(git rev-parse HEAD)\"" .perun/jobs/*.perf) &&
		old=$(grep -l "\"origin\": \"$(git rev-parse HEAD~1)\"" .perun/jobs/*.perf) &&
		at_least "$(query "$new" min parse)" 40000 &&
		at_least "$(query "$old" min parse)" 1000 &&
		perun add -m HEAD~1 "$old" >/dev/null && perun add -m HEAD "$new" >/dev/null
	'

	test_expect_success "$engine: perun check head names parse" '
		cd proj &&
		perun check head >out 2>err &&
		test_grep -A1 "^at parse:" out >parse &&
		test_grep "Severe Degradation" parse &&
		# Of the functions, parse changed most (others move by noise only).
		awk "/^at / { at = \$2 } /Degradation from/ && at != \"prog:\" {
			r = \$2; sub(/ms/, \"\", r); if (r + 0 > best) { best = r + 0; who = at } }
			END { print who }" out >top &&
		echo "parse:" >expect && test_cmp expect top
	'
	test_expect_success "$engine: clean up for the next engine" '
		cd proj && perun rm -m HEAD~1 0@i >/dev/null && perun rm 0@i >/dev/null
	'
done

test_done
