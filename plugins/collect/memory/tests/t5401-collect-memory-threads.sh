#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun collect ... memory --per-event on programs with several threads, a fork and an
# exec: nothing lost, nothing mixed up between threads or processes.
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/plugins/collect/memory/tests/lib-memory.sh"

test_expect_success 'setup: test programs and a perun instance' '
	build threads threads.c -pthread &&
	build fork fork.c &&
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null)
'

test_expect_success 'eight threads at once: every allocation with its size, every free' '
	cd proj &&
	perun collect -c ../threads -a "8 2000" memory --per-event >/dev/null &&
	p=$(newest_profile) &&
	table "$p" subtype uid:function uid:line amount |
		grep ",worker," | sort | uniq -c | sed "s/^ *//" >actual &&
	m=$(line_of threads.c worker-malloc) f=$(line_of threads.c worker-free) &&
	for i in 0 1 2 3 4 5 6 7; do
		echo "2000 malloc,worker,$m,$((16 + i))"
	done >expect.raw &&
	echo "16000 free,worker,$f,0" >>expect.raw &&
	sort expect.raw >expect &&
	test_cmp expect actual
'

test_expect_success 'threads: each free ends an allocation of the same size class' '
	cd proj &&
	p=$(newest_profile) &&
	jq -r "[.resource_type_map | to_entries[] | select(.value.uid.function == \"worker\" and .value.subtype == \"malloc\") | .value.leaked] | unique | .[]" "$p" >leaked &&
	echo false >expect &&
	test_cmp expect leaked
'

test_expect_success 'a fork and an exec: the parent, the child and the new image' '
	cd proj &&
	perun collect -c ../fork memory --per-event >/dev/null &&
	p=$(newest_profile) &&
	table "$p" subtype uid:line amount leaked >rows &&
	sort rows >actual &&
	cat >expect.raw <<-EOT &&
	malloc,$(line_of fork.c parent),111,False
	malloc,$(line_of fork.c child),222,False
	free,$(line_of fork.c child-free),0,
	free,$(line_of fork.c child-free-copy),0,
	free,$(line_of fork.c parent-free),0,
	malloc,$(line_of fork.c after-exec),333,False
	free,$(line_of fork.c after-exec),0,
	EOT
	sort expect.raw >expect &&
	test_cmp expect actual
'

test_expect_success 'the block the child inherited is freed in both processes' '
	cd proj &&
	p=$(newest_profile) &&
	table "$p" subtype uid:line address >addr &&
	a=$(awk -F, -v l=$(line_of fork.c parent) "\$1 == \"malloc\" && \$2 == l { print \$3 }" addr) &&
	test $(grep -c "^free,.*,$a\$" addr) = 2
'

test_done
