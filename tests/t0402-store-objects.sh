#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Damaged and hostile store objects are refused by name, fast, without
# inflating more than their header allows: a zlib bomb, an object longer
# or shorter than its header says, a bad header, data that is not zlib;
# and temporary files that killed writers left behind.
. "$srcdir/tests/test-lib.sh"

command -v python3 >/dev/null || test_skip_all "python3 is needed to write objects"
command -v jq >/dev/null || test_skip_all "jq is not installed"

test_expect_success 'setup: one tracked profile' '
	git init -q proj && (cd proj && git commit -q --allow-empty -m v1 &&
	perun init >/dev/null &&
	test_time_profile 1.0 "$(git rev-parse HEAD)" >.perun/jobs/p.perf &&
	perun add .perun/jobs/p.perf >/dev/null &&
	sha=$(perun status --format json | jq -r ".tracked[0].checksum") &&
	echo ".perun/objects/$(echo $sha | cut -c1-2)/$(echo $sha | cut -c3-)" >../object &&
	cp "$(cat ../object)" ../object.good)
'

# put_object <python expression of the raw bytes>: replace the object.
put_object() {
	(cd proj && chmod u+w "$(cat ../object)" &&
	 python3 -c "import sys, zlib; open(sys.argv[1], \"wb\").write($1)" "$(cat ../object)")
}

# refused <message after the sha>: show fails with it, exit 2, whether it
# reads the object whole (tableof) or streamed (folded).
refused() {
	(cd proj && test_exit_code 2 perun show 0@i tableof resources >out 2>err &&
	 sha=$(basename "$(dirname "$(cat ../object)")")$(basename "$(cat ../object)") &&
	 echo "perun: malformed profile object $sha: $1" >expect &&
	 test_cmp expect err && test ! -s out &&
	 test_exit_code 2 perun show 0@i folded >out 2>err &&
	 test_cmp expect err && test ! -s out)
}

test_expect_success 'a zlib bomb (256 MB of zeros behind a small header) fails at once' '
	put_object "zlib.compress(b\"profile time 10\\0\" + bytes(256 << 20), 9)" &&
	refused "more data than its header says"
'

test_expect_success 'a body shorter than its header says' '
	put_object "zlib.compress(b\"profile time 1000\\0{}\")" &&
	refused "header says 1000 characters, body has 2"
'

test_expect_success 'a bad header, and data that is not zlib' '
	put_object "zlib.compress(b\"profile nonsense 2\\0{}\")" &&
	refused "bad header" &&
	put_object "zlib.compress(b\"x\" * 200)" &&
	refused "bad header" &&
	put_object "b\"this is not zlib data at all\"" &&
	refused "not zlib data" &&
	put_object "zlib.compress(b\"profile time 2\\0{}\")[:-6]" &&
	refused "not zlib data"
'

test_expect_success 'a body longer than its header says, within what it allows' '
	put_object "zlib.compress(b\"profile time 2\\0{}\" + b\" \" * 5)" &&
	refused "header says 2 characters, body has 7"
'

test_expect_success 'an object of more bytes than characters reads, whole and streamed' '
	(cd proj && cp ../object.good "$(cat ../object)" &&
	 perun show 0@i tableof resources >../ascii.table) &&
	(cd proj && chmod u+w "$(cat ../object)" &&
	 python3 -c "import json, sys, zlib
body = zlib.decompress(open(sys.argv[1], \"rb\").read()).split(b\"\\0\", 1)[1]
j = json.loads(body)
j[\"header\"][\"workload\"] = \"w\u00f6rk \u00e9\u00e9\"
b = json.dumps(j, ensure_ascii=False).encode()
open(sys.argv[2], \"wb\").write(zlib.compress(b\"profile time %d\\0\" % len(b.decode()) + b))" \
		../object.good "$(cat ../object)" &&
	 perun show 0@i tableof resources >out && test_cmp ../ascii.table out &&
	 test_exit_code 2 perun show 0@i folded 2>err &&
	 test_grep "has no call stacks" err)
'

test_expect_success 'bytes after the zlib stream are ignored, as zlib ignores them' '
	put_object "open(\"../object.good\", \"rb\").read() + b\"trailing\"" &&
	(cd proj && perun show 0@i tableof resources >out && test_cmp ../ascii.table out)
'

test_expect_success 'store.max_object_size refuses a bigger header before inflating' '
	(cd proj && cp ../object.good "$(cat ../object)" &&
	 perun config --local set store.max_object_size 10 &&
	 sha=$(basename "$(dirname "$(cat ../object)")")$(basename "$(cat ../object)") &&
	 test_exit_code 2 perun show 0@i tableof resources >out 2>err &&
	 test_grep "^perun: malformed profile object $sha: header says [0-9]* characters, over store.max_object_size (10)$" err &&
	 perun config --local set store.max_object_size 1M &&
	 perun show 0@i tableof resources >out &&
	 perun config --local set store.max_object_size lots &&
	 test_exit_code 2 perun status 2>err &&
	 echo "perun: store.max_object_size: not a size (bytes, or with K, M, G)" >expect &&
	 test_cmp expect err &&
	 perun config --local set store.max_object_size 4G)
'

# object_of <source>: the path of the object a tracked profile is stored in.
object_of() {
	sha=$(perun status --format json | jq -r ".tracked[] | select(.source == \"$1\") | .checksum") &&
	echo ".perun/objects/$(echo $sha | cut -c1-2)/$(echo $sha | cut -c3-)"
}

test_expect_success 'store.compression: level 0 stores, 12 packs; zlib reads both, names match' '
	git init -q levels && (cd levels && git commit -q --allow-empty -m v1 &&
	 perun init >/dev/null && for level in 0 12; do
		perun config --local set store.compression $level &&
		test_time_profile 1$level.0 "$(git rev-parse HEAD)" >.perun/jobs/c$level.perf &&
		perun add .perun/jobs/c$level.perf >/dev/null || return 1
	 done &&
	 perun config --local set store.compression 1 &&
	 stored=$(object_of c0.perf) && packed=$(object_of c12.perf) &&
	 python3 -c "import sys, zlib, hashlib, os
for path, level in ((sys.argv[1], 0), (sys.argv[2], 12)):
    raw = open(path, \"rb\").read()
    body = zlib.decompress(raw)
    assert hashlib.sha1(body).hexdigest() == path.split(\"/\")[-2] + os.path.basename(path), path
    assert body.startswith(b\"profile time \"), path
    assert (len(raw) > len(body)) == (level == 0), (path, len(raw), len(body))
" "$stored" "$packed" &&
	 perun show 0@i tableof resources >out0 && perun show 1@i tableof resources >out1 &&
	 cat out0 out1 >out && test_grep " 10 " out && test_grep " 112 " out)
'

test_expect_success 'a bad store.compression is refused by name; nothing is added' '
	(cd levels && find .perun -type f | sort >../before &&
	 for bad in 13 -1 fast 1x; do
		perun config --local set store.compression "$bad" &&
		test_time_profile 9.0 "$(git rev-parse HEAD)" >.perun/jobs/bad.perf &&
		test_exit_code 2 perun add .perun/jobs/bad.perf 2>err &&
		echo "perun: store.compression: not a level from 0 to 12" >expect &&
		test_cmp expect err && rm .perun/jobs/bad.perf || return 1
	 done &&
	 perun config --local set store.compression 1 &&
	 find .perun -type f | sort >../after && test_cmp ../before ../after)
'

test_expect_success 'the good object reads again' '
	(cd proj && cp ../object.good "$(cat ../object)" &&
	 perun show 0@i tableof resources >out && test_grep "main" out)
'

test_expect_success 'stack views read a stored object streamed: errors by its name' '
	(cd proj && test_time_profile 1.0 "$(git rev-parse HEAD)" |
		jq -c ".resource_type_map[\"main#0\"] = 7" >../bad.perf) &&
	put_object "zlib.compress(b\"profile time %d\\0\" % len(open(\"../bad.perf\").read()) + open(\"../bad.perf\", \"rb\").read())" &&
	(cd proj && test_exit_code 2 perun show ../bad.perf folded 2>file.err;
	 test_exit_code 2 perun show 0@i folded 2>err &&
	 sha=$(basename "$(dirname "$(cat ../object)")")$(basename "$(cat ../object)") &&
	 sed "s|'"'"'[^'"'"']*bad.perf'"'"'|'"'"'object $(echo $sha | cut -c1-12)'"'"'|" file.err >expect &&
	 test_cmp expect err) &&
	(cd proj && cp ../object.good "$(cat ../object)")
'

test_expect_success 'a stored kperf profile folds as its file does' '
	test_fixtures &&
	(cd proj && cp "$FIXTURES/kperf/kperf-baseline.perf" .perun/jobs/k.perf &&
	 perun add --force --keep-profile .perun/jobs/k.perf >/dev/null &&
	 n=$(perun status --format json | jq ".tracked | map(.source) | index(\"k.perf\")") &&
	 perun show .perun/jobs/k.perf folded >expect &&
	 perun show $n@i folded >out && test_cmp expect out)
'

test_expect_success 'stale temp files of killed writers: locks clear jobs/, gc the objects' '
	(cd proj && dir=$(dirname "$(cat ../object)") &&
	 for f in "$dir/x.tmp-AbC123" .perun/jobs/p.perf.tmp-XyZ789 .perun/index.tmp-Q1w2E3; do
		echo partial >"$f" && touch -d "2 hours ago" "$f" || exit 1
	 done &&
	 echo partial >"$dir/y.tmp-FrEsH1" &&
	 echo keep >"$dir/not-a-temp.tmp-toolong" && touch -d "2 hours ago" "$dir/not-a-temp.tmp-toolong" &&
	 test_time_profile 2.0 "$(git rev-parse HEAD)" >.perun/jobs/q.perf &&
	 perun add .perun/jobs/q.perf >/dev/null &&
	 ! test -e .perun/jobs/p.perf.tmp-XyZ789 && ! test -e .perun/index.tmp-Q1w2E3 &&
	 test -e "$dir/x.tmp-AbC123" &&
	 perun gc >/dev/null &&
	 ! test -e "$dir/x.tmp-AbC123" &&
	 test -e "$dir/y.tmp-FrEsH1" && test -e "$dir/not-a-temp.tmp-toolong")
'

test_done
