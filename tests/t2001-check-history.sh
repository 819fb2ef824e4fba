#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun check head|all over a git history with registered profiles: pairs
# with the direct parents only, Perun's graph, changes saved per version,
# the series of each configuration given to compare_series methods (a
# probe plugin reports them), --fail-on, and --compute-missing.
. "$srcdir/tests/test-lib.sh"

# The project's own profiles of one configuration (tests/fixtures): only
# list_insert() changes (14 -> 1 ms) from version one to two.
test_fixtures
d="$FIXTURES/check"
probe="$TEST_BUILDDIR/tests/check/.libs/series_probe.so"

# add <profile>: register it at HEAD.
add() {
	h=$(git rev-parse HEAD) &&
	jq --arg h "$h" '.origin = $h' "$1" >".perun/jobs/$(basename "$1")" &&
	perun add ".perun/jobs/$(basename "$1")" >/dev/null
}

changes_of() {
	f=.perun/objects/$(echo "$1" | cut -c1-2)/$(echo "$1" | cut -c3-).changes
	cat "$f"
}

test_expect_success 'setup: four versions, profiles of one configuration at 1, 2 and 4' '
	git init -q proj && (cd proj && perun init >/dev/null &&
	git commit -q --allow-empty -m "one" && add "$d/single-before.perf" &&
	git commit -q --allow-empty -m "two" && add "$d/single-baseline.perf" &&
	git commit -q --allow-empty -m "three" &&
	git commit -q --allow-empty -m "four" && add "$d/single-target.perf" &&
	git rev-parse HEAD~3 HEAD~2 HEAD~1 HEAD >../shas)
'

test_expect_success 'check head compares with the direct parents only' '
	(cd proj && perun check head >out &&
	 printf "[Checking version %s]\n\nno baseline profiles for %.7s: nothing compared\n" \
		$(git rev-parse HEAD) $(git rev-parse HEAD) >expect &&
	 test_cmp expect out &&
	 perun check head HEAD~2 --format json >two.json &&
	 jq -e "(.pairs | length) == 1 and .pairs[0].target_minor == \"$(sed -n 2p ../shas)\" and
		[.changes[] | [.location, .result]] == [[\"list_insert(list*, int)\", \"Optimization\"]]" two.json &&
	 changes_of $(sed -n 2p ../shas) >saved &&
	 test_grep "^list_insert(list\*, int) PerformanceChange.Optimization mixed 14.0ms 1.0ms 0.07142857142857142 no 0.0 0.0 $(sed -n 1p ../shas) target workload.in$" saved)
'

test_expect_success 'check all prints the history graph with the changes of each version' '
	(cd proj && perun -v check all >out 2>err &&
	 echo "perun: checking 4 versions; this might take a while" >expect &&
	 test_cmp expect err &&
	 s1=$(sed -n 1p ../shas | cut -c1-6) && s2=$(sed -n 2p ../shas | cut -c1-6) &&
	 s3=$(sed -n 3p ../shas | cut -c1-6) && s4=$(sed -n 4p ../shas | cut -c1-6) &&
	 cat >expect <<-EOF &&
	[Checking whole history]

	[History]

	* $s4: four | 0 changes
	|  
	|  no changes found
	* $s3: three | 0 changes
	|  
	|  no changes found
	* $s2: two | 1 change | +
	|  
	|  at list_insert(list*, int):
	|  └ 0.07x: mixed Optimization from: 14.0ms -> to: 1.0ms [calls 1 -> 1, effect size -0.929] (\$ target workload.in)
	|  
	* $s1: one | 0 changes
	  no changes found

	1 change | +
	1 optimization(+), 0 degradations(-)
	EOF
	 test_cmp expect out)
'

test_expect_success 'by default check all puts the findings first, a line per version' '
	(cd proj && perun check all >out 2>/dev/null &&
	 s1=$(sed -n 1p ../shas | cut -c1-6) && s2=$(sed -n 2p ../shas | cut -c1-6) &&
	 s3=$(sed -n 3p ../shas | cut -c1-6) && s4=$(sed -n 4p ../shas | cut -c1-6) &&
	 cat >expect <<-EOF &&
	[Checking whole history]

	[Findings]

	version ${s2}X:
	at list_insert(list*, int):
	└ 0.07x: mixed Optimization from: 14.0ms -> to: 1.0ms [calls 1 -> 1, effect size -0.929] (\$ target workload.in)

	[History]

	* $s4: four | 0 changes
	|  
	* $s3: three | 0 changes
	|  
	* $s2: two | 1 change | +
	|  
	* $s1: one | 0 changes

	1 change | +
	1 optimization(+), 0 degradations(-)
	EOF
	 sed "s/^version ${s2}X:/version $(sed -n 2p ../shas | cut -c1-7):/" expect >expect7 &&
	 test_cmp expect7 out)
'

test_expect_success 'a merge draws its second parent' '
	git init -q merge && (cd merge && perun init >/dev/null &&
	 git commit -q --allow-empty -m base && git checkout -q -b side &&
	 git commit -q --allow-empty -m side && git checkout -q master &&
	 git commit -q --allow-empty -m main && git merge -q --no-edit side &&
	 perun check all >out &&
	 test_grep "^\* [0-9a-f]\{6\}: Merge branch .side. | 0 changes$" out &&
	 test_grep "^|\\\\ \$" out && test_grep "^| \* [0-9a-f]\{6\}: side | 0 changes$" out)
'

# The cache frees the profiles of versions two steps back; a branch's base
# is needed again when the walk comes to the branch.
test_expect_success 'check all of a long history with a branch: each version as check head sees it' '
	git init -q long && (cd long && perun init >/dev/null &&
	 git commit -q --allow-empty -m v1 && add "$d/single-baseline.perf" &&
	 git checkout -q -b side &&
	 git commit -q --allow-empty -m s1 && add "$d/single-target.perf" &&
	 git checkout -q master &&
	 for v in v2 v3 v4 v5; do
		git commit -q --allow-empty -m $v && add "$d/single-before.perf" || return 1
	 done &&
	 git merge -q --no-edit side && add "$d/single-target.perf" &&
	 perun check all --format json >all.json &&
	 git rev-list HEAD >revs && test $(wc -l <revs) = 7 &&
	 while read rev; do
		perun check head $rev --format json >head.json &&
		jq -c --arg v $rev ".pairs[] | select(.target_minor == \$v) | [.baseline, .target]" \
			all.json | sort >from-all &&
		jq -c ".pairs[] | [.baseline, .target]" head.json | sort >from-head &&
		test_cmp from-head from-all &&
		jq -c --arg v $rev ".pairs as \$p | [.changes[] |
			select(\$p[.pair].target_minor == \$v) | [.location, .result, .from, .to]] |
			sort" all.json >changes-all &&
		jq -c "[.changes[] | [.location, .result, .from, .to]] | sort" head.json \
			>changes-head &&
		test_cmp changes-head changes-all || return 1
	 done <revs &&
	 jq -e "(.pairs | length) == 7 and (.changes | length) > 3" all.json)
'

test_expect_success 'compare_series gets each configuration oldest first, one per version' '
	(cd proj && mkdir -p ../probe/check && ln -sf "$probe" ../probe/check/series_probe.so &&
	 perun config --local set degradation.strategies "[{method: series_probe}]" &&
	 PERUN_PLUGIN_PATH="$PERUN_PLUGIN_PATH:$(cd ../probe && pwd)" \
		perun check all --format json >out.json &&
	 v=$(cut -c1-7 ../shas | sed -n "1p;2p;4p" | paste -sd, -) &&
	 jq -e --arg v "$v" "[.changes[] | select(.method == \"series_probe\")] as \$s |
		(\$s | length) == 1 and \$s[0].type == \$v and \$s[0].rate == 3 and
		\$s[0].location == \"target workload.in\" and \$s[0].effect_size == 0.5 and
		\$s[0].noise == 0.25 and \$s[0].version == \"$(sed -n 4p ../shas)\" and
		\$s[0].source == \"$(sed -n 2p ../shas)\"" out.json &&
	 changes_of $(sed -n 4p ../shas) >saved &&
	 test_grep "^target workload.in PerformanceChange.Degradation $v " saved)
'

test_expect_success 'series changes: reported, gated by check all and check head' '
	(cd proj && export PERUN_PLUGIN_PATH="$PERUN_PLUGIN_PATH:$(cd ../probe && pwd)" &&
	 test_exit_code 1 perun check all --fail-on degradation >out &&
	 test_grep "^\[Changes over the history of each configuration\]$" out &&
	 test_grep "Degradation from: .* \[effect size 0.5, noise 0.25, since [0-9a-f]\{7\}\]" out &&
	 test_exit_code 0 perun check all >/dev/null &&
	 test_exit_code 1 perun check head --fail-on maybe >out &&
	 test_grep "since $(git rev-parse --short=7 HEAD)" out &&
	 perun config --local set degradation.recent_versions 1 &&
	 test_exit_code 1 perun check head --fail-on maybe >/dev/null &&
	 test_exit_code 0 perun check head --fail-on maybe HEAD~1 >/dev/null)
'

test_expect_success 'a failing method exits 3, names itself and saves nothing' '
	(cd proj && export PERUN_PLUGIN_PATH="$PERUN_PLUGIN_PATH:$(cd ../probe && pwd)" &&
	 perun config --local set degradation.fail true &&
	 store_snapshot >before &&
	 test_exit_code 3 perun check all >/dev/null 2>err &&
	 test_grep "^perun: check method .series_probe.: failing as degradation.fail asks$" err &&
	 store_snapshot >after && test_cmp before after &&
	 perun config --local set degradation.fail false)
'

test_expect_success 'a broken index fails the check (exit 2) and saves nothing' '
	(cd proj && perun config --local set degradation.strategies "[{method: aat}]" &&
	 s3=$(sed -n 3p ../shas) &&
	 mkdir -p .perun/objects/$(echo $s3 | cut -c1-2) &&
	 printf "pidxbroken" >.perun/objects/$(echo $s3 | cut -c1-2)/$(echo $s3 | cut -c3-) &&
	 store_snapshot >before &&
	 test_must_fail perun check all 2>err >/dev/null &&
	 test_grep "perun: .*" err &&
	 store_snapshot >after && test_cmp before after &&
	 rm .perun/objects/$(echo $s3 | cut -c1-2)/$(echo $s3 | cut -c3-))
'

test_expect_success 'a damaged baseline fails check head as reading it does, store unchanged' '
	git init -q damaged && (cd damaged && perun init >/dev/null &&
	 git commit -q --allow-empty -m "one" && add "$d/single-before.perf" &&
	 one=$(git rev-parse HEAD | cut -c3-) &&
	 obj=$(find .perun/objects -type f | grep -v "/$one") &&
	 git commit -q --allow-empty -m "two" && add "$d/single-baseline.perf" &&
	 sha=$(basename "$(dirname "$obj")")$(basename "$obj") &&
	 chmod u+w "$obj" && printf "x" | dd of="$obj" bs=1 seek=8 conv=notrunc 2>/dev/null &&
	 test_must_fail perun show -m HEAD~1 0@i tableof resources 2>expect &&
	 test_grep "^perun: malformed profile object $sha: " expect &&
	 store_snapshot >before &&
	 test_must_fail perun check head >out 2>err &&
	 test_cmp expect err &&
	 store_snapshot >after && test_cmp before after)
'

test_expect_success 'a bad revision is a usage error' '
	(cd proj && test_exit_code 2 perun check head no-such-rev 2>err && test -s err &&
	 test_exit_code 2 perun check all HEAD extra 2>err &&
	 test_grep "unexpected argument .extra." err)
'

# --compute-missing needs a collector: time.
if [ -f "$TEST_BUILDDIR/stage/plugins/collect/time.so" ]; then
test_expect_success '--compute-missing collects versions without profiles by the job matrix' '
	git init -q fresh && (cd fresh && perun init >/dev/null &&
	 git commit -q --allow-empty -m one && git commit -q --allow-empty -m two &&
	 cat >>.perun/local.yml <<-EOF &&
	cmds: ["true"]
	collectors:
	  - name: time
	    params: {repeat: 1, warmup: 0}
	EOF
	 perun check --compute-missing head --format json >out.json 2>err &&
	 test_grep "precollected 2 profiles at 2 versions" err &&
	 jq -e "(.pairs | length) == 1" out.json &&
	 perun status --short >st && test_grep "^1 tracked profile" st &&
	 perun check --compute-missing head --format json >again.json 2>err2 &&
	 ! test_grep precollected err2 &&
	 git commit -q --allow-empty -m three &&
	 perun config --local set degradation.collect_before_check true &&
	 perun check head >out3 2>err3 &&
	 test_grep "precollected 1 profile at 1 version" err3)
'
else
	say "skipping --compute-missing: the time collector is not built"
fi

test_done
