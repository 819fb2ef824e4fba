#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Segmented store objects (core/store_segments.h): a big map is compressed
# apart and inflated as it is walked.  Python's zlib reads them as any
# object; the stack views give what the file gives, with windows that cut
# members anywhere; an object whose index is missing, damaged or lying is
# read whole; damage in the map is named as the whole load names it.
# PERUN_TEST_SEGMENTED segments the small profiles of the tests (and
# slices them that small), PERUN_TEST_MAP_WINDOW shrinks the walk's window,
# PERUN_TEST_NO_RELOAD fails where the walk would fall back to a whole load,
# PERUN_TEST_NO_ISAL compresses and inflates as a build without ISA-L.
. "$srcdir/tests/test-lib.sh"

command -v python3 >/dev/null || test_skip_all "python3 is needed to read objects"
command -v jq >/dev/null || test_skip_all "jq is not installed"

cat >seg.py <<-\PY
import hashlib, struct, sys, zlib
MAGIC = b"PERUNSEG"
def parts(b):
    fields = struct.unpack("<8Q", b[-80:-16])
    return fields
def rewrite_index(b, change):
    f = list(parts(b))
    change(f)
    n = f[7]
    start = len(b) - 80 - 8 * n
    body = b[start:-80] + struct.pack("<8Q", *f)
    return b[:start] + body + struct.pack("<II", zlib.crc32(body), 1) + MAGIC
def segment(payload, begin, end, slice_bytes, lie=0):
    """A segmented object written here, apart from perun's writer."""
    out, starts = bytearray(b"\x78\x01"), []
    pieces = []
    for a, z in ((0, begin), (begin, end), (end, len(payload))):
        for at in range(a, z, slice_bytes):
            pieces.append((at, min(z, at + slice_bytes)))
    adler = zlib.adler32(payload)
    marks = {}
    for i, (a, z) in enumerate(pieces):
        c = zlib.compressobj(1, zlib.DEFLATED, -15)
        if a == begin: marks["map"] = len(out)
        if a == end: marks["tail"] = len(out)
        if begin <= a < end: starts.append(len(out))
        last = i == len(pieces) - 1
        out += c.compress(payload[a:z]) + c.flush(zlib.Z_FINISH if last else zlib.Z_FULL_FLUSH)
    out += struct.pack(">I", adler)
    stream_end = len(out)
    f = [marks["map"], marks["tail"], stream_end, begin + lie, end + lie, len(payload),
         slice_bytes, len(starts)]
    body = b"".join(struct.pack("<Q", s) for s in starts) + struct.pack("<8Q", *f)
    return bytes(out) + body + struct.pack("<II", zlib.crc32(body), 1) + MAGIC
cmd, obj = sys.argv[1], sys.argv[2]
b = open(obj, "rb").read()
if cmd == "segmented":
    sys.exit(0 if b.endswith(MAGIC) else 1)
elif cmd == "zlib-sha":
    print(hashlib.sha1(zlib.decompress(b)).hexdigest())
else:
    f = parts(b)
    if cmd == "strip":
        b = b[:f[2]]
    elif cmd == "crc":
        b = b[:-72] + bytes([b[-72] ^ 1]) + b[-71:]
    elif cmd == "lie":
        b = rewrite_index(b, lambda f: f.__setitem__(3, f[3] + 1))
    elif cmd == "lie-slices":
        b = rewrite_index(b, lambda f: f.__setitem__(1, f[1] - 1))
    elif cmd == "map-byte":
        at = (f[0] + f[1]) // 2
        b = b[:at] + bytes([b[at] ^ 0x40]) + b[at + 1:]
    elif cmd == "adler":
        at = f[2] - 1
        b = b[:at] + bytes([b[at] ^ 1]) + b[at + 1:]
    elif cmd in ("resegment", "chars"):
        # perun's payload written again by this writer; "chars" says one
        # character more in its header than the body has.
        p = zlib.decompress(b)
        nul = p.index(b"\0")
        head, body = p[:nul + 1], p[nul + 1:]
        if cmd == "chars":
            kind, n = head[:-1].split(b" ")[1:]
            head = b"profile %s %d\0" % (kind, int(n) + 1)
        begin, end = f[3] - nul - 1 + len(head), f[4] - nul - 1 + len(head)
        b = segment(head + body, begin, end, 4096)
    open(sys.argv[3], "wb").write(b)
PY

# A kperf profile of 4,000 stacks, some of 3,000 frames (members longer
# than the small windows), with names that are not ASCII (characters the
# header counts, not bytes).
test_expect_success 'setup: a kperf profile stored segmented, its views from the file' '
	test_fixtures &&
	python3 - "$FIXTURES/kperf/kperf-baseline.perf" big.perf <<-\PY &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	rtm, res = d["resource_type_map"], d["resources"]
	k, t = next(iter(rtm.items()))
	for i in range(4000):
	    depth = 3000 if i % 500 == 7 else 2 + i % 40
	    frames = [{"func": "f%d\u00fc\u51fd%d" % (i % 13, j)} for j in range(depth)]
	    rtm["%s~%d" % (k, i)] = dict(t, uid="u%d" % i, trace=t["trace"] + frames)
	    res["%s~%d" % (k, i)] = {"amount": [i % 97 + 1]}
	json.dump(d, open(sys.argv[2], "w"), ensure_ascii=False)
	PY
	git init -q proj && (cd proj && git commit -q --allow-empty -m v1 &&
	 perun init >/dev/null &&
	 cp ../big.perf .perun/jobs/k.perf &&
	 PERUN_TEST_SEGMENTED=65536 perun add --force --keep-profile .perun/jobs/k.perf \
		>/dev/null &&
	 sha=$(perun status --format json | jq -r ".tracked[0].checksum") &&
	 echo $sha >../sha &&
	 echo ".perun/objects/$(echo $sha | cut -c1-2)/$(echo $sha | cut -c3-)" >../object &&
	 cp "$(cat ../object)" ../object.good &&
	 perun show .perun/jobs/k.perf folded >../file.folded &&
	 perun show .perun/jobs/k.perf flamegraph -o ../file.svg) &&
	python3 seg.py segmented object.good &&
	test $(wc -l <file.folded) -gt 4000
'

test_expect_success 'Python reads the object as any: its payload hashes to its name' '
	test "$(python3 seg.py zlib-sha object.good)" = "$(cat sha)"
'

test_expect_success 'a small map is stored whole, as before' '
	git init -q tiny && (cd tiny && git commit -q --allow-empty -m v1 &&
	 perun init >/dev/null &&
	 test_time_profile 2.0 "$(git rev-parse HEAD)" >.perun/jobs/t.perf &&
	 perun add .perun/jobs/t.perf >/dev/null &&
	 sha=$(perun status --format json | jq -r ".tracked[0].checksum") &&
	 ! python3 ../seg.py segmented .perun/objects/$(echo $sha | cut -c1-2)/$(echo $sha | cut -c3-))
'

# views_as_file <instance> [env...]: its stored object folds and draws as
# the file.
views_as_file() {
	dir=$1 && shift &&
	(cd $dir && env "$@" perun show 0@i folded >../out.folded &&
	 env "$@" perun show 0@i flamegraph -o ../out.svg) &&
	test_cmp file.folded out.folded &&
	sed "s|\.perun/jobs/k\.perf|0@i|" file.svg | test_cmp - out.svg
}

test_expect_success 'the stack views read it as the file, whatever the window' '
	views_as_file proj PERUN_TEST_NO_RELOAD=1 &&
	for window in 4096 1000 97 8; do
		views_as_file proj PERUN_TEST_NO_RELOAD=1 PERUN_TEST_MAP_WINDOW=$window || return 1
	done
'

# Chunks of 2,500 bytes read two slices whole (libdeflate) and half of
# one (zlib), which the next goes on with; 333 bytes, a third of one.
test_expect_success 'its slices, cut small, read the same, whole or in parts' '
	git init -q small && (cd small && git commit -q --allow-empty -m v1 &&
	 perun init >/dev/null && cp ../big.perf .perun/jobs/k.perf &&
	 PERUN_TEST_SEGMENTED=1000 perun add --force .perun/jobs/k.perf >/dev/null) &&
	python3 seg.py segmented "small/$(cat object)" &&
	test "$(python3 seg.py zlib-sha "small/$(cat object)")" = "$(cat sha)" &&
	views_as_file small PERUN_TEST_NO_RELOAD=1 &&
	for window in 333 2500; do
		views_as_file small PERUN_TEST_NO_RELOAD=1 PERUN_TEST_MAP_WINDOW=$window || return 1
	done
'

# ISA-L compresses and inflates the slices where perun has it; zlib and
# libdeflate otherwise, or under PERUN_TEST_NO_ISAL: the same payload and
# the same views, whichever wrote and whichever reads.
test_expect_success 'the slices of zlib and of ISA-L: the same payload, the same views' '
	git init -q zlib && (cd zlib && git commit -q --allow-empty -m v1 &&
	 perun init >/dev/null && cp ../big.perf .perun/jobs/k.perf &&
	 PERUN_TEST_NO_ISAL=1 PERUN_TEST_SEGMENTED=65536 \
		perun add --force .perun/jobs/k.perf >/dev/null) &&
	python3 seg.py segmented "zlib/$(cat object)" &&
	test "$(python3 seg.py zlib-sha "zlib/$(cat object)")" = "$(cat sha)" &&
	for writer in proj zlib; do
		views_as_file $writer PERUN_TEST_NO_RELOAD=1 &&
		views_as_file $writer PERUN_TEST_NO_RELOAD=1 PERUN_TEST_MAP_WINDOW=2500 &&
		views_as_file $writer PERUN_TEST_NO_RELOAD=1 PERUN_TEST_NO_ISAL=1 &&
		views_as_file $writer PERUN_TEST_NO_RELOAD=1 PERUN_TEST_NO_ISAL=1 \
			PERUN_TEST_MAP_WINDOW=2500 || return 1
	done
'

# put <seg.py command>: the object rewritten from the good one.
put() {
	chmod u+w "proj/$(cat object)" &&
	python3 seg.py $1 object.good "proj/$(cat object)"
}

for how in strip crc lie lie-slices; do
	test_expect_success "an index $how: the object reads, whole or streamed" "
		put $how &&
		views_as_file proj PERUN_TEST_MAP_WINDOW=500 &&
		(cd proj && perun show 0@i tableof resources >../table) &&
		test -s table
	"
done

test_expect_success 'a segmented object written by another writer reads as perun writes it' '
	put resegment &&
	python3 seg.py segmented "proj/$(cat object)" &&
	test "$(python3 seg.py zlib-sha "proj/$(cat object)")" = "$(cat sha)" &&
	views_as_file proj PERUN_TEST_NO_RELOAD=1 PERUN_TEST_MAP_WINDOW=700
'

# The damage of the map, found as it is walked: the whole load's message.
for how in map-byte adler chars; do
	test_expect_success "damage ($how): the whole load's message, exit 2, no output" '
		put $how && rm -f out.* &&
		(cd proj && test_exit_code 2 perun show 0@i tableof resources 2>../expect) &&
		grep "object $(cut -c1-12 sha)" expect &&
		for view in folded flamegraph; do
			(cd proj && test_exit_code 2 perun show 0@i $view -o ../out.$view 2>../err) &&
			test_cmp expect err &&
			test ! -e out.$view || return 1
		done
	'
done

test_expect_success 'the good object reads again' '
	cp object.good "proj/$(cat object)" &&
	views_as_file proj PERUN_TEST_NO_RELOAD=1
'

test_done
