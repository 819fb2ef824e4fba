#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Fault injection: every write, fsync and rename of a store file that add,
# rm and config set make is failed in turn (tests/helpers/fault-inject.c,
# preloaded).  Each failure must give a clear error, exit 3, and leave the
# store exactly as it was.  Self-made profiles.
#
# run matrix is swept too: there a failed write of its log may also pass
# unnoticed (exit 0), and "as it was" spares its log, scratch and pending
# profiles (.perun/logs, tmp, jobs), where jobs may gain whole profiles of
# the jobs that ran before the failure, never a part of one.
. "$srcdir/tests/test-lib.sh"

test_fault_shim
command -v jq >/dev/null || test_skip_all "jq is not installed"

test_expect_success 'setup: an instance with one tracked and one pending profile' '
	test_fault_base base
'

# sweep <name> <perun args...>: count the command's calls in a copy of
# base, then fail each one in a fresh copy.
sweep() {
	name=$1
	shift
	test_fault_count "$name" "$@" || return 1
	total=0
	for op in write fsync rename; do
		# Every process reports (the build tree's perun is a libtool
		# wrapper script): perun's own count is the largest.
		n=$(awk -v op=$op '$1 == op && $2 > m { m = $2 } END { print m + 0 }' "$name.counts")
		test "$n" -gt 0 2>/dev/null || continue
		i=1
		while [ $i -le "$n" ]; do
			rm -rf work && cp -a base work &&
			test_fault_snapshot work >before &&
			(cd work && PERUN_FAULT=$op:$i LD_PRELOAD="$SHIM" perun "$@" >out 2>err)
			rc=$?
			test_fault_snapshot work >after
			test_fault_no_partial_profile "$name, $op $i of $n" || return 1
			if [ $rc -eq 0 ] && [ -n "$scratch" ] && cmp -s before after; then
				i=$((i + 1)) # a failed write of the log: not the job's
				continue
			fi
			if [ $rc -ne 3 ]; then
				echo "$name, $op $i of $n: exit $rc, not 3"; cat work/err; return 1
			fi
			# run sums up its failed jobs, each on a line of its own
			if ! head -n 1 work/err | grep -q "^perun: " ||
				! grep -q "\(No space left on device\|Input/output error\)" work/err; then
				echo "$name, $op $i of $n: no clear error"; cat work/err; return 1
			fi
			if ! cmp -s before after; then
				echo "$name, $op $i of $n: the store changed"; diff before after; return 1
			fi
			i=$((i + 1))
			total=$((total + 1))
		done
	done
	test $total -gt 0 || { echo "$name: nothing to fail"; return 1; }
	say "$name: $total injected failures"
}

test_expect_success 'add: every failed write, fsync and rename' '
	scratch= && sweep add add .perun/jobs/b.perf
'

test_expect_success 'rm: every failed write, fsync and rename' '
	scratch= && sweep rm rm 0@i
'

test_expect_success 'config set: every failed write, fsync and rename' '
	scratch= && sweep config config --local set format.sort_profiles_by cmd
'

test_expect_success 'run matrix (time on true): every failed write, fsync and rename' '
	cat >>base/.perun/local.yml <<-\EOC &&
	cmds: ["true"]
	collectors:
	  - name: time
	    params: {repeat: 1, warmup: 0}
	EOC
	scratch=1 && sweep matrix run matrix
'

test_done
