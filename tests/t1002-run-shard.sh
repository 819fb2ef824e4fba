#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun run --shard I/N: N runs of one matrix cover each job exactly once,
# the same jobs every time; bad shards are refused.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null || test_skip_all "jq is needed to read the profiles"

test_expect_success 'setup: three versions and a matrix of 3 x 3 = 9 jobs' '
	test_make_git_project proj &&
	(cd proj && echo "/* v3 */" >>prog.c && git commit -q -am "third version" &&
	 perun init >/dev/null &&
	 printf "jobs\nout\nerr\n" >.git/info/exclude &&
	 cat >.perun/local.yml <<-EOC
	vcs:
	  type: git
	  url: ../
	cmds: [/bin/true]
	workloads: [a, b, c]
	collectors:
	  - name: time
	    params: {repeat: 1, warmup: 0}
	EOC
	)
'

# jobs <file>: "origin workload" of every pending profile, sorted.
jobs_of() {
	for p in .perun/jobs/*.perf; do
		jq -r "(.origin) + \" \" + (.header.workload)" "$p"
	done | sort >"$1"
}

test_expect_success 'the whole matrix: 9 jobs' '
	cd proj &&
	perun run -m HEAD~2 -m HEAD~1 -m HEAD matrix >out &&
	test_grep "^9 jobs run, 9 profiles stored$" out &&
	jobs_of ../all && test $(sort -u ../all | wc -l) = 9
'

test_expect_success 'shards 1/4 .. 4/4 are disjoint and cover the matrix once' '
	cd proj &&
	for i in 1 2 3 4; do
		rm -f .perun/jobs/*.perf &&
		perun run -m HEAD~2 -m HEAD~1 -m HEAD --shard $i/4 matrix >out &&
		jobs_of ../shard$i || return 1
	done &&
	test_grep "^2 jobs run, 2 profiles stored$" out &&
	test $(wc -l <../shard1) = 3 &&
	cat ../shard1 ../shard2 ../shard3 ../shard4 | sort >../union &&
	test_cmp ../all ../union
'

test_expect_success 'a shard is the same set of jobs on every run' '
	cd proj && rm -f .perun/jobs/*.perf &&
	perun run -m HEAD~2 -m HEAD~1 -m HEAD --shard 2/4 matrix >out &&
	jobs_of ../again && test_cmp ../shard2 ../again
'

test_expect_success 'more shards than jobs: the extra shards run nothing' '
	cd proj && rm -f .perun/jobs/*.perf &&
	perun run --shard 5/5 matrix >out &&
	test_grep "^0 jobs run, 0 profiles stored$" out
'

test_expect_success 'a bad shard is a usage error and runs nothing' '
	cd proj && rm -f .perun/jobs/*.perf &&
	for bad in 0/2 3/2 x/2 1/0 1 1/2x -1/2 ""; do
		test_exit_code 2 perun run --shard "$bad" matrix 2>err &&
		test_grep "^perun: --shard .*: not <i>/<n> with 1 <= i <= n$" err || return 1
	done &&
	! ls .perun/jobs/*.perf 2>/dev/null
'

test_done
