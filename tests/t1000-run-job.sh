#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun run job over several minor versions of a real git project with a C
# program built by pre_run make: profiles filed under their own commits, the
# branch and the dirty working tree restored after success, a failing
# pre_run, a failing job and SIGINT; exit status and failure summary.
. "$srcdir/tests/test-lib.sh"

# A project of three commits whose program prints its version when run
# with "who" and records its arguments otherwise.
make_project() {
	mkdir -p "$1" && (
		cd "$1" &&
		git init -q &&
		git config user.email t@example.com && git config user.name t &&
		printf "prog: prog.c\n\tcc -o prog prog.c\n" >Makefile &&
		printf "prog\ncalls\n" >.gitignore &&
		for v in 1 2 3; do
			cat >prog.c <<-EOC &&
			#include <stdio.h>
			#include <string.h>
			int main(int argc, char **argv)
			{
				FILE *f = fopen("calls", "a");
				fprintf(f, "v$v");
				for (int i = 1; i < argc; i++)
					fprintf(f, " %s", argv[i]);
				fprintf(f, "\\n");
				return fclose(f) != 0 || (argc > 1 && !strcmp(argv[1], "fail"));
			}
			EOC
			git add . && git commit -q -m "version $v" || return 1
		done
	)
}

# Branch, HEAD, status and diff: what must be the same before and after.
tree_state() {
	git symbolic-ref HEAD && git rev-parse HEAD && git status --porcelain &&
	git diff && git diff --cached && cat notes.txt
}

test_expect_success 'setup: a git project with three versions and perun' '
	make_project proj &&
	(cd proj && perun init >/dev/null &&
	 printf "out\nerr\nshas\nprofiles\nplugins\nexpect\norigins\nstarted\n" >.git/info/exclude &&
	 cat >>.perun/local.yml <<-\EOC
	execute:
	  pre_run:
	    - make
	EOC
	)
'

test_expect_success 'run job over three versions: one profile each, origin its own commit' '
	cd proj &&
	git rev-parse HEAD~2 HEAD~1 HEAD >shas &&
	echo "staged work" >notes.txt && git add notes.txt && echo "more" >>notes.txt &&
	echo "# dirty" >>Makefile &&
	tree_state >../before &&
	perun run -m HEAD~2 -m HEAD~1 -m HEAD job -b ./prog -a arg -w 7 -c time \
		-cp time "{repeat: 2, warmup: 1}" >out 2>err &&
	tree_state >../after &&
	test_cmp ../before ../after &&
	test_grep "^3 jobs run, 3 profiles stored$" out &&
	test_cmp /dev/null err &&
	printf "v1 arg 7\nv1 arg 7\nv1 arg 7\nv2 arg 7\nv2 arg 7\nv2 arg 7\nv3 arg 7\nv3 arg 7\nv3 arg 7\n" >expect &&
	test_cmp expect calls &&
	ls .perun/jobs/*.perf >profiles &&
	test $(wc -l <profiles) = 3 &&
	for p in .perun/jobs/*.perf; do
		sed -n "s/.*\"origin\": \"\\([0-9a-f]*\\)\".*/\\1/p" "$p"
	done | sort >origins &&
	sort shas >expect &&
	test_cmp expect origins &&
	test_grep "\"repeat\": 2" .perun/jobs/*.perf
'

test_expect_success 'with register_after_run each profile lands in the index of its commit' '
	cd proj && rm -f calls &&
	printf "profiles:\n  register_after_run: true\n" >>.perun/local.yml &&
	tree_state >../before &&
	perun run -m HEAD~2 -m HEAD~1 -m HEAD job -b ./prog -c time -cp time "repeat: 1" >out &&
	tree_state >../after &&
	test_cmp ../before ../after &&
	for sha in $(cat shas); do
		d=$(echo $sha | cut -c1-2) && f=$(echo $sha | cut -c3-) &&
		test -f .perun/objects/$d/$f || return 1
	done &&
	sed -i "/register_after_run/d; /^profiles:/d" .perun/local.yml
'

test_expect_success '--crawl-parents profiles every ancestor' '
	cd proj && rm -f calls && rm -f .perun/jobs/*.perf &&
	perun run -m HEAD~1 --crawl-parents job -b ./prog -w c -c time -cp time "{repeat: 1, warmup: 0}" >out &&
	test_grep "^2 jobs run, 2 profiles stored$" out &&
	printf "v2 c\nv1 c\n" >expect &&
	test_cmp expect calls
'

test_expect_success 'a failing pre_run fails the jobs of its version, the rest run, the tree restored' '
	cd proj && rm -f calls .perun/jobs/*.perf &&
	git show HEAD~1:prog.c >/dev/null &&
	cp .perun/local.yml ../local.yml.saved &&
	cat >>.perun/local.yml <<-\EOC &&
	    - grep -q "v2" prog.c && echo "refusing v2" && exit 4 || true
	EOC
	tree_state >../before &&
	test_exit_code 3 perun run -m HEAD~2 -m HEAD~1 -m HEAD job -b ./prog -c time \
		-cp time "{repeat: 1, warmup: 0}" >out 2>err &&
	tree_state >../after &&
	test_cmp ../before ../after &&
	test_grep "^3 jobs run, 2 profiles stored$" out &&
	test_grep "^perun: 1 of 3 jobs failed:$" err &&
	test_grep "pre_run at $(git rev-parse --short=7 HEAD~1): .* failed (exit 4)" err &&
	log=$(sed -n "s/^perun: the log of the run is //p" err) &&
	test_grep "refusing v2" "$log" &&
	printf "v1\nv3\n" >expect && test_cmp expect calls &&
	cp ../local.yml.saved .perun/local.yml
'

test_expect_success 'a failing job exits 3 and names the job and why; other jobs stored' '
	cd proj && rm -f .perun/jobs/*.perf &&
	test_exit_code 3 perun run job -b ./prog -w ok -w fail -c time \
		-cp time "{repeat: 1, warmup: 0}" >out 2>err &&
	test_grep "^2 jobs run, 1 profile stored$" out &&
	test_grep "^perun: 1 of 2 jobs failed:$" err &&
	test_grep "^  [0-9a-f]\{7\} time: ./prog fail workload .fail.: collector .time.:" err &&
	ls .perun/jobs/*.perf >profiles && test $(wc -l <profiles) = 1
'

test_expect_success 'postprocessors run in order on each profile' '
	cd proj && rm -f .perun/jobs/*.perf &&
	perun plugins list >plugins &&
	if grep -q regression_analysis plugins; then
		perun run job -b ./prog -w 3 -c time -cp time "{repeat: 3, warmup: 0}" \
			-p regression_analysis -pp regression_analysis "{depending-on: order}" >out 2>err &&
		p=$(ls .perun/jobs/*.perf) &&
		test_grep "\"name\": \"regression_analysis\"" "$p" &&
		test_grep "\"models\": \[$" "$p"
	fi &&
	test_exit_code 2 perun run job -b ./prog -c time -p no_such_postprocessor 2>err &&
	test_grep "no_such_postprocessor" err
'

test_expect_success 'bad collector params are refused before anything is checked out' '
	cd proj && rm -f .perun/jobs/*.perf &&
	tree_state >../before &&
	test_exit_code 2 perun run -m HEAD~1 job -b ./prog -c time -cp time "{repeat: lots}" 2>err &&
	test_grep "repeat" err &&
	test_exit_code 2 perun run -m HEAD~1 job -b ./prog -c time -cp time "{nonsense: 1}" 2>err &&
	test_grep "collect .time. has no parameter .nonsense." err &&
	test_exit_code 2 perun run job -c time 2>err &&
	tree_state >../after &&
	test_cmp ../before ../after &&
	test_must_fail ls .perun/jobs/*.perf
'

test_expect_success 'SIGINT during pre_run stops the run, restores the tree, exits 130' '
	cd proj && rm -f calls started &&
	cp .perun/local.yml ../local.yml.saved &&
	cat >>.perun/local.yml <<-\EOC &&
	    - touch started && sleep 30
	EOC
	tree_state >../before &&
	test_exit_code 130 test_interrupt "test -f started" \
		perun run -m HEAD~2 -m HEAD~1 job -b ./prog -c time -cp time "repeat: 1" >out 2>err &&
	test -f started &&
	tree_state >../after &&
	test_cmp ../before ../after &&
	test_grep "interrupted" err &&
	test_must_fail test -f calls &&
	cp ../local.yml.saved .perun/local.yml
'

test_done
