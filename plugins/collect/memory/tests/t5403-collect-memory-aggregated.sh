#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun collect ... memory (the default, aggregated profile) on programs
# with known allocations: exact counts, bytes, peaks and leaks per call
# stack, the live-bytes series, agreement with --per-event on threads and
# processes, and every view reading the profile.
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/plugins/collect/memory/tests/lib-memory.sh"

test_expect_success 'setup: test programs and a perun instance' '
	build alloc alloc.c 2>/dev/null &&
	build live live.c &&
	build threads threads.c -pthread &&
	build fork fork.c &&
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null)
'

# "subtype,function,line,count,bytes" per call site (summed over its
# stacks), allocations and frees only.
per_site() {
	table "$1" subtype uid:function uid:line count amount | grep -v "^live," |
	awk -F, "{ k = \$1 \",\" \$2 \",\" \$3; n[k] += \$4; b[k] += \$5 }
		END { for (k in n) print k \",\" n[k] \",\" b[k] }" | sort
}

test_expect_success 'one resource per stack and allocator: exact counts and bytes' '
	cd proj &&
	perun collect -c ../alloc memory >out &&
	p=$(newest_profile) &&
	alloc_sites >expect.raw &&
	sort expect.raw >expect &&
	per_site "$p" >actual &&
	test_cmp expect actual &&
	table "$p" subtype uid:function | grep -c "^malloc,leaky$" >stacks &&
	echo 2 >expect &&
	test_cmp expect stacks
'

test_expect_success 'the type map is per stack and allocator, not per event' '
	cd proj &&
	p=$(newest_profile) &&
	test "$(jq -r .header.type "$p")" = memory &&
	test "$(jq -r .header.units.memory "$p")" = B &&
	test "$(jq "[.resource_type_map[] | select(.subtype != \"live\")] | length" "$p")" = 24 &&
	jq -c "[.resource_type_map[] | select(.subtype != \"live\") | keys] | unique" "$p" >keys &&
	echo "[[\"count\",\"leaked\",\"live\",\"peak\",\"snapshot\",\"stack\",\"subtype\",\"trace\",\"type\",\"uid\"],[\"count\",\"live\",\"snapshot\",\"stack\",\"subtype\",\"trace\",\"type\",\"uid\"]]" >expect &&
	test_cmp expect keys
'

test_expect_success 'leaks and the heap peak in bytes per stack' '
	cd proj &&
	p=$(newest_profile) &&
	table "$p" subtype uid:line leaked peak | grep -v "^live," |
		awk -F, "\$3 != \"\" && (\$3 > 0 || \$4 > 0)" | sort >actual &&
	l() { line_of alloc.c "$1"; } &&
	cat >expect.raw <<-EOT &&
	malloc,$(l leak),33,0
	malloc,$(l leak),33,0
	malloc,$(l big1),0,10000
	malloc,$(l big2),0,20000
	EOT
	sort expect.raw >expect &&
	test_cmp expect actual
'

test_expect_success 'live bytes per snapshot: the changes, their running sums, the peak' '
	cd proj &&
	perun collect -c ../live memory -s 0.1 >/dev/null &&
	p=$(newest_profile) &&
	table "$p" subtype uid:line snapshot change live | grep "^live," |
		sort -t, -k3,3n >series &&
	cut -d, -f2,4,5 series >actual &&
	l() { line_of live.c "$1"; } &&
	cat >expect <<-EOT &&
	$(l first),1000,1000
	$(l second),2000,2000
	$(l first),-1000,0
	EOT
	test_cmp expect actual &&
	s1=$(sed -n 1p series | cut -d, -f3) s2=$(sed -n 2p series | cut -d, -f3) &&
	s3=$(sed -n 3p series | cut -d, -f3) &&
	test $((s2 - s1)) -ge 2 && test $((s3 - s2)) -ge 2 &&
	table "$p" subtype uid:line count amount peak leaked | grep "^malloc," | sort >actual &&
	cat >expect.raw <<-EOT &&
	malloc,$(l first),1,1000,1000,0
	malloc,$(l second),1,2000,2000,2000
	EOT
	sort expect.raw >expect &&
	test_cmp expect actual
'

# "subtype,function,line,count,bytes" of a per-event profile.
per_site_events() {
	table "$1" subtype uid:function uid:line amount |
	awk -F, "{ k = \$1 \",\" \$2 \",\" \$3; n[k]++; b[k] += \$4 }
		END { for (k in n) print k \",\" n[k] \",\" b[k] }" | sort
}

for prog in "threads 8 2000" fork; do
	test_expect_success "aggregated and per-event agree: $prog" '
		cd proj &&
		set -- '"$prog"' && name=$1 && shift &&
		perun collect -c ../$name -a "$*" memory >/dev/null &&
		per_site "$(newest_profile)" >aggregated &&
		perun collect -c ../$name -a "$*" memory --per-event >/dev/null &&
		per_site_events "$(newest_profile)" >per-event &&
		test -s aggregated &&
		test_cmp per-event aggregated
	'
done

test_expect_success 'every view reads the aggregated profile' '
	cd proj &&
	perun collect -c ../alloc memory >/dev/null &&
	p=$(newest_profile) &&
	perun show "$p" flamegraph -o bytes.svg &&
	perun show "$p" flamegraph --of count -o calls.svg &&
	test_grep "<svg" bytes.svg && test_grep "<svg" calls.svg &&
	perun show "$p" folded --of count | grep "leaky" | cut -d" " -f2 >leaky &&
	printf "1\n1\n" >expect &&
	test_cmp expect leaky &&
	perun show "$p" folded | grep "~$(line_of alloc.c big2) " | cut -d" " -f2 >big &&
	echo 20000 >expect &&
	test_cmp expect big &&
	perun show "$p" pprof -o p.pb &&
	perun show "$p" chrome -o c.json &&
	perun show "$p" tableof resources >table &&
	perun show "$p" flow sum --of change --through snapshot --by uid -f flow.html &&
	perun show "$p" bars sum --of amount --per snapshot --by subtype -f bars.html &&
	perun show "$p" scatter --of live --per snapshot -f live &&
	perun show "$p" scatter --of count --per snapshot -f count
'

test_expect_success 'every check method reads two aggregated profiles' '
	cd proj &&
	perun collect -c ../threads -a "2 100" memory >/dev/null &&
	a=$(newest_profile) &&
	perun collect -c ../threads -a "2 400" memory >/dev/null &&
	b=$(newest_profile) &&
	cp .perun/local.yml local.yml.orig &&
	for m in aat bmoe cpd fast int loc lreg preg; do
		cp local.yml.orig .perun/local.yml &&
		printf "degradation:\n  strategies:\n    - method: %s\n" $m >>.perun/local.yml &&
		perun check profiles "$a" "$b" >check.$m &&
		test_grep "4.0x: memory Degradation" check.$m || return 1
	done &&
	cp local.yml.orig .perun/local.yml
'

test_expect_success '--sample needs --per-event, and is 1 or more' '
	cd proj &&
	test_exit_code 2 perun collect -c ../alloc memory --sample 2 2>err &&
	test_grep "give --per-event too" err &&
	test_exit_code 2 perun collect -c ../alloc memory --per-event --sample 0 2>err &&
	test_grep "option .--sample. must be 1 or more" err
'

test_expect_success '--per-event --sample 2 keeps every second call' '
	cd proj &&
	perun collect -c ../threads -a "1 100" memory --per-event --sample 2 >/dev/null &&
	table "$(newest_profile)" subtype uid:function | grep -c ",worker$" >n &&
	echo 100 >expect &&
	test_cmp expect n
'

test_done
