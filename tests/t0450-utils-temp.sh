#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun utils temp list|delete|sync on .perun/tmp and its index in Python
# Perun's format (zlib-compressed JSON keyed by absolute path), written
# and read here with Python's own zlib and json, as Python Perun does.
. "$srcdir/tests/test-lib.sh"

command -v python3 >/dev/null || test_skip_all "python3 is needed to read the index independently"

# index_write <entries as a Python dict literal, with T for the tmp dir>
index_write() {
	python3 - "$T" "$1" <<-'PY'
	import json, sys, zlib
	T = sys.argv[1]
	entries = eval(sys.argv[2])
	open(T + "/.index", "wb").write(zlib.compress(json.dumps(entries, indent=2).encode()))
	PY
}
index_dump() {
	python3 - "$T" <<-'PY'
	import json, sys, zlib
	T = sys.argv[1]
	d = json.loads(zlib.decompress(open(T + "/.index", "rb").read()))
	rows = [(k[len(T) + 1:], d[k]) for k in sorted(d)]
	print("".join("%s %d %d %d\n" % (k, v["json"], v["protected"], v["compressed"]) for k, v in rows), end="")
	PY
}

test_expect_success 'setup: an instance with temporary files, two protected' '
	perun init --vcs-type svs proj >/dev/null &&
	T=$(cd proj/.perun/tmp && pwd -P) &&
	echo "$T" >tmpdir &&
	mkdir -p "$T/trace/run1" "$T/logs" &&
	printf "%0100d" 0 >"$T/trace/run1/big.txt" &&
	printf "%02000d" 0 >"$T/trace/run1/huge.bin" &&
	printf "x" >"$T/logs/a.log" &&
	printf "yy" >"$T/logs/b.log" &&
	printf "zzz" >"$T/top.json" &&
	index_write "{T + \"/trace/run1/huge.bin\": {\"json\": False, \"protected\": True, \"compressed\": True},
		T + \"/top.json\": {\"json\": True, \"protected\": True, \"compressed\": False},
		T + \"/gone.txt\": {\"json\": True, \"protected\": False, \"compressed\": False},
		T + \"/logs/b.log\": {\"json\": False, \"protected\": False, \"compressed\": False}}"
'
T=$(cat tmpdir 2>/dev/null)

test_expect_success 'list: total, size, protection and path, by name' '
	(cd proj && perun utils temp list) >actual &&
	cat >expect <<-\EOF &&
	Total size of all the displayed files / directories:    2.1 KiB
	     1 B   | unprotected | logs/a.log
	     2 B   | unprotected | logs/b.log
	     3 B   | protected   | top.json
	   100 B   | unprotected | trace/run1/big.txt
	   2.0 KiB | protected   | trace/run1/huge.bin
	EOF
	test_cmp expect actual
'

test_expect_success 'list synchronised the index (gone and flagless entries dropped)' '
	index_dump >actual &&
	printf "top.json 1 1 0\ntrace/run1/huge.bin 0 1 1\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'list: sorting, filtering, columns, a root' '
	(cd proj && perun utils temp list -s size -t -p) >actual &&
	printf "%s\n" "   2.0 KiB | trace/run1/huge.bin" "   100 B   | trace/run1/big.txt" \
		"     3 B   | top.json" "     2 B   | logs/b.log" "     1 B   | logs/a.log" >expect &&
	test_cmp expect actual &&
	(cd proj && perun utils temp list --sort-by protection -t -f) >actual &&
	printf "%s\n" "unprotected | logs/a.log" "unprotected | logs/b.log" \
		"unprotected | trace/run1/big.txt" "protected   | top.json" \
		"protected   | trace/run1/huge.bin" >expect &&
	test_cmp expect actual &&
	(cd proj && perun utils temp list -fp protected -t -f -p) >actual &&
	printf "top.json\ntrace/run1/huge.bin\n" >expect &&
	test_cmp expect actual &&
	(cd proj && perun utils temp list trace -t -f -p) >actual &&
	printf "trace/run1/big.txt\ntrace/run1/huge.bin\n" >expect &&
	test_cmp expect actual &&
	(cd proj && perun utils temp list "$T/logs" -t -f -p) >actual &&
	printf "logs/a.log\nlogs/b.log\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'list: nothing to show, a missing root, a root outside tmp/' '
	(cd proj && perun utils temp list logs -fp protected) >actual &&
	echo "== No results for the given parameters in the .perun/tmp/ directory ==" >expect &&
	test_cmp expect actual &&
	(cd proj && test_exit_code 2 perun utils temp list nowhere) 2>err &&
	test_grep "^perun: the tmp path .*/tmp/nowhere. is not there$" err &&
	(cd proj && test_exit_code 2 perun utils temp list ../objects) 2>err &&
	test_grep "^perun: the path .*/\.perun/objects. is not located in the perun tmp/ directory$" err
'

test_expect_success 'delete --warn with protected files deletes nothing' '
	(cd proj && store_snapshot >../before &&
	 test_exit_code 2 perun utils temp delete trace --warn 2>../err &&
	 store_snapshot >../after) &&
	test_cmp before after &&
	test_grep "^perun: aborted the deletion of temporary files: 1 protected file in " err
'

test_expect_success 'delete keeps protected files, and their directories' '
	(cd proj && perun utils temp delete trace) >out &&
	test_grep "^deleted 1 temporary file, kept 1 protected$" out &&
	test -f "$T/trace/run1/huge.bin" &&
	test_must_fail test -e "$T/trace/run1/big.txt"
'

test_expect_success 'delete a file, a directory (-k keeps it), --force' '
	(cd proj && perun utils temp delete logs/a.log) &&
	test_must_fail test -e "$T/logs/a.log" &&
	(cd proj && perun utils temp delete logs -k) &&
	test -d "$T/logs" &&
	(cd proj && perun utils temp delete logs) &&
	test_must_fail test -e "$T/logs" &&
	(cd proj && perun utils temp delete . --force) >out &&
	test_grep "^deleted 2 temporary files$" out &&
	test_must_fail test -e "$T/trace" &&
	test -d "$T" &&
	index_dump >actual &&
	test_cmp /dev/null actual
'

test_expect_success 'delete: a missing path or one outside tmp/ is an error' '
	(cd proj && test_exit_code 2 perun utils temp delete nothing.txt) 2>err &&
	test_grep "^perun: the supplied path .*/tmp/nothing.txt. does not exist, no files deleted$" err &&
	(cd proj && test_exit_code 2 perun utils temp delete /etc/passwd) 2>err &&
	test_grep "^perun: the path ./etc/passwd. is not located in the perun tmp/ directory$" err &&
	test -f /etc/passwd
'

test_expect_success 'sync drops the entries of deleted files, keeps the others' '
	printf x >"$T/keep" && printf y >"$T/lose" &&
	index_write "{T + \"/keep\": {\"json\": False, \"protected\": True, \"compressed\": False},
		T + \"/lose\": {\"json\": True, \"protected\": False, \"compressed\": False}}" &&
	rm "$T/lose" &&
	(cd proj && perun utils temp sync) &&
	index_dump >actual &&
	echo "keep 0 1 0" >expect &&
	test_cmp expect actual
'

test_expect_success 'a corrupt index reads as empty (as in Python Perun)' '
	echo garbage >"$T/.index" &&
	(cd proj && perun utils temp list -t -f) >actual &&
	echo "unprotected | keep" >expect &&
	test_cmp expect actual
'

test_expect_success 'outside an instance: an error' '
	test_exit_code 2 perun utils temp list 2>err &&
	test_grep "^perun: " err
'

test_done
