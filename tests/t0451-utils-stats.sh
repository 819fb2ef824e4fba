#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun utils stats list-files|list-versions|delete|clean|sync on
# .perun/stats in Python Perun's layout: <sha[:2]>/<sha[2:]>/<file> and the
# zlib-compressed JSON index of [sha, date], newest first, written and
# read here with Python's zlib and json as Python Perun does.
. "$srcdir/tests/test-lib.sh"

command -v python3 >/dev/null || test_skip_all "python3 is needed to read the index independently"
command -v git >/dev/null || test_skip_all "git is not installed"

# stats_file <sha> <name> <bytes>: a stats file of that size.
stats_file() {
	d=$S/$(echo $1 | cut -c1-2)/$(echo $1 | cut -c3-) &&
	mkdir -p "$d" &&
	head -c $3 /dev/zero >"$d/$2"
}
# index_write "<sha> <sha> ...": the index Python Perun writes, with git's dates.
index_write() {
	for sha in $1; do
		printf "%s %s\n" $sha "$(git -C proj show -s --format=%cd \
			--date=format:"%Y-%m-%d %H:%M:%S" $sha)"
	done | python3 -c "
import json, sys, zlib
recs = [l.split(\" \", 1) for l in sys.stdin.read().splitlines()]
open(\"$S/.index\", \"wb\").write(zlib.compress(json.dumps(recs, indent=2).encode()))"
}
index_dump() {
	python3 -c "
import json, zlib
for sha, date in json.loads(zlib.decompress(open(\"$S/.index\", \"rb\").read())):
    print(sha[:7], date)"
}
short() { git -C proj rev-parse --short=7 "$1"; }

test_expect_success 'setup: a git project of four commits with stats in three' '
	mkdir proj && (
		cd proj && git init -q &&
		for i in 1 2 3 4; do
			echo $i >f && git add f &&
			GIT_COMMITTER_DATE="2024-01-0$i 10:00:00 +0000" \
			GIT_AUTHOR_DATE="2024-01-0$i 10:00:00 +0000" git commit -q -m "c$i" || exit 1
		done &&
		perun init >/dev/null
	) &&
	git -C proj rev-parse HEAD~3 HEAD~2 HEAD~1 HEAD | tr "\n" " " >vars &&
	echo >>vars
'
read C1 C2 C3 C4 <vars
S=$TRASH_DIRECTORY/proj/.perun/stats

test_expect_success 'setup: stats written as Python Perun would' '
	stats_file $C4 trace-a 100 &&
	stats_file $C4 trace-b 2000 &&
	stats_file $C2 trace-a 10 &&
	d=$S/$(echo $C3 | cut -c1-2)/$(echo $C3 | cut -c3-) && mkdir -p "$d" &&
	index_write "$C4 $C3 $C2"
'

test_expect_success 'list-versions: size, version, file count, newest first' '
	(cd proj && perun utils stats list-versions) >actual &&
	cat >expect <<-EOF &&
	Total size of all the displayed files / directories:    2.1 KiB
	   2.1 KiB | $C4 | 2
	     0 B   | $C3 | 0
	    10 B   | $C2 | 1
	EOF
	test_cmp expect actual &&
	(cd proj && perun utils stats list-versions -s -t -f) >actual &&
	printf "%s\n" "   2.1 KiB | $C4" "    10 B   | $C2" "     0 B   | $C3" >expect &&
	test_cmp expect actual
'

test_expect_success 'list-files: each file, and the versions without one' '
	(cd proj && perun utils stats list-files -t) >actual &&
	cat >expect <<-EOF &&
	   100 B   | $C4 | trace-a
	   2.0 KiB | $C4 | trace-b
	           | $C3 | -= No stats file =-
	    10 B   | $C2 | trace-a
	EOF
	test_cmp expect actual &&
	(cd proj && perun utils stats list-files -t -s -i) >actual &&
	printf "%s\n" "   2.0 KiB | trace-b" "   100 B   | trace-a" "    10 B   | trace-a" \
		"           | -= No stats file =-" >expect &&
	test_cmp expect actual
'

test_expect_success 'list: --top and --from-minor slice the versions' '
	(cd proj && perun utils stats list-versions -N 1 -t) >actual &&
	echo "   2.1 KiB | $C4 | 2" >expect &&
	test_cmp expect actual &&
	(cd proj && perun utils stats list-files -m HEAD~1 -t -f -i) >actual &&
	printf "%s\n" "-= No stats file =-" "trace-a" >expect &&
	test_cmp expect actual &&
	(cd proj && perun utils stats list-versions -m $C1 -t) >actual &&
	echo "== No results for the given parameters in the .perun/stats/ directory ==" >expect &&
	test_cmp expect actual
'

test_expect_success 'list: errors of bad options and versions (exit 2)' '
	(cd proj && test_exit_code 2 perun utils stats list-files -N -1) 2>err &&
	test_grep "^perun: --top must be 0 (all) or more, not -1$" err &&
	(cd proj && test_must_fail perun utils stats list-files -m nosuchrev) 2>err &&
	test $(wc -l <err) -eq 1 && test_grep "^perun: .*nosuchrev" err
'

test_expect_success 'delete file: in HEAD, the emptied directory goes (-k keeps it)' '
	(cd proj && perun utils stats delete file trace-a) >out &&
	test_grep "^deleted .trace-a. in 1 minor version$" out &&
	test -f "$S/$(echo $C4 | cut -c1-2)/$(echo $C4 | cut -c3-)/trace-b" &&
	(cd proj && perun utils stats delete file trace-b -k) &&
	test -d "$S/$(echo $C4 | cut -c1-2)/$(echo $C4 | cut -c3-)" &&
	index_dump >actual &&
	printf "%s 2024-01-04 10:00:00\n%s 2024-01-03 10:00:00\n%s 2024-01-02 10:00:00\n" \
		$(short $C4) $(short $C3) $(short $C2) >expect &&
	test_cmp expect actual
'

test_expect_success 'delete file -m .: in every version; a missing one is an error' '
	stats_file $C3 trace-a 5 &&
	(cd proj && perun utils stats delete file trace-a -m .) >out &&
	test_grep "^deleted .trace-a. in 2 minor versions$" out &&
	index_dump >actual &&
	echo "$(short $C4) 2024-01-04 10:00:00" >expect &&
	test_cmp expect actual &&
	(cd proj && store_snapshot >../before &&
	 test_exit_code 2 perun utils stats delete file trace-a 2>../err &&
	 test_exit_code 2 perun utils stats delete file ../../local.yml 2>>../err &&
	 store_snapshot >../after) &&
	test_cmp before after &&
	test_grep "^perun: no stats file .trace-a. in $C4$" err &&
	test_grep "^perun: bad stats file name ...\/\.\.\/local.yml.$" err
'

test_expect_success 'sync: the index follows the directories, by date' '
	stats_file $C1 x 1 && stats_file $C3 y 1 &&
	(cd proj && perun utils stats sync) &&
	index_dump >actual &&
	printf "%s 2024-01-04 10:00:00\n%s 2024-01-03 10:00:00\n%s 2024-01-01 10:00:00\n" \
		$(short $C4) $(short $C3) $(short $C1) >expect &&
	test_cmp expect actual
'

test_expect_success 'delete minor: the version and its stats' '
	(cd proj && perun utils stats delete minor HEAD~3) &&
	test_must_fail test -e "$S/$(echo $C1 | cut -c1-2)/$(echo $C1 | cut -c3-)" &&
	index_dump >actual &&
	printf "%s 2024-01-04 10:00:00\n%s 2024-01-03 10:00:00\n" $(short $C4) $(short $C3) >expect &&
	test_cmp expect actual &&
	(cd proj && test_exit_code 2 perun utils stats delete minor HEAD~3) 2>err &&
	test_grep "^perun: minor version $C1 has no stats directory$" err
'

test_expect_success 'clean: custom objects and empty versions go (-c keeps custom)' '
	echo custom >"$S/notes.txt" &&
	mkdir -p "$S/zz/not-a-version" "$S/$(echo $C3 | cut -c1-2)/$(echo $C3 | cut -c3-)/sub" &&
	(cd proj && perun utils stats clean -c) &&
	test -f "$S/notes.txt" &&
	test_must_fail test -e "$S/$(echo $C4 | cut -c1-2)/$(echo $C4 | cut -c3-)" &&
	(cd proj && perun utils stats clean) &&
	test_must_fail test -e "$S/notes.txt" &&
	test_must_fail test -e "$S/zz" &&
	test_must_fail test -e "$S/$(echo $C3 | cut -c1-2)/$(echo $C3 | cut -c3-)/sub" &&
	test -f "$S/$(echo $C3 | cut -c1-2)/$(echo $C3 | cut -c3-)/y" &&
	index_dump >actual &&
	echo "$(short $C3) 2024-01-03 10:00:00" >expect &&
	test_cmp expect actual
'

test_expect_success 'delete . -k empties the versions; delete . removes all' '
	stats_file $C2 z 3 &&
	(cd proj && perun utils stats sync && perun utils stats delete . -k) &&
	test -d "$S/$(echo $C2 | cut -c1-2)/$(echo $C2 | cut -c3-)" &&
	test_must_fail test -e "$S/$(echo $C3 | cut -c1-2)/$(echo $C3 | cut -c3-)/y" &&
	(cd proj && perun utils stats delete .) &&
	test -d "$S" &&
	ls -A "$S" >actual &&
	test_cmp /dev/null actual &&
	(cd proj && perun utils stats list-files) >actual &&
	echo "== No results for the given parameters in the .perun/stats/ directory ==" >expect &&
	test_cmp expect actual
'

test_done
