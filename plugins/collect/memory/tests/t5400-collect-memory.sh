#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun collect ... memory --per-event on small C and C++ programs with known
# allocations: counts and bytes per call site, file:line, realloc chains,
# frees matched, leaks and the heap peak, Perun's options.
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/plugins/collect/memory/tests/lib-memory.sh"

test_expect_success 'setup: test programs and a perun instance' '
	build alloc alloc.c 2>/dev/null &&
	build snap snap.c &&
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null)
'

# "subtype,function,line,count,bytes" per call site of a profile.
per_site() {
	table "$1" subtype uid:function uid:line amount |
	awk -F, "{ k = \$1 \",\" \$2 \",\" \$3; n[k]++; b[k] += \$4 }
		END { for (k in n) print k \",\" n[k] \",\" b[k] }" | sort
}

test_expect_success 'every allocation and free, counted and summed per call site' '
	cd proj &&
	perun collect -c ../alloc memory --per-event >out 2>err &&
	test_grep "^Collected profile .*/\.perun/jobs/memory-.*\.perf$" out &&
	p=$(newest_profile) &&
	alloc_sites >expect.raw &&
	sort expect.raw >expect &&
	per_site "$p" >actual &&
	test_cmp expect actual
'

test_expect_success 'the profile is a Perun memory profile: header, units, sources' '
	cd proj &&
	p=$(newest_profile) &&
	test "$(jq -r .header.type "$p")" = memory &&
	test "$(jq -r .header.units.memory "$p")" = B &&
	test "$(jq -r .header.cmd "$p")" = ../alloc &&
	table "$p" uid:source | sort -u >sources &&
	echo "$progs/alloc.c" >expect &&
	test_cmp expect sources &&
	jq -c "[.resource_type_map[] | keys] | unique" "$p" >keys &&
	echo "[[\"allocation_order\",\"leaked\",\"peak\",\"snapshot\",\"subtype\",\"time\",\"trace\",\"type\",\"uid\"],[\"allocation_order\",\"snapshot\",\"subtype\",\"time\",\"trace\",\"type\",\"uid\"]]" >expect &&
	test_cmp expect keys
'

test_expect_success 'the trace of an allocation: its callers, innermost first' '
	cd proj &&
	p=$(newest_profile) &&
	table "$p" uid:function trace | grep "^leaky," | sort -u >traces &&
	leak=$(line_of alloc.c leak) &&
	call=$(grep -n "^	leaky(33);" "$progs/alloc.c" | cut -d: -f1 | head -n 1) &&
	second=$((call + 1)) &&
	cat >expect <<-EOT &&
	leaky,"leaky:$progs/alloc.c:$leak,main:$progs/alloc.c:$call"
	leaky,"leaky:$progs/alloc.c:$leak,main:$progs/alloc.c:$second"
	EOT
	test_cmp expect traces
'

test_expect_success 'a realloc chain: each step frees the address the previous one returned' '
	cd proj &&
	p=$(newest_profile) &&
	table "$p" subtype uid:line address >rows &&
	addr() { awk -F, -v s="$1" -v l="$2" "\$1 == s && \$2 == l { print \$3 }" rows; } &&
	test "$(addr free $(line_of alloc.c realloc1))" = "$(addr calloc $(line_of alloc.c calloc))" &&
	test "$(addr free $(line_of alloc.c realloc2))" = "$(addr realloc $(line_of alloc.c realloc1))" &&
	test "$(addr free $(line_of alloc.c free-q))" = "$(addr realloc $(line_of alloc.c realloc2))"
'

test_expect_success 'leaks: exactly the allocations never freed' '
	cd proj &&
	p=$(newest_profile) &&
	perun show "$p" tableof --format csv -h uid:function -h uid:line -h amount \
		-f leaked True resources | tail -n +2 >leaks &&
	printf "leaky,%s,33\nleaky,%s,33\n" $(line_of alloc.c leak) $(line_of alloc.c leak) >expect &&
	test_cmp expect leaks &&
	table "$p" subtype leaked | sort | uniq -c | sed "s/^ *//" >flags &&
	cat >expect <<-EOT &&
	1 aligned_alloc,False
	1 calloc,False
	20 free,
	1 memalign,False
	13 malloc,False
	2 malloc,True
	1 posix_memalign,False
	2 realloc,False
	1 valloc,False
	EOT
	sort expect >expect.sorted && sort flags >flags.sorted &&
	test_cmp expect.sorted flags.sorted
'

test_expect_success 'the heap peak: the allocations live at its moment' '
	cd proj &&
	p=$(newest_profile) &&
	perun show "$p" tableof --format csv -h uid:line -h amount -f peak True resources |
		tail -n +2 >peak &&
	printf "%s,10000\n%s,20000\n" $(line_of alloc.c big1) $(line_of alloc.c big2) >expect &&
	test_cmp expect peak
'

test_expect_success '--all keeps the allocator frame and the unreachable ones' '
	cd proj &&
	perun collect -c ../alloc memory --per-event --all >/dev/null &&
	p=$(newest_profile) &&
	table "$p" uid:function trace | grep "^leaky," | head -n 1 >row &&
	test_grep "^leaky,\"malloc:unreachable:0,leaky:$progs/alloc.c:$(line_of alloc.c leak),main:" row &&
	test_grep "__libc_start_main:unreachable:0" row &&
	test "$(table "$p" subtype | wc -l)" = 42
'

test_expect_success '--no-func and --no-source drop the allocations made there' '
	cd proj &&
	perun collect -c ../alloc memory --per-event --no-func leaky --no-func nothing >/dev/null &&
	p=$(newest_profile) &&
	table "$p" uid:function | sort -u >funcs &&
	echo main >expect &&
	test_cmp expect funcs &&
	perun collect -c ../alloc memory --per-event --no-source progs/alloc.c >/dev/null &&
	p=$(newest_profile) &&
	test "$(jq ".resources | length" "$p")" = 0 &&
	perun collect -c ../alloc memory --per-event --no-source other.c >/dev/null &&
	p=$(newest_profile) &&
	test "$(table "$p" subtype | wc -l)" = 42
'

test_expect_success '--max-depth 1 records the direct caller only' '
	cd proj &&
	perun collect -c ../alloc memory --per-event -d 1 >/dev/null &&
	p=$(newest_profile) &&
	table "$p" uid:function trace | grep "^leaky," | sort -u >traces &&
	echo "leaky,leaky:$progs/alloc.c:$(line_of alloc.c leak)" >expect &&
	test_cmp expect traces
'

test_expect_success 'the options are stored in the profile' '
	cd proj &&
	perun collect -c ../alloc memory --per-event -s 0.5 --no-func leaky -a >/dev/null &&
	p=$(newest_profile) &&
	jq -c ".collector_info" "$p" >info &&
	test_grep "\"name\":\"memory\"" info &&
	test_grep "\"sampling\":0.5" info &&
	test_grep "\"no_func\":\\[\"leaky\"\\]" info &&
	test_grep "\"all\":true" info
'

test_expect_success '--sampling: snapshots of that many seconds, numbered in time order' '
	cd proj &&
	perun collect -c ../snap memory --per-event -s 100 >/dev/null &&
	p=$(newest_profile) &&
	table "$p" snapshots time | sort -u >snaps &&
	echo "0,100.000000" >expect &&
	test_cmp expect snaps &&
	perun collect -c ../snap memory --per-event -s 0.1 >/dev/null &&
	p=$(newest_profile) &&
	first=$(table "$p" uid:line snapshots | grep "^$(line_of snap.c first)," | cut -d, -f2 | sort -u) &&
	second=$(table "$p" uid:line snapshots | grep "^$(line_of snap.c second)," | cut -d, -f2 | sort -u) &&
	test $(echo "$first" | wc -l) = 1 && test $(echo "$second" | wc -l) = 1 &&
	test $((second - first)) -ge 2 &&
	jq -r ".resource_type_map[] | select(.uid.line == $(line_of snap.c first)) | .time" "$p" |
		sort -u >time &&
	printf "%.6f\n" "0.$((first + 1))" >expect &&
	test_cmp expect time
'

# -O2 without tail calls (they leave no frame to attribute to) nor
# constant-propagated clones (they have other names).
for opt in -O0 "-O2 -fno-optimize-sibling-calls -fno-ipa-cp"; do
	test_expect_success "one call site through two callers at one depth ($opt): each keeps its caller" '
		"${CC:-cc}" -g '"$opt"' -o callers "$progs/callers.c" &&
		cd proj &&
		perun collect -c ../callers memory --per-event >/dev/null &&
		p=$(newest_profile) &&
		jq -r ".resource_type_map as \$m | .resources | to_entries[] |
			select(\$m[.key].subtype == \"malloc\") |
			\"\(\$m[.key].trace[0].function):\(\$m[.key].trace[0].line),\(\$m[.key].trace[1].function),\(\$m[.key].trace[2].function),\(.value.amount[0])\"" \
			"$p" | sort | uniq -c | sed "s/^ *//" | sort >actual &&
		leaf=leaf:$(line_of callers.c leaf) &&
		printf "100 $leaf,mid,via_a,10\n34 $leaf,mid,via_a,30\n100 $leaf,mid,via_b,20\n" | sort >expect &&
		test_cmp expect actual
	'
done

test_expect_success 'C++: new and delete through the allocators, names demangled' '
	if ! command -v "${CXX:-c++}" >/dev/null 2>&1; then
		echo "no C++ compiler: skipped" && exit 0
	fi &&
	"${CXX:-c++}" -g -O0 -o cxx "$progs/cxx.cc" &&
	cd proj &&
	perun collect -c ../cxx memory --per-event >/dev/null &&
	p=$(newest_profile) &&
	per_site "$p" >actual &&
	cat >expect.raw <<-EOT &&
	malloc,shapes::Widget::make(int),$(line_of cxx.cc make-new),3,120
	free,main,$(line_of cxx.cc delete),3,0
	malloc,main,$(line_of cxx.cc new-array),1,100
	free,main,$(($(line_of cxx.cc new-array) + 2)),1,0
	EOT
	sort expect.raw >expect &&
	test_cmp expect actual
'

test_done
