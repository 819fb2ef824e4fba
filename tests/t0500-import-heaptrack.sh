#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun import heaptrack: a program with known allocations recorded by
# heaptrack becomes an aggregated memory profile (exact counts, bytes,
# leaks and peak per trace) from .zst, .gz and plain files; the views
# read it; bad input is one line naming the file, exit 2.
. "$srcdir/tests/test-lib.sh"

command -v heaptrack >/dev/null 2>&1 || test_skip_all "no heaptrack (Debian: heaptrack)"
command -v zstd >/dev/null 2>&1 || test_skip_all "no zstd"
command -v "${CC:-cc}" >/dev/null 2>&1 || test_skip_all "no C compiler"

test_expect_success 'setup: a program recorded by heaptrack, a perun instance' '
	cat >prog.c <<-EOC &&
	#include <stdlib.h>
	static void *keep;
	__attribute__((noinline)) static void leak(void)
	{
		keep = malloc(300); /* @leak */
	}
	int main(void)
	{
		for (int i = 0; i < 10; i++)
			free(malloc(100)); /* @loop */
		void *big = malloc(5000); /* @big */
		leak();
		free(big);
		return keep == 0;
	}
	EOC
	"${CC:-cc}" -g -O0 -o prog prog.c &&
	heaptrack -o "$PWD/rec" ./prog >/dev/null 2>&1 &&
	test -f rec.zst &&
	zstd -dc rec.zst >rec.txt &&
	gzip -c rec.txt >rec.gz &&
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null)
'

line_of() { grep -n "@$1 " prog.c | cut -d: -f1; }

for form in zst gz txt; do
	test_expect_success "counts, bytes, leaks and the peak per trace ($form)" '
		(cd proj && perun import heaptrack ../rec.'$form' >out &&
		 test_grep "^Imported profile .*/\.perun/jobs/heaptrack-.*\.perf$" out &&
		 p=$(ls -t .perun/jobs/*.perf | head -n 1) &&
		 test "$(jq -r .header.type "$p")" = memory &&
		 test "$(jq -r .header.cmd "$p")" = ./prog &&
		 perun show "$p" tableof --format csv -h uid:function -h uid:line -h count \
			-h amount -h leaked -h peak -f subtype malloc resources |
			grep -E "^(main|leak)," | sort >../actual) &&
		cat >expect.raw <<-EOT &&
		main,$(line_of loop),10,1000,0,0
		main,$(line_of big),1,5000,0,5000
		leak,$(line_of leak),1,300,300,300
		EOT
		sort expect.raw >expect &&
		test_cmp expect actual
	'
done

test_expect_success 'the live-bytes series and the views read the imported profile' '
	leak=$(line_of leak) &&
	cd proj &&
	p=$(ls -t .perun/jobs/*.perf | head -n 1) &&
	perun show "$p" tableof --format csv -h uid:line -h change -f subtype live resources |
		tail -n +2 | awk -F, "\$1 == $leak { s += \$2 } END { print s }" >leaked &&
	echo 300 >expect &&
	test_cmp expect leaked &&
	perun show "$p" flamegraph -o flame.svg &&
	perun show "$p" flamegraph --of count -o calls.svg &&
	perun show "$p" flow sum --of change --through snapshot --by uid -f flow.html &&
	perun show "$p" scatter --of live --per snapshot -f live
'

test_expect_success 'bad input: one line naming the file, exit 2, nothing stored' '
	cd proj &&
	ls .perun/jobs >before &&
	test_exit_code 2 perun import heaptrack ../missing.zst 2>err &&
	test_grep "^perun: cannot read .../missing.zst.: No such file or directory$" err &&
	test $(wc -l <err) = 1 &&
	head -c 200 ../rec.zst >../truncated.zst &&
	test_exit_code 2 perun import heaptrack ../truncated.zst 2>err &&
	test_grep "^perun: .../truncated.zst. is corrupt: the zstd stream is truncated$" err &&
	echo "hello" >../text &&
	test_exit_code 2 perun import heaptrack ../text 2>err &&
	test_grep "is not a heaptrack data file" err &&
	sed "s/^a \\([0-9a-f]*\\) [0-9a-f]*\$/a \\1 fffff/" ../rec.txt >../badref.txt &&
	test_exit_code 2 perun import heaptrack ../badref.txt 2>err &&
	test_grep "^perun: heaptrack file .../badref.txt.: line [0-9]*: an allocation info refers to a trace not defined before$" err &&
	test_exit_code 2 perun import heaptrack 2>err &&
	test_grep "usage: perun import heaptrack <file>" err &&
	ls .perun/jobs >after &&
	test_cmp before after
'

test_done
