#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Streamed profiles (perun_profile_load_file_streamed, what perun show uses
# for the stack views): the resource_type_map is left unread by the load,
# its end guessed from the end of the text, and read during each walk.
# Every shape of text walks as the usual load walks it, and a malformed
# map fails the view with the usual load's message, exit 2, no output.
. "$srcdir/tests/test-lib.sh"

command -v python3 >/dev/null || test_skip_all "python3 is needed to make the profiles"
test_fixtures
TOOL="$TEST_BUILDDIR/tests/profile-tape-test"
BASE="$FIXTURES/kperf/kperf-baseline.perf"

# variant NAME: a copy of the kperf baseline changed as variant.py says.
cat >variant.py <<'PY'
import json, sys
base, name = sys.argv[1], sys.argv[2]
d = json.load(open(base))
rtm, res = d["resource_type_map"], d["resources"]
ids = list(rtm)
def dump(obj):
    return json.dumps(obj)
if name == "map-last":
    # the map after everything: the end guessed from the back is its own
    rest = {k: v for k, v in d.items() if k != "resource_type_map"}
    text = dump(rest)[:-1] + ', "resource_type_map": ' + dump(rtm) + "}"
elif name == "map-first":
    text = dump({"resource_type_map": rtm, **{k: v for k, v in d.items() if k != "resource_type_map"}})
elif name == "resources-last":
    # the biggest part after the map is not the map: the guess is wrong
    rest = {k: v for k, v in d.items() if k != "resources"}
    res["pad#0"] = {"amount": list(range(1000000, 1700000))}  # past the 4 MB looked at
    rtm["pad#0"] = {"uid": "pad", "trace": [{"func": "pad"}]}
    text = dump(rest)[:-1] + ', "resources": ' + dump(res) + "}"
elif name == "awkward-strings":
    # brackets, quotes and backslashes inside strings, on every offset of
    # the 64-byte blocks the skip reads
    for n, tid in enumerate(ids[:80]):
        rtm[tid]["note"] = "\\" * (n % 5) + '"}]{[' + "x" * n + "\\\\"
    text = dump(d)
    text = text.replace('"uid":', '"u\\u0069d":', 3)
elif name == "spaced":
    text = json.dumps(d, indent=3) + "\n\n"
else:
    text = dump(d)
    i = text.index('"resource_type_map"')
    if name == "syntax":
        j = text.index('"trace"', i)
        text = text[:j] + '"trace" "x", ' + text[j + 7:]
    elif name == "not-object":
        j = text.index("{", i + 20)
        k = text.index(": {", j + 1)
        text = text[:k] + ": 7, " + '"zz": {' + text[k + 3:]
    elif name == "missing":
        del rtm[ids[3]]
        text = dump(d)
    elif name == "duplicate":
        j = text.index("{", i + 20) + 1
        first = text[j:text.index('"trace"', j)]
        text = text[:j] + first + '"trace": []}, ' + text[j:]
    elif name == "unbalanced":
        j = text.index("]", i)
        text = text[:j] + text[j + 1:]
    elif name == "garbage-after":
        text = text + " x"
    elif name == "header-broken":
        text = text.replace('"header": {', '"header": {"type": 3, ', 1)
    elif name == "truncated":
        text = text[: len(text) - 40]
open(name + ".perf", "w").write(text)
PY

for v in map-last map-first resources-last awkward-strings spaced; do
	test_expect_success "walks as the usual load walks it: $v" "
		python3 variant.py '$BASE' $v &&
		'$TOOL' walk $v.perf >/dev/null &&
		'$TOOL' dump $v.perf &&
		perun show $v.perf folded -o $v.folded &&
		test -s $v.folded
	"
done

test_expect_success 'the map in any place folds to the same stacks' '
	sort map-last.folded >a &&
	sort map-first.folded >b &&
	sort spaced.folded >c &&
	test_cmp a b &&
	test_cmp a c
'

# A map of tens of megabytes: the walk gives its file pages back as it
# reads them (a few megabytes at a time, never the first and last page),
# and walks again from the page cache.  Not under the sanitizers, where
# the tool's checks of 140,000 types against the tree take over 20 min.
test "${PERUN_TEST_SANITIZED:-0}" = 1 ||
test_expect_success 'a 24 MB map walks as the usual load walks it, twice' '
	python3 - "$BASE" big.perf <<-\PY &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	rtm, res = d["resource_type_map"], d["resources"]
	n = 0
	for k, t in list(rtm.items()):
	    for i in range(20000):
	        t2 = dict(t, uid="%s_%d" % (t["uid"], i),
	                  trace=t["trace"] + [{"func": "f%d" % (i * 7 + j)} for j in range(6)])
	        rtm["%s~%d" % (k, i)] = t2
	        res["%s~%d" % (k, i)] = {"amount": [i % 97 + 1]}
	json.dump(d, open(sys.argv[2], "w"))
	PY
	test $(wc -c <big.perf) -gt 20000000 &&
	"$TOOL" walk big.perf >walked &&
	test $(wc -l <walked) -gt 140000 &&
	"$TOOL" dump big.perf &&
	perun show big.perf folded -o streamed.folded &&
	test $(wc -l <streamed.folded) -gt 140000
'

for v in syntax not-object missing duplicate unbalanced garbage-after header-broken truncated; do
	test_expect_success "malformed ($v): the usual load's message, exit 2, no output" "
		python3 variant.py '$BASE' $v &&
		test_exit_code 2 '$TOOL' load $v.perf 2>expect &&
		sed 's/^profile-tape-test: /perun: /' expect >expect.perun &&
		for view in flamegraph folded chrome pprof; do
			test_exit_code 2 perun show $v.perf \$view -o $v.\$view 2>err &&
			test_cmp expect.perun err &&
			test ! -e $v.\$view || return 1
		done &&
		test_exit_code 2 perun showdiff '$BASE' $v.perf flamegraph -o diff.svg 2>err &&
		test_cmp expect.perun err &&
		test ! -e diff.svg
	"
done

# perun add reads the profile streamed and writes its map to the store as
# it reads it: a malformed map is refused as the usual load refuses it.
test_expect_success 'setup: an instance to add to' '
	git init -q inst && (cd inst && git commit -q --allow-empty -m v1 && perun init >/dev/null)
'

for v in syntax not-object missing duplicate unbalanced garbage-after header-broken truncated; do
	test_expect_success "malformed ($v): perun add refuses it so, the store as it was" '
		cp $v.perf inst/.perun/jobs/ &&
		(cd inst && find .perun -type f ! -name "$v.perf" ! -name lock | sort >../before &&
		 test_exit_code 2 perun add --force .perun/jobs/$v.perf 2>../err &&
		 find .perun -type f ! -name "$v.perf" ! -name lock | sort >../after &&
		 rm .perun/jobs/$v.perf) &&
		test_cmp before after &&
		test_exit_code 2 "$TOOL" load $v.perf 2>expect &&
		sed "s/^profile-tape-test: //" expect >want &&
		sed -n "1s/^perun: //p" err | sed "s|[^ '"'"']*/\.perun/jobs/$v.perf|$v.perf|" >got &&
		test_cmp want got &&
		test "$(sed -n 2p err)" = "perun: registration failed for 1 profile"
	'
done

test_expect_success 'perun add stores a kperf profile as the whole load dumps it' '
	"$TOOL" dump "$BASE" &&
	(cd inst && cp "$BASE" .perun/jobs/k.perf &&
	 perun add --force .perun/jobs/k.perf >/dev/null &&
	 perun show 0@i folded >../stored.folded) &&
	perun show "$BASE" folded >file.folded &&
	test_cmp file.folded stored.folded
'

# Over 16 MB, the inflate's pages are made ahead of it on another thread.
test "${PERUN_TEST_SANITIZED:-0}" = 1 ||
test_expect_success 'a stored 24 MB profile folds as its file does' '
	git init -q big && (cd big && git commit -q --allow-empty -m v1 &&
	 perun init >/dev/null && cp ../big.perf .perun/jobs/big.perf &&
	 perun add --force .perun/jobs/big.perf >/dev/null &&
	 perun show 0@i folded -o ../big-stored.folded) &&
	test_cmp streamed.folded big-stored.folded
'

# A stored object is inflated into memory and streamed from there; a map
# found malformed is read again from the object, whose whole load names it.
for v in syntax duplicate unbalanced truncated; do
	test_expect_success "malformed ($v) in a stored object: the whole load's message" '
		(cd inst &&
		 sha=$(perun status --format json | jq -r ".tracked[0].checksum") &&
		 obj=.perun/objects/$(echo $sha | cut -c1-2)/$(echo $sha | cut -c3-) &&
		 chmod u+w $obj &&
		 python3 -c "import sys, zlib
b = open(sys.argv[1], \"rb\").read()
open(sys.argv[2], \"wb\").write(zlib.compress(b\"profile time %d\\0\" % len(b.decode()) + b))" \
			../$v.perf $obj &&
		 echo "object $(echo $sha | cut -c1-12)" >../name) &&
		test_exit_code 2 "$TOOL" load $v.perf 2>expect &&
		sed "s/^profile-tape-test: /perun: /; s|$v.perf|$(cat name)|" expect >want &&
		for view in folded flamegraph; do
			(cd inst && test_exit_code 2 perun show 0@i $view -o ../out.$view 2>../err) &&
			test_cmp want err &&
			test ! -e out.$view || return 1
		done
	'
done

test_done
