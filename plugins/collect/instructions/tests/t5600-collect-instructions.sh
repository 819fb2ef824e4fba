#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun collect ... instructions: counts of a real program under Valgrind,
# exact where the code fixes them, the same run after run; failures that
# leave the store as it was; and, over a git history, the shared default
# rule: identical code passes the gate, 10% more work in one function
# fails it, naming the function (the program's total, +5.4%, is under the
# 8% floor).
. "$srcdir/tests/test-lib.sh"

command -v valgrind >/dev/null || test_skip_all "valgrind is not installed"
command -v cc >/dev/null && command -v make >/dev/null || test_skip_all "no C compiler or make"
command -v jq >/dev/null || test_skip_all "jq is not installed"

work_c() { # the steps of work per unit of input
	cat <<-EOC
	/* work.c: $1 steps a unit */
	long work(long n)
	{
		long s = 0, steps = $1;
		for (long i = 0; i < n * steps; i++)
			s += i & 7;
		return s;
	}
	EOC
}

test_expect_success 'setup: a program of two functions in a git project' '
	git init -q proj && cd proj &&
	cat >main.c <<-\EOC &&
	#include <stdio.h>
	#include <stdlib.h>
	long work(long n);
	__attribute__((noinline)) static long other(long n)
	{
		long s = 0;
		for (long i = 0; i < n * 50; i++)
			s ^= i;
		return s;
	}
	int main(int argc, char **argv)
	{
		long n = argc > 1 ? atol(argv[1]) : 100;
		printf("%ld %ld\n", work(n), other(n));
		return argc > 2 ? atoi(argv[2]) : 0;
	}
	EOC
	printf "prog: main.c work.c\n\tcc -O0 -o prog main.c work.c\n" >Makefile &&
	printf "prog\n" >.gitignore &&
	work_c 100 >work.c && make -s &&
	git add . && git commit -q -m "v0" &&
	perun init >/dev/null
'

newest_profile() {
	ls -t .perun/jobs/*.perf | head -n 1
}

# count <profile> <uid>: its amounts, one a line
count() {
	perun show "$1" tableof --format csv -h uid -h amount resources |
		awk -F, -v u="$2" '$1 == u { print $2 }'
}

test_expect_success 'a profile of the total and of each function, in instructions' '
	cd proj &&
	perun collect -c ./prog -w 1000 instructions >out 2>err &&
	test_cmp /dev/null err &&
	test_grep "^Collected profile .*/\.perun/jobs/instructions-.*\.perf$" out &&
	p=$(newest_profile) &&
	jq -e ".header.type == \"mixed\" and
		.header.units[\"mixed(instructions)\"] == \"instructions\" and
		.collector_info.name == \"instructions\"" "$p" &&
	total=$(count "$p" ./prog) && work=$(count "$p" work) && other=$(count "$p" other) &&
	test "$work" -gt 100000 && test "$other" -gt 50000 &&
	test "$total" -gt $((work + other))
'

test_expect_success 'counts are exact: each unit of input adds the same to work' '
	cd proj &&
	for n in 1000 2000 3000; do
		perun collect -c ./prog -w $n instructions >/dev/null 2>&1 &&
		count "$(newest_profile)" work >w$n || return 1
	done &&
	test $(($(cat w2000) - $(cat w1000))) = $(($(cat w3000) - $(cat w2000)))
'

test_expect_success '--repeat 3: the same counts every run; --no-functions: the total only' '
	cd proj &&
	perun collect -c ./prog -w 1000 instructions -r 3 >/dev/null 2>&1 &&
	count "$(newest_profile)" ./prog | sort -u >totals &&
	test $(wc -l <totals) = 1 &&
	count "$(newest_profile)" work | sort -u >works &&
	test $(wc -l <works) = 1 &&
	perun collect -c ./prog -w 1000 instructions --no-functions >/dev/null 2>&1 &&
	perun show "$(newest_profile)" tableof --format csv -h uid resources >uids &&
	printf "uid\n./prog\n" >expect && test_cmp expect uids
'

test_expect_success 'failures: one line naming the problem, nothing stored or left behind' '
	cd proj &&
	ls .perun/jobs >before &&
	test_must_fail perun collect -c ./prog instructions --valgrind /nonexistent/valgrind \
		>out 2>err &&
	test_grep "^perun: collector .instructions.: cannot run valgrind ./nonexistent/valgrind. (command ./nonexistent/valgrind. not found): .*install valgrind)$" err &&
	test_must_fail perun collect -c ./no-such-prog instructions >out 2>err &&
	test_grep "no-such-prog" err &&
	mkdir -p tmp &&
	(TMPDIR=$PWD/tmp && export TMPDIR &&
	 test_must_fail perun collect -c ./prog -a "10 3" instructions >out 2>err) &&
	test_grep "exited with status 3 under valgrind" err &&
	test -z "$(ls -A tmp)" &&
	test_must_fail perun collect -c ./prog instructions -r 0 >out 2>err &&
	test_grep "repeat. must be 1 or more" err &&
	ls .perun/jobs >after && test_cmp before after
'

test_expect_success '--ignore-failure records a failing run' '
	cd proj &&
	perun collect -c ./prog -a "10 3" instructions -i >/dev/null 2>&1 &&
	test -n "$(count "$(newest_profile)" ./prog)"
'

test_expect_success 'a history: identical code passes the gate, +10% in work fails it' '
	cd proj &&
	echo "/* v1 */" >>main.c && git commit -q -am "v1: a comment" &&
	work_c 110 >work.c && git commit -q -am "v2: work does 10% more" &&
	echo "/* v3 */" >>main.c && git commit -q -am "v3: a comment" &&
	cat >>.perun/local.yml <<-\EOC &&
	execute:
	  pre_run:
	    - make -s
	profiles:
	  register_after_run: true
	EOC
	perun run -c job -b ./prog -w 2000 -c instructions >out 2>err &&
	test_grep "^4 jobs run, 4 profiles stored" out &&
	perun check head --fail-on degradation HEAD~2 >out-v1 &&
	perun check head --fail-on degradation HEAD >out-v3 &&
	test_exit_code 1 perun check head --fail-on degradation --format json HEAD~1 >v2.json &&
	jq -r ".changes[] | select(.result | test(\"Degradation\")) | .location" v2.json |
		sort >found &&
	echo work >expect && test_cmp expect found &&
	jq -e ".verdicts[] | select(.location == \"./prog\") |
		.unreliable | test(\"under the 8% floor\")" v2.json
'

test_done
