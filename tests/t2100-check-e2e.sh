#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End to end: a real git repository of a small C program whose hot function
# turns from linear to quadratic in one commit (v3) and back in a later one
# (v6).  Every commit is profiled by 'perun run job' (time collector, and
# the trace collector where it can run); then
#   * 'perun check all' (cpd over each configuration's history) names the
#     location and the commit of each change: the command './prog' from
#     the time profiles (they measure the whole program), the function
#     'hot' from the trace profiles;
#   * 'perun check head --fail-on degradation' exits 1 on the degrading
#     commit and 0 on the fixing one (aat on time profiles, eto on traces).
# The rest of the program takes about 16 ms in every version, so that the
# time collector's user time spans several ticks: a 3 ms run's user time
# is 0 when its only tick falls in the kernel, and a series of zeros has
# no size to change from.  The program's slowdown is about 10x, 3x and
# more under load (hot's own, in the traces, one run per version at a
# bigger input, about 100x, since a traced call of a few milliseconds can
# take ten times as long when the machine is busy), so machine load
# cannot flip a verdict, and nothing asserts on absolute times.  Every segment of
# the history is three versions long, so cpd looks for no shorter one
# (min_segment 3): one busy moment in a single-run trace then cannot split
# a segment in two and be pruned away with the real change.  With at most
# the two change points that allows, a level of 0.05 keeps a change whose
# last version ran on a busy machine (p 0.01-0.02 seen, every time).
. "$srcdir/tests/test-lib.sh"

command -v cc >/dev/null && command -v make >/dev/null || test_skip_all "no C compiler or make"
command -v jq >/dev/null || test_skip_all "jq is not installed"
test -e "$PERUN_PLUGIN_PATH/check/cpd.so" || test_skip_all "the cpd check is not built (needs GSL)"

hot_c() { # linear | quadratic
	inner=400
	test "$1" = quadratic && inner=n
	cat <<-EOC
	/* the hot function: $1 */
	long hot(long n)
	{
		long s = 0;
		for (long i = 0; i < n; i++)
			for (long k = 0; k < $inner; k++)
				s += (i ^ k) & 7;
		return s;
	}
	EOC
}

test_expect_success 'a project whose hot function turns quadratic in v3 and back in v6' '
	git init -q project && cd project &&
	cat >main.c <<-\EOC &&
	#include <stdio.h>
	#include <stdlib.h>
	long hot(long n);
	static long rest(long n)
	{
		long s = 0;
		for (long i = 0; i < n * 1000; i++)
			s += i % 7;
		return s;
	}
	int main(int argc, char **argv)
	{
		long n = argc > 1 ? atol(argv[1]) : 1000;
		printf("%ld %ld\n", hot(n), rest(n));
		return 0;
	}
	EOC
	printf "prog: main.c hot.c\n\tcc -O1 -o prog main.c hot.c\n" >Makefile &&
	printf "prog\n" >.gitignore &&
	hot_c linear >hot.c &&
	git add . && git commit -q -m "v0: linear hot" &&
	for v in 1 2 3 4 5 6 7 8; do
		case $v in
		3) hot_c quadratic >hot.c ;;
		6) hot_c linear >hot.c ;;
		*) echo "/* v$v */" >>main.c ;;
		esac &&
		git commit -q -am "v$v" || return 1
	done &&
	git rev-parse HEAD~5 >../v3 && git rev-parse HEAD~2 >../v6 &&
	perun init >/dev/null &&
	cat >>.perun/local.yml <<-\EOC
	execute:
	  pre_run:
	    - make -s
	profiles:
	  register_after_run: true
	degradation:
	  apply: all
	  min_change: 0.5
	  min_segment: 3
	  alpha: 0.05
	  strategies:
	    - collector: time
	      method: aat
	    - collector: trace
	      method: eto
	    - method: cpd
	EOC
'

# The trace collector needs eBPF (root, a kernel with BTF): try it once in a
# scratch clone, so the project's store stays as the tests expect it.
if (cd "$TRASH_DIRECTORY" && git clone -q project probe && cd probe &&
	perun init >/dev/null 2>&1 && make -s >/dev/null 2>&1 &&
	perun collect -c ./prog -w 10 trace -s userspace >/dev/null 2>&1); then
	have_trace=yes
else
	have_trace=no
	say "the trace collector cannot run here: time profiles only (cpd names the command)"
fi

# One perun run per collector: the time collector's max-rss of a child
# follows the size of the perun process that starts it, which tracing in
# the same process would change from version to version.
test_expect_success 'every commit is profiled by perun run job (time)' "
	cd project &&
	perun run -c job -b ./prog -w 12000 -c time -cp time '{warmup: 1, repeat: 3}' >out 2>err &&
	test_grep '^9 jobs run, 9 profiles stored' out
"

if test $have_trace = yes; then
	test_expect_success 'every commit is profiled by perun run job (trace)' "
		cd project &&
		perun run -c job -b ./prog -w 30000 -c trace -cp trace '{strategy: userspace}' \
			>out 2>err &&
		test_grep '^9 jobs run, 9 profiles stored' out
	"
fi

# cpd's changes of location $1, type $2 in all.json as "<result> <commit>",
# against the two expected ones.
test_cpd_changes() {
	jq -r --arg loc "$1" --arg type "$2" '.changes[] |
		select(.method == "cpd" and .result != "NoChange" and
			.location == $loc and .type == $type) |
		"\(.result) \(.version)"' all.json >actual &&
	printf "SevereDegradation %s\nSevereOptimization %s\n" "$(cat ../v3)" "$(cat ../v6)" >expect &&
	test_cmp expect actual
}

test_expect_success 'check all: cpd names the command and the commit of both changes (time)' '
	cd project &&
	perun check --format json all >all.json &&
	test_cpd_changes ./prog user
'

test_expect_success 'each cpd verdict carries its effect size, noise and p-value' '
	cd project &&
	jq -e "[.changes[] | select(.method == \"cpd\" and .type == \"user\" and
		.result != \"NoChange\")] | length == 2 and
		(.[0].effect_size >= 1) and (.[1].effect_size <= -0.5) and
		all(.noise >= 0 and .confidence_type == \"p_value\" and
			.confidence_rate < 0.05)" all.json
'

test_expect_success 'the text report of check all shows the changes with their commits' '
	cd project &&
	perun check all >out &&
	v3=$(cut -c1-7 ../v3) && v6=$(cut -c1-7 ../v6) &&
	test_grep "user Severe Degradation from: .* since $v3" out &&
	test_grep "user Severe Optimization from: .* since $v6" out
'

if test $have_trace = yes; then
	test_expect_success 'check all: cpd names the function hot and both commits (trace)' '
		cd project &&
		test_cpd_changes hot "time delta"
	'
fi

test_expect_success 'check head --fail-on degradation: 1 on the degrading commit' '
	cd project &&
	test_exit_code 1 perun check head --fail-on degradation "$(cat ../v3)" >out &&
	test_grep "Degradation" out
'

test_expect_success 'check head --fail-on degradation: 0 on the fixing commit' '
	cd project &&
	perun check head --fail-on degradation "$(cat ../v6)" >out &&
	test_grep "Optimization" out
'

test_expect_success 'check all --fail-on degradation gates on the history' '
	cd project &&
	test_exit_code 1 perun check all --fail-on degradation >/dev/null
'

test_done
