#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Fault injection of allocations: malloc, calloc and realloc fail in turn
# (tests/helpers/fault-inject.c, preloaded; counted from perun's main on)
# during add, rm, config set, run matrix, status and log.  Each failure
# either does not matter (exit 0, and the store is what a run without
# faults leaves) or gives an error naming the lack of memory (one line;
# two where add and rm sum up what failed; three for run, whose summary
# names the job and its log), exit 3, never a crash, and the store as it
# was.  "As it was" for run matrix and status: objects, indexes and
# configuration untouched; the log (.perun/logs) and scratch (.perun/tmp)
# may grow, and .perun/jobs may gain whole pending profiles of the jobs
# that ran before the failure, never a part of one (they are written
# atomically), and status's cache of them.
#
# The commands make some 5,000 allocations each: every k-th is failed,
# k chosen for about ALLOC_FAULT_SAMPLES (60) runs per command (so some
# 360 runs, about a minute); ALLOC_FAULT_SAMPLES=0 fails every one (some
# 30,000 runs, an hour: run it after changing how perun allocates).
# libgit2's own allocations, and those libc makes for it, are spared:
# libgit2 1.5 crashes on some of its out-of-memory paths
# (git_config_snapshot frees an unset pointer), which are libgit2's to
# fix, not perun's.
. "$srcdir/tests/test-lib.sh"

test_fault_shim
# ASan's allocator answers malloc before any preloaded shim can: no
# allocation of perun would be counted, let alone failed.
test -z "$ASAN_RT" || test_skip_all "allocations cannot be failed under ASan's allocator"
command -v jq >/dev/null || test_skip_all "jq is not installed"
SAMPLES=${ALLOC_FAULT_SAMPLES:-60}
PERUN_FAULT_SPARE=libgit2
export PERUN_FAULT_SPARE

test_expect_success 'setup: an instance with one tracked and one pending profile' '
	test_fault_base base &&
	cat >>base/.perun/local.yml <<-\EOC
	cmds: ["true"]
	collectors:
	  - name: time
	    params: {repeat: 1, warmup: 0}
	EOC
'

# sweep <name> <perun args...>: fails a sample of the command's
# allocations, or with to=N every one of the first N.
sweep() {
	name=$1
	shift
	test_fault_count "$name" "$@" || return 1
	test_fault_snapshot count >clean
	n=$(awk '$1 == "malloc" && $2 > m { m = $2 } END { print m + 0 }' "$name.counts")
	test "$n" -gt 0 || { echo "$name: no allocation counted"; return 1; }
	k=1
	[ -z "${to:-}" ] && [ "$SAMPLES" -gt 0 ] && [ "$n" -gt "$SAMPLES" ] &&
		k=$(( (n + SAMPLES - 1) / SAMPLES ))
	i=1 runs=0 failed=0
	while [ $i -le "${to:-$n}" ] && [ $i -le "$n" ]; do
		rm -rf work && cp -a base work &&
		test_fault_snapshot work >before &&
		(cd work && PERUN_FAULT=malloc:$i LD_PRELOAD="$SHIM" perun "$@" >out 2>err)
		rc=$?
		test_fault_snapshot work >after
		runs=$((runs + 1))
		if [ $rc -gt 125 ]; then
			echo "$name, allocation $i of $n: died (exit $rc)"; cat work/err; return 1
		elif [ $rc -eq 0 ]; then
			cmp -s clean after ||
				{ echo "$name, allocation $i of $n: exit 0, not the store of a clean run"; diff clean after; return 1; }
		else
			failed=$((failed + 1))
			if [ $rc -ne 3 ]; then
				echo "$name, allocation $i of $n: exit $rc, not 3"; cat work/err; return 1
			fi
			if ! grep -qi "\(out of\|not enough\|cannot allocate\) memory" work/err ||
				[ "$(wc -l <work/err)" -gt "$lines" ]; then
				echo "$name, allocation $i of $n: no clear error"; cat work/err; return 1
			fi
			if ! cmp -s before after; then
				echo "$name, allocation $i of $n: the store changed"; diff before after; return 1
			fi
		fi
		test_fault_no_partial_profile "$name, allocation $i of $n" || return 1
		i=$((i + k))
	done
	say "$name: $runs of $n allocations failed (every ${k}th), $failed with an error"
}

test_expect_success 'add: failed allocations' '
	scratch= lines=2 && sweep add add .perun/jobs/b.perf
'

test_expect_success 'rm: failed allocations' '
	scratch= lines=2 && sweep rm rm 0@i
'

test_expect_success 'config set: failed allocations' '
	scratch= lines=1 && sweep config config --local set format.sort_profiles_by cmd
'

test_expect_success 'run matrix (time on true): failed allocations' '
	scratch=1 lines=3 && sweep matrix run matrix
'

# status rebuilds its cache of the pending profiles (.perun/jobs/.index)
# when that is missing, as here; log reads every version's index.
test_expect_success 'status: failed allocations' '
	rm -f base/.perun/jobs/.index &&
	scratch=1 lines=2 && sweep status --no-pager status
'

test_expect_success 'log: failed allocations' '
	scratch= lines=2 && sweep log --no-pager log
'

# Every one of the first allocations, not a sample: start-up (options,
# the plugin path, loading the VCS plugin) crashed on a NULL there.
test_expect_success 'rm: each of the first 40 allocations' '
	scratch= lines=2 to=40 && sweep rm rm 0@i
'

test_done
