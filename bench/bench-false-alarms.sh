#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-false-alarms.sh [builddir] - found and false-alarm counts of every
# check method on a real, measured history (issue 22).
#
# false-alarms/gen-history.py commits a small C program of five functions
# (hash, xorshift, modsum, lcg, fold; ./<f> N runs one, ./all N every one)
# in 28 commits: 14 that leave the machine code as it was (a comment, a
# renamed local, a README edit; the generator compares objdump -d of every
# commit with its parent's and stops when it differs) between planted
# changes of one function each: xorshift +30%, hash 2x slower, modsum +10%,
# lcg O(n) -> O(n^2), fold 3x faster, then xorshift +3% a commit for eight
# commits.  Every commit is profiled on this machine, as it is, noise and
# all: perun run matrix (time collector over three sizes with repetitions,
# regression_analysis per size; one profile per command) and perun run job
# (the trace collector, eBPF, on ./all: per-call times of the five
# functions).  Then, per method, 'perun check all' over the history and
# the gate 'perun check head --fail-on degradation' at every commit, and
# false-alarms/classify.py prints per method how many planted changes were
# found at their commit and function, how many alarms were raised where
# nothing changed, and at which identical commits the gate fails.
# Asserts nothing; prints the tables and the wall time.
#
#   FA_SIZES="1000 3000 1000"  min, max, step of N (a run lasts ~0.05 s per 1000)
#   FA_COLLECTOR=time          or instructions: counted by Valgrind, one
#                              run a version (FA_REPEAT=1), no trace.  At
#                              sizes 1000 3000 1000, load 3-7: the default
#                              gate failed at 0 of 14 identical commits
#                              and at 4 of 4 planted degradations, and
#                              check all found all five planted changes of
#                              10% or more (not the +3% creep); 1020 s
#   FA_REPEAT=3 FA_WARMUP=1    time collector repetitions and warm-up runs
#   FA_TRACE_SIZE=2000         N of the traced run of ./all (one run a commit)
#   FA_TRACE=auto|no           the trace collector (auto: when it runs here)
#   FA_METHODS="aat bmoe ..."  methods checked (default all nine)
#   FA_ROUNDS=3                A/B: each commit profiled with its parent in
#                              one perun run --rounds 3 (interleaved), so
#                              the gate compares the two under one drift
#   FA_KEEP=<dir>              keep the profiled project there, to check again
#   FA_PROJECT=<dir>           check a kept project again (no collection)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
builddir=$(cd "${1:-.}" && pwd)
bench_setup bench-false-alarms "$builddir"
t0=$(now_ns)
set -- ${FA_SIZES:-1000 3000 1000}
methods=${FA_METHODS:-default aat bmoe cpd eto fast int loc lreg preg}

if [ -n "${FA_PROJECT:-}" ]; then
	# Check a kept project again: its store and history, not a new one.
	rm -rf "$work/proj" && cp -a "$FA_PROJECT/proj" "$work/proj" &&
		cp "$FA_PROJECT/history.tsv" "$work/"
	cd "$work/proj"
else
	python3 "$here/false-alarms/gen-history.py" "$work/proj" "$1"
	collector_params="{repeat: ${FA_REPEAT:-3}, warmup: ${FA_WARMUP:-1}}"
	[ "${FA_COLLECTOR:-time}" = instructions ] && collector_params="{repeat: ${FA_REPEAT:-1}}"
	cat >.perun/local.yml <<-EOF
	vcs:
	  type: git
	  url: ../
	cmds: [./hash, ./xorshift, ./modsum, ./lcg, ./fold]
	workloads: [sizes]
	generators:
	  workload:
	    - {id: sizes, type: integer, min_range: $1, max_range: $2, step: $3}
	collectors:
	  - name: ${FA_COLLECTOR:-time}
	    params: $collector_params
	postprocessors:
	  - name: regression_analysis
	    params: {method: full, per_key: workload}
	execute:
	  pre_run: [make -s]
	profiles:
	  register_after_run: true
	EOF
	# The trace in a run of its own: the time collector's max-rss of a
	# child follows the size of the perun that starts it (t2100).  auto:
	# when it fails at the first commit (no eBPF here), time profiles only.
	trace=${FA_TRACE:-auto}
	[ "${FA_COLLECTOR:-time}" = instructions ] && trace=${FA_TRACE:-no}
	printf '# load average: %s; trace: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$trace"
	n=$(wc -l <../history.tsv) i=0
	while IFS="$(printf '\t')" read -r sha kind fn dir factor subject; do
		i=$((i + 1)) s=$(now_ns)
		# A/B: the parent again beside the commit, in alternating rounds
		versions="-m $sha"
		[ "${FA_ROUNDS:-1}" -gt 1 ] && [ $i -gt 1 ] &&
			versions="-m $sha~1 -m $sha --rounds $FA_ROUNDS"
		"$PERUN" run $versions matrix </dev/null >/dev/null 2>"$work/err" ||
			{ cat "$work/err" >&2; exit 3; }
		if [ "$trace" != no ] && ! "$PERUN" run $versions job -b ./all \
			-w "${FA_TRACE_SIZE:-2000}" -c trace -cp trace \
			'{func: [hash, xorshift, modsum, lcg, fold]}' </dev/null >/dev/null 2>"$work/err"; then
			[ "$trace" = auto ] && [ $i = 1 ] || { cat "$work/err" >&2; exit 3; }
			echo "# the trace collector cannot run here: time profiles only" >&2
			trace=no
		fi
		[ "$trace" = auto ] && trace=yes
		# the load of the others on the 2 cores: what the wall times felt
		printf '# [%2d/%d] %.7s %-9s %-32s %5.1f s  load %s\n' $i "$n" "$sha" "$kind" \
			"$subject" "$(echo "($(now_ns) - $s) / 1000000000" | bc -l)" \
			"$(cut -d' ' -f1 /proc/loadavg)"
	done <../history.tsv
	if [ -n "${FA_KEEP:-}" ]; then
		mkdir -p "$FA_KEEP" && rm -rf "$FA_KEEP/proj" &&
			cp -a "$work/proj" "$work/history.tsv" "$FA_KEEP/"
	fi
fi
t1=$(now_ns)

# Per method: its default configuration (no options), on the profiles it
# can read (eto refuses profiles without exclusive times: traces only); the
# rule 'none' after it keeps the shared rules (aat) from joining in.
# "default" is perun's own default: no local rules, the shared ones.
mkdir -p "$work/out"
for m in $methods; do
	rules="[{method: $m}, {method: none}]"
	[ "$m" = eto ] && rules="[{collector: trace, method: eto}, {method: none}]"
	[ "$m" = default ] && rules="[]"
	[ "$m" = default ] || [ -f "$PERUN_PLUGIN_PATH/check/$m.so" ] ||
		{ echo "# $m: not built" >&2; continue; }
	"$PERUN" config --local set degradation.strategies "$rules" >/dev/null
	"$PERUN" check --format json all >"$work/out/all-$m.json" 2>"$work/err" || {
		echo "# $m: check all failed: $(tail -1 "$work/err")" >&2
		echo '{"pairs": [], "changes": []}' >"$work/out/all-$m.json"
	}
	: >"$work/out/gate-$m.tsv"
	while IFS="$(printf '\t')" read -r sha _; do
		rc=0
		"$PERUN" check head --fail-on degradation "$sha" </dev/null >/dev/null 2>&1 || rc=$?
		echo "$sha $rc" >>"$work/out/gate-$m.tsv"
	done <../history.tsv
	done_methods="${done_methods:-} $m"
done
t2=$(now_ns)

echo
python3 "$here/false-alarms/classify.py" ../history.tsv "$work/out" $done_methods
echo
[ -n "${FA_KEEP:-}" ] && cp -a "$work/out" "$FA_KEEP/"
[ -z "${FA_PROJECT:-}" ] &&
	printf '# %s collector %s, sizes %s, trace: %s at %s, %s round(s)\n' \
		"${FA_COLLECTOR:-time}" "$collector_params" "$*" "$trace" "${FA_TRACE_SIZE:-2000}" \
		"${FA_ROUNDS:-1}"
printf '# load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
	printf "# wall: %.0f s (profiling %.0f s, checking %.0f s)\n", (c - a) / 1e9, (b - a) / 1e9, (c - b) / 1e9 }'
