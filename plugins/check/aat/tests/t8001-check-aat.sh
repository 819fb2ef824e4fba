#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# aat (average amount threshold): the exact averages and ratios on the
# project's own planted pair and small profiles, bad input, and (where
# ../shared is) the verdicts upstream's tests/test_degradations.py expects
# on Python Perun's degradation profiles.
. "$srcdir/tests/test-lib.sh"

test_fixtures
own="$FIXTURES/check"
d="$TESTDATA/degradation_profiles"

# "location result from to" of every reported change, as JSON lines.
verdicts() {
	jq -r '.changes[] | [.location, .result, .from, .to, .method] | join("|")'
}

# Upstream's verdicts: the core's weighing (t2007) is off.
test_expect_success 'setup' '
	git init -q proj && (cd proj && git commit -q --allow-empty -m root &&
	perun init >/dev/null &&
	perun config --local set degradation.noise.enabled false &&
	perun config --local set degradation.strategies "[{method: aat}]")
'

test_expect_success 'the planted pair: each change at its rate, both ways' '
	(cd proj && perun check profiles "$own/single-baseline.perf" "$own/single-target.perf" \
		--format json >out.json &&
	 verdicts <out.json >actual &&
	 cat >expect <<-EOF &&
	list_destroy(list*)|Optimization|800.0ms|100.0ms|aat
	list_insert(list*, int)|Degradation|1.0ms|2.0ms|aat
	list_search(list*, int)|Degradation|300.0ms|192000.0ms|aat
	EOF
	 test_cmp expect actual &&
	 jq -e "[.changes[] | .rate] == [0.125, 2.0, 640.0] and .changes[1].effect_size == 1.0" out.json &&
	 perun check profiles "$own/single-target.perf" "$own/single-baseline.perf" \
		--format json | verdicts >back &&
	 cat >expect <<-EOF &&
	list_destroy(list*)|Degradation|100.0ms|800.0ms|aat
	list_insert(list*, int)|Optimization|2.0ms|1.0ms|aat
	list_search(list*, int)|Optimization|192000.0ms|300.0ms|aat
	EOF
	 test_cmp expect back)
'

test_expect_success 'all amounts zero, or the same profile twice: nothing reported' '
	(cd proj && perun check profiles "$FIXTURES/time/time-zero.perf" "$FIXTURES/time/time-zero.perf" \
		--format json >out.json &&
	 jq -e ".pairs[0].verdicts > 0 and (.changes | length) == 0" out.json &&
	 perun check profiles "$own/single-target.perf" "$own/single-target.perf" >out &&
	 test_grep "^no changes found$" out)
'

test_expect_shared 'degradated -> quad: Degradation (upstream: AAT detects it)' '
	(cd proj && perun check profiles "$d/linear_base_degradated.perf" "$d/quad_base.perf" \
		--format json >out.json &&
	 verdicts <out.json >actual &&
	 cat >expect <<-EOF &&
	SLList_destroy(SLList*)|Optimization|740.0ms|93.0ms|aat
	SLList_insert(SLList*, int)|Degradation|1.0ms|2.0ms|aat
	SLList_search(SLList*, int)|Degradation|293.0ms|191797.0ms|aat
	EOF
	 test_cmp expect actual &&
	 jq -e ".changes[1].rate == 2.0 and .changes[1].effect_size == 1.0" out.json)
'

test_expect_shared 'quad -> degradated: Optimization (upstream: AAT detects it)' '
	(cd proj && perun check profiles "$d/quad_base.perf" "$d/linear_base_degradated.perf" \
		--format json | verdicts >actual &&
	 cat >expect <<-EOF &&
	SLList_destroy(SLList*)|Degradation|93.0ms|740.0ms|aat
	SLList_insert(SLList*, int)|Optimization|2.0ms|1.0ms|aat
	SLList_search(SLList*, int)|Optimization|191797.0ms|293.0ms|aat
	EOF
	 test_cmp expect actual)
'

test_expect_shared 'all amounts zero: NoChange for every uid, nothing reported' '
	(cd proj && perun check profiles "$d/zero.perf" "$d/zero.perf" --format json >out.json &&
	 jq -e ".pairs[0].verdicts > 0 and (.changes | length) == 0" out.json)
'

test_expect_shared 'the same profile twice: no change' '
	(cd proj && perun check profiles "$d/quad_base.perf" "$d/quad_base.perf" >out &&
	 test_grep "^no changes found$" out)
'

# prof <name> <amounts of f> <amounts of g>: a small time profile.
prof() {
	cat >"$1" <<-EOF
	{"header": {"type": "time", "cmd": "c", "workload": "w", "units": {"time": "s"}},
	 "collector_info": {"name": "time", "params": {}}, "postprocessors": [],
	 "resources": {"f#0": {"amount": [$2]}, "g#0": {"amount": [$3]}},
	 "resource_type_map": {"f#0": {"uid": "f", "type": "time"}, "g#0": {"uid": "g", "type": "time"}},
	 "models": []}
	EOF
}

test_expect_success 'thresholds: ratio 2 degrades, 0.5 optimizes; effect size and its 95% half-width (two standard errors)' '
	(cd proj && prof b.perf "1, 2, 3" "10, 10" && prof t.perf "4, 4, 4" "5, 5.5" &&
	 perun check profiles b.perf t.perf --format json >out.json &&
	 jq -r ".verdicts[] | [.location, .result, .from, .to, .rate, .effect_size,
		(.noise * 1000 | round / 1000)] | join(\"|\")" out.json >actual &&
	 cat >expect <<-EOF &&
	f|Degradation|2.0s|4.0s|2|1|0.577
	g|NoChange|10.0s|5.25s|0.525|-0.475|0.05
	EOF
	 test_cmp expect actual &&
	 prof t2.perf "3.9999, 4, 4" "5, 5" &&
	 perun check profiles b.perf t2.perf --format json >out2.json &&
	 jq -e "[.verdicts[].result] == [\"NoChange\", \"Optimization\"]" out2.json)
'

test_expect_success 'a non-numeric amount is bad input (exit 2), store untouched' '
	(cd proj &&
	 jq ".resources |= with_entries(.value.amount |= map(\"x\"))" "$own/single-target.perf" >bad.perf &&
	 store_snapshot >before &&
	 test_exit_code 2 perun check profiles "$own/single-target.perf" bad.perf 2>err &&
	 test_grep "check method .aat.: target: resource .* has a non-numeric amount" err &&
	 store_snapshot >after && test_cmp before after)
'

# sized <name> <scale> <amounts per type...>: uid f in a type per
# argument, the first half of the types at workload 1000, the rest 3000.
sized() {
	name=$1 scale=$2 && shift 2 && n=$# && i=0 && res= && map=
	for a in "$@"; do
		size=$((i < n / 2 ? 1000 : 3000))
		[ $n = 3 ] && size=1000
		res="$res${res:+, }\"f#$i\": {\"amount\": [$a]}"
		map="$map${map:+, }\"f#$i\": {\"uid\": \"f\", \"type\": \"time\", \"workload\": $size}"
		i=$((i + 1))
	done
	jq ".resources |= map_values(.amount |= map(. * $scale))" >"$name" <<-EOF
	{"header": {"type": "time", "cmd": "c", "workload": "w", "units": {"time": "s"}},
	 "collector_info": {"name": "time", "params": {}}, "postprocessors": [],
	 "resources": {$res}, "resource_type_map": {$map}, "models": []}
	EOF
}

test_expect_success 'noise: the spread within each workload, not between the sizes' '
	(cd proj && sized b2.perf 1 "1.0, 1.1" "10.0, 10.2" && sized t2.perf 1.1 "1.0, 1.1" "10.0, 10.2" &&
	 perun config --local set degradation.noise.enabled false &&
	 perun check profiles b2.perf t2.perf --format json >out.json &&
	 perun config --local set degradation.noise.enabled true &&
	 test "$(jq -r ".verdicts[0] | [.effect_size, .noise] | map(. * 1000 | round) |
		join(\" \")" out.json)" = "100 30")
'

test_expect_success 'noise: the spread between collections (rounds) of one workload' '
	(cd proj && sized b3.perf 1 "1, 1" "1.2, 1.2" "0.8, 0.8" &&
	 perun check profiles b3.perf b3.perf --format json >out.json &&
	 test "$(jq -r ".verdicts[0].noise * 1000 | round" out.json)" = 327)
'

test_expect_success 'noise: sizes of one amount each have none (their spread is the design)' '
	(cd proj && sized b4.perf 1 "1.0" "10.0" && sized t4.perf 1.1 "1.0" "10.0" &&
	 perun check profiles b4.perf t4.perf --format json >out.json &&
	 jq -e ".verdicts[0] | .noise == null and (.effect_size * 1000 | round) == 100" out.json)
'

test_done
