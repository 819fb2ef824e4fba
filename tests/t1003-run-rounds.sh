#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun run --rounds N: the versions visited N times in alternating order,
# one profile per job and version gathering every round, marked with the
# run; perun check pairs a target with its baseline of the same run.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null || test_skip_all "jq is needed to read the profiles"

test_expect_success 'setup: two versions, one job, pre_run logging the visits' '
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null &&
	 printf "visits\ncount\n" >.git/info/exclude &&
	 cat >.perun/local.yml <<-EOC
	vcs:
	  type: git
	  url: ../
	cmds: [/bin/true]
	workloads: [a]
	collectors:
	  - name: time
	    params: {repeat: 2, warmup: 0}
	execute:
	  pre_run: ["git log -1 --format=%s >>visits"]
	EOC
	)
'

# amounts <profile>: how many amounts its resources hold (a time profile
# stores them by uid, an array of amounts each).
amounts() {
	jq "[.resources[] | .amount | length] | add" "$1"
}

test_expect_success 'one round: one profile per version' '
	cd proj &&
	perun run -m HEAD~1 -m HEAD matrix >out &&
	test_grep "^2 jobs run, 2 profiles stored$" out &&
	set -- .perun/jobs/*.perf && test $# = 2 &&
	amounts "$1" >../one &&
	test "$(jq -r ".header.interleaved_run // \"none\"" "$1")" = none &&
	mkdir ../once && i=0 &&
	for p in .perun/jobs/*.perf; do
		i=$((i + 1)) && mv "$p" ../once/once-$i.perf || return 1
	done
'

test_expect_success 'three rounds: A B, B A, A B; one profile per version of all rounds' '
	cd proj && rm -f visits &&
	perun run -m HEAD~1 -m HEAD --rounds 3 matrix >out &&
	test_grep "^6 jobs run, 2 profiles stored$" out &&
	printf "%s\n" "first version" "second version" "second version" \
		"first version" "first version" "second version" >../expect &&
	test_cmp ../expect visits &&
	set -- .perun/jobs/*.perf && test $# = 2 &&
	test "$(amounts "$1")" = $((3 * $(cat ../one))) &&
	test "$(amounts "$2")" = $((3 * $(cat ../one))) &&
	run=$(jq -r .header.interleaved_run "$1") && test -n "$run" &&
	test "$(jq -r .header.interleaved_run "$2")" = "$run"
'

test_expect_success 'check head compares the target with its baseline of the same run' '
	cd proj &&
	for p in ../once/*.perf .perun/jobs/*.perf; do
		perun add -m "$(jq -r .origin "$p")" "$p" >/dev/null || return 1
	done &&
	perun check --format json head >check.json &&
	test "$(jq ".pairs | length" check.json)" = 1 &&
	jq -r ".pairs[0].baseline" check.json >baseline &&
	test_must_fail grep once- baseline
'

test_expect_success 'profiled again alone, a version is still judged by its A/B pair' '
	cd proj &&
	jq -r ".pairs[0].target" check.json >ab-target &&
	sleep 1 && perun run -m HEAD --rounds 2 matrix >out &&
	test_grep "^2 jobs run, 1 profile stored$" out &&
	perun add -m HEAD .perun/jobs/*.perf >/dev/null &&
	perun check --format json head >check.json &&
	test "$(jq ".pairs | length" check.json)" = 1 &&
	jq -r ".pairs[0].target" check.json >target &&
	test_cmp ab-target target
'

test_expect_success 'bad --rounds: a usage error, nothing run or stored' '
	cd proj && rm -f .perun/jobs/*.perf visits &&
	for n in 0 -1 1001; do
		test_exit_code 2 perun run --rounds $n matrix >out 2>err &&
		test_grep "rounds $n: not between 1 and 1000" err || return 1
	done &&
	test_must_fail test -e visits &&
	test -z "$(ls .perun/jobs)"
'

test_expect_success 'a job failing in its last round keeps the rounds it had' '
	cd proj && rm -f .perun/jobs/*.perf count &&
	cat >../flaky <<-EOC &&
	#!/bin/sh
	n=\$((\$(cat count 2>/dev/null || echo 0) + 1)); echo \$n >count
	test \$n -lt 4
	EOC
	chmod +x ../flaky &&
	test_exit_code 3 perun run -m HEAD~1 -m HEAD --rounds 2 job -c time \
		-cp time "{repeat: 1, warmup: 0}" -b "$(cd .. && pwd)/flaky" >out 2>err &&
	test_grep "1 of 4 jobs failed" err &&
	test_grep "^4 jobs run, 2 profiles stored$" out &&
	for p in .perun/jobs/*.perf; do amounts "$p"; done | sort >counts &&
	one=$(cat ../one) &&
	printf "%s\n" $((one / 2)) $one | sort >expect &&
	test_cmp expect counts
'

# The shared rules judge the user time of a pair of one interleaved run
# with aat at a ratio of 1.05 (the noise weighing still applies), the
# other series and pairs across runs at Perun's 2.
result() {
	jq -r "[.verdicts[] | select(.location == \"/bin/true:$2\")] | .[0].result" "$1"
}

test_expect_success 'shared rules: user time at 1.05 within one A/B run, else at 2' '
	cd proj && rm -f .perun/jobs/*.perf &&
	perun run --rounds 2 job -c time -cp time "{repeat: 2, warmup: 0}" -b /bin/true \
		>/dev/null &&
	jq ".resources |= with_entries(.value.amount = [1, 1.01, 0.99, 1] |
		.value.order = [1, 2, 3, 4])" .perun/jobs/*.perf >../base.perf &&
	jq ".resources |= with_entries(.value.amount |= map(. * 1.5))" ../base.perf \
		>../target.perf &&
	perun check --format json profiles ../base.perf ../target.perf >ab.json &&
	test "$(result ab.json user)" = Degradation &&
	test "$(result ab.json real)" = NoChange &&
	for f in base target; do
		jq "del(.header.interleaved_run)" ../$f.perf >../$f-apart.perf || return 1
	done &&
	perun check --format json profiles ../base-apart.perf ../target-apart.perf >apart.json &&
	test "$(jq ".changes | length" apart.json)" = 0 &&
	test "$(result apart.json user)" = NoChange
'

test_expect_success 'aat refuses a threshold that is not a ratio above 1' '
	cd proj &&
	perun config --local set degradation.strategies \
		"[{method: aat, options: {threshold: 0.9}}]" >/dev/null &&
	test_must_fail perun check profiles ../base-apart.perf ../target-apart.perf \
		>out 2>err &&
	test_grep "threshold. must be a ratio above 1, not 0.9" err &&
	perun config --local set degradation.strategies "[]" >/dev/null
'

test_done
