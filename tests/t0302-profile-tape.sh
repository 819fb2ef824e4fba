#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Loaded profiles keep their resources in a tape: perun_profile_foreach_type
# reads from it what the tree gives and what Python's json module reads,
# and bad input is refused with the messages of the loader before the tape
# (jansson's own for syntax), exit 2, the store left as it was.
. "$srcdir/tests/test-lib.sh"

command -v python3 >/dev/null || test_skip_all "python3 is needed as the reference"
test_fixtures
TOOL="$TEST_BUILDDIR/tests/profile-tape-test"
export PYTHONIOENCODING=utf-8

# What profile-tape-test walk prints, from Python's json module: per type
# of resource_type_map (in its order) the number of persistent keys and
# columns, per column its values, integers and their exact sum, reals and
# their sum in order, other values.
cat >py_sums.py <<'PY'
import json, math, sys
sys.setrecursionlimit(10000)  # for the deeply nested test profile
d = json.load(open(sys.argv[1], encoding="utf-8"))
resources = d.get("resources", {})
for tid, persistent in d.get("resource_type_map", {}).items():
    columns = resources.get(tid, {})
    print(f"type\t{tid}\t{len(persistent)}\t{len(columns)}")
    for key, values in columns.items():
        ints = [v for v in values if type(v) is int]
        reals = [v for v in values if type(v) is float]
        total, overflow = 0, False
        for v in ints:
            total += v
            overflow |= not -2 ** 63 <= total < 2 ** 63
        rsum = 0.0
        for v in reals:
            rsum += v
        rtext = "nan" if math.isnan(rsum) else "%.17g" % rsum
        print(f"col\t{tid}\t{key}\t{len(values)}\t{len(ints)}\t"
              f"{'overflow' if overflow else total}\t{len(reals)}\t{rtext}\t"
              f"{len(values) - len(ints) - len(reals)}")
PY

# The project's own profiles, then Python Perun's where ../shared is.
test_have_shared || test_skip_shared "Python Perun's profiles read as Python reads them"
for f in $(ls "$FIXTURES"/*/*.perf; test_have_shared && ls "$TESTDATA"/*/*.perf); do
	name=${f#"$FIXTURES/"}
	case "$f" in
	*/corrupted_profiles/*|*/corrupted/*|*err-prof-*|*/err-*)
		test_expect_success "$name is refused from file and buffer alike" "
			test_exit_code 2 '$TOOL' load '$f' 2>err &&
			test_grep '^profile-tape-test: .*$f' err
		"
		continue ;;
	esac
	if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit('global' in d or 'snapshots' in d)" "$f"; then
		test_expect_success "$name: tape, buffer and tree agree, as Python reads it" "
			'$TOOL' walk '$f' >actual &&
			python3 py_sums.py '$f' >expect &&
			test_cmp expect actual
		"
	else
		# Legacy profiles are converted into a tree on load.
		test_expect_success "$name (legacy): walk and tree agree" "
			'$TOOL' walk '$f' >actual &&
			test_grep '^type' actual
		"
	fi
done

# The big profiles: resources and resource_type_map in other orders (the
# walk then looks types up by hash) read the same as in the file's order.
cat >reorder.py <<'PY'
import json, random, sys
d = json.load(open(sys.argv[1]))
rnd = random.Random(int(sys.argv[3]))
items = list(d["resource_type_map"].items())
rnd.shuffle(items)
d["resource_type_map"] = dict(items)
items = list(d["resources"].items())
items.reverse()
d["resources"] = dict(items)
json.dump(d, open(sys.argv[2], "w"), indent=2)
PY
for f in "$FIXTURES/kperf/kperf-baseline.perf" "$FIXTURES/mixed/points-models.perf" \
	"$FIXTURES/memory/memory-basic.perf" $(test_have_shared && cd "$TESTDATA" &&
	ls "$PWD/diff_profiles/kperf-baseline.perf" \
		"$PWD/full_profiles/prof-2-complexity-2017-03-20-21-40-42.perf" \
		"$PWD/query_profiles/memory-basic.perf"); do
	test_expect_success "${f#"$FIXTURES/"} reordered reads the same as in its order" "
		python3 reorder.py '$f' reordered.perf 5 &&
		'$TOOL' walk reordered.perf >actual &&
		python3 py_sums.py reordered.perf >expect &&
		test_cmp expect actual &&
		'$TOOL' walk '$f' | sort >in-order &&
		sort actual >reordered &&
		test_cmp in-order reordered &&
		! cmp -s expect '$f'
	"
done

test_expect_success 'set up a project for perun show and perun add' '
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null)
'

# refuse N NAME MESSAGE: badN.perf is refused with MESSAGE (its %s the
# file's name), by the library from file and buffer as by the reader before
# the tape, and by perun show and perun add with exit 2 (the name then an
# absolute path), the store unchanged.
refuse() {
	printf 'profile-tape-test: %s\n' "$3" | sed "s|%s|bad$1.perf|" >expect$1
	sed "s|^profile-tape-test: \(.*\)bad$1.perf|perun: \1$PWD/bad$1.perf|" expect$1 >expect.show$1
	sed "s|$PWD/|$PWD/proj/.perun/jobs/|" expect.show$1 >expect.add$1
	test_expect_success "refused: $2" "
		test_exit_code 2 '$TOOL' load bad$1.perf 2>err$1 &&
		test_cmp expect$1 err$1 &&
		(cd proj && test_exit_code 2 perun show ../bad$1.perf tableof resources >out 2>../err.show$1) &&
		test_cmp expect.show$1 err.show$1 &&
		cp bad$1.perf proj/.perun/jobs/ &&
		before=\$(store_snapshot proj) &&
		(cd proj && test_exit_code 2 perun add --force bad$1.perf 2>../err.add$1) &&
		sed -n 1p err.add$1 >first$1 &&
		test_cmp expect.add$1 first$1 &&
		test_grep '^perun: registration failed for 1 profile' err.add$1 &&
		test \"\$before\" = \"\$(store_snapshot proj)\" &&
		rm proj/.perun/jobs/bad$1.perf
	"
}

# The rest of a valid profile.
rest='"header": {"type": "mixed", "cmd": "c", "workload": ""}, "models": [], "collector_info": {"name": "x", "params": {}}, "postprocessors": []'
pers='{"uid": "a", "type": "mixed"}'
n=0
while IFS='|' read -r name text message; do
	n=$((n + 1))
	case "$text" in
	*'"header"'*) printf '{%s}\n' "$text" >bad$n.perf ;;
	*) printf '{%s, %s}\n' "$text" "$rest" >bad$n.perf ;;
	esac
	refuse $n "$name" "$message"
done <<CASES
resources not an object|"resources": 5, "resource_type_map": {}|profile '%s': 'resources' is not an object
resource_type_map not an object|"resources": {}, "resource_type_map": [$pers]|profile '%s': 'resource_type_map' is not an object
a resource not an object|"resources": {"a#0": [1]}, "resource_type_map": {"a#0": $pers}|profile '%s': resource 'a#0' is not an object
a column not a list|"resources": {"a#0": {"amount": [1], "order": 5}}, "resource_type_map": {"a#0": $pers}|profile '%s': resource 'a#0': 'order' is not a list
columns of unequal length|"resources": {"a#0": {"amount": [1, 2], "order": [1]}}, "resource_type_map": {"a#0": $pers}|profile '%s': resource 'a#0': 'order' has 1 values, other keys 2
a resource missing from resource_type_map|"resources": {"a#0": {"amount": [1]}}, "resource_type_map": {"b#0": $pers}|profile '%s': resource 'a#0' is missing from resource_type_map
a resource missing, the map in another order|"resources": {"a#0": {"amount": [1]}, "c#0": {"amount": [2]}}, "resource_type_map": {"c#0": $pers, "b#0": $pers}|profile '%s': resource 'a#0' is missing from resource_type_map
a type map value not an object|"resources": {"a#0": {"amount": [1]}}, "resource_type_map": {"a#0": "x"}|profile '%s': resource 'a#0' is missing from resource_type_map
a type without resources not an object|"resources": {"a#0": {"amount": [1]}}, "resource_type_map": {"a#0": $pers, "b#0": [1]}|profile '%s': resource_type_map 'b#0' is not an object
a duplicate key in a small object|"resources": {"a#0": {"amount": [1]}}, "resource_type_map": {"a#0": {"uid": "a", "uid": "b"}}|cannot read profile '%s': line 1: duplicate object key near '"uid"'
a duplicate column|"resources": {"a#0": {"amount": [1], "amount": [1]}}, "resource_type_map": {"a#0": $pers}|cannot read profile '%s': line 1: duplicate object key near '"amount"'
a NUL in a string|"resources": {"a#0": {"amount": ["x\\u0000"]}}, "resource_type_map": {"a#0": $pers}|cannot read profile '%s': line 1: \\u0000 is not allowed without JSON_ALLOW_NUL near '"x\\u0000"'
a too big integer|"resources": {"a#0": {"amount": [18446744073709551616]}}, "resource_type_map": {"a#0": $pers}|cannot read profile '%s': line 1: too big integer near '18446744073709551616'
the header before the resources|"resources": {"a#0": 5}, "resource_type_map": {}, "header": 1|profile '%s': 'header' is not an object
an unknown key before the resources|"resources": {"a#0": 5}, "resource_type_map": {}, "extra": 1|profile '%s': unknown top-level key 'extra'
CASES

# Text made by a program: big objects, bytes, truncation, nesting.  The
# messages are jansson's, as the loader before the tape gave them (checked
# against a build of 4fccfa5).
cat >gen_bad.py <<'PY'
import json, sys
kind, out = sys.argv[1], sys.argv[2]
rest = {"header": {"type": "mixed", "cmd": "c", "workload": ""}, "models": [],
        "collector_info": {"name": "x", "params": {}}, "postprocessors": []}
types = {f"t{i}#0": {"uid": f"t{i}", "type": "mixed"} for i in range(20)}
resources = {f"t{i}#0": {"amount": [i, i + 0.5]} for i in range(20)}
prof = dict(resources=resources, resource_type_map=types, **rest)
text = json.dumps(prof, indent=2)
if kind == "dup-resources":    # resources of 21 members, one twice
    text = text.replace('"t19#0": {\n      "amount"', '"t5#0": {"amount": [1, 2]},\n    "t19#0": {\n      "amount"', 1)
elif kind == "dup-map":
    text = text.replace('"t19#0": {\n      "uid"', '"t7#0": {},\n    "t19#0": {\n      "uid"', 1)
elif kind == "utf8-value":
    text = text.replace('"mixed"', '"mi\xff"', 1)
elif kind == "utf8-key":
    text = text.replace('"t3#0"', '"t3\xc3#0"', 1)
elif kind == "truncated":
    text = text[:text.index('"t4#0"') + 4]
elif kind == "garbage":
    text += "\n}"
elif kind == "deep":         # deeper than jansson's 2048 levels
    text = text.replace('[\n        0,', "[" * 2100 + "]" * 2100 + ", [\n        0,", 1)
open(out, "w", encoding="latin-1").write(text)
PY
while IFS='|' read -r kind message; do
	n=$((n + 1))
	python3 gen_bad.py $kind bad$n.perf
	refuse $n "$kind" "$message"
done <<'CASES'
dup-resources|cannot read profile '%s': line 117: duplicate object key near '"t5#0"'
dup-map|cannot read profile '%s': line 201: duplicate object key near '"t7#0"'
utf8-value|cannot read profile '%s': line 127: unable to decode byte 0xff near '"mi'
utf8-key|cannot read profile '%s': line 21: unable to decode byte 0xc3 near '"t3'
truncated|cannot read profile '%s': line 27: premature end of input near '"t4#'
garbage|cannot read profile '%s': line 218: end of file expected near '}'
deep|cannot read profile '%s': line 4: maximum parsing depth reached near '['
CASES

# A text of over 8 MB, whose tape is a mapping of its own, and a
# resources object of 40,000 ids, whose duplicates are found by sorted
# hashes: read as Python reads it (the map shuffled), refused when an id
# comes twice or a column is short at its far end.
cat >gen_big.py <<'PY'
import json, random, sys
kind, out = sys.argv[1], sys.argv[2]
n = 40000
types = {f"t{i}#0": {"uid": f"t{i}", "type": "mixed", "subtype": "s" * (i % 7)}
         for i in range(n)}
resources = {f"t{i}#0": {"amount": [i, i + 0.25, -i, i * 1e-3, 2 ** 40 + i],
                         "order": [1, 2, 3, 4, i], "note": ["x", None, True, {"k": i}, ""]}
             for i in range(n)}
if kind == "valid":
    items = list(types.items())
    random.Random(3).shuffle(items)
    types = dict(items)
elif kind == "short":
    resources["t39990#0"]["order"].pop()
text = json.dumps(dict(resources=resources, resource_type_map=types, models=[],
                       header={"type": "mixed", "cmd": "c", "workload": ""}))
if kind == "dup":  # the last id again, after all the others
    text = text.replace('"t39999#0": {"amount"', '"t39999#0": {"amount": []}, "t39999#0": {"amount"', 1)
open(out, "w").write(text)
PY
test_expect_success 'a profile of over 8 MB, its type map shuffled, reads as Python reads it' "
	python3 gen_big.py valid big.perf &&
	test \$(wc -c <big.perf) -gt 8388608 &&
	'$TOOL' walk big.perf >actual &&
	python3 py_sums.py big.perf >expect &&
	test_cmp expect actual
"
n=$((n + 1))
python3 gen_big.py dup bad$n.perf
refuse $n "an id twice in 40,000 resources of an 8 MB text" \
	"cannot read profile '%s': line 1: duplicate object key near '\"t39999#0\"'"
test_expect_success 'a short column at the far end of an 8 MB text is refused' "
	python3 gen_big.py short short.perf &&
	test_exit_code 2 '$TOOL' load short.perf 2>err &&
	echo \"profile-tape-test: profile 'short.perf': resource 't39990#0': 'order' has 4 values, other keys 5\" >expect &&
	test_cmp expect err
"

# Deeper than the tape reader goes (1024 levels) but not jansson (2048):
# such a profile still loads, through jansson, and reads the same.
test_expect_success 'nesting of 1500 levels in a column loads and walks' "
	python3 - deep.perf <<-'PY' &&
	import sys
	deep = '[' * 1500 + ']' * 1500
	open(sys.argv[1], 'w').write(
	    '{\"resources\": {\"a#0\": {\"amount\": [1.5, ' + deep + ', 2]}}, '
	    '\"resource_type_map\": {\"a#0\": {\"uid\": \"a\", \"type\": \"mixed\"}}, '
	    '\"header\": {\"type\": \"mixed\", \"cmd\": \"c\", \"workload\": \"\"}, '
	    '\"models\": []}')
	PY
	'$TOOL' load deep.perf &&
	'$TOOL' walk deep.perf >actual &&
	python3 py_sums.py deep.perf >expect &&
	test_cmp expect actual
"

# Damaged copies of the test profiles (ours, and Python Perun's if there) (bytes changed, inserted, copied
# from elsewhere; a fixed seed): each is refused alike from file and buffer
# and by the reader before the tape, or loads and walks as Python reads it.
cat >damage.py <<'PY'
import glob, json, os, random, subprocess, sys
tool, count, dirs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rnd = random.Random(302)
texts = []
for f in sorted(f for d in dirs for f in glob.glob(os.path.join(d, "*", "*.perf"))):
    t = open(f, "rb").read()
    # without NaN (the reader before the tape is jansson alone) and legacy
    if b"NaN" in t or b"Infinity" in t or b'"global"' in t or b'"snapshots"' in t:
        continue
    texts.append(t)
alphabet = b'{}[]",:0123456789-+.eE \n\\u#aNI\xff\xc3\x00'
failed = loaded = 0
for k in range(count):
    t = bytearray(rnd.choice(texts))
    for _ in range(rnd.randint(1, 2)):
        op, i = rnd.randrange(3), rnd.randrange(len(t))
        if op == 0 and chr(t[i]).isdigit():
            t[i] = rnd.choice(b"0123456789")
        elif op == 1:
            j = rnd.randrange(len(t))
            t[i:i] = t[j:j + rnd.randint(1, 40)]
        else:
            t[i] = rnd.choice(alphabet)
    name = f"damaged{k}.perf"
    open(name, "wb").write(t)
    r = subprocess.run([tool, "load", name], capture_output=True)
    if r.returncode == 0:
        loaded += 1
        w = subprocess.run([tool, "walk", name], capture_output=True)
        p = subprocess.run([sys.executable, "py_sums.py", name], capture_output=True)
        if w.returncode or w.stdout != p.stdout:
            failed += 1
            print(f"{name}: walk {w.returncode} {w.stderr[:300]!r}, as Python: {w.stdout == p.stdout}")
            continue
    elif r.returncode != 2 or not r.stderr.startswith(f"profile-tape-test: ".encode()):
        failed += 1
        print(f"{name}: load {r.returncode} {r.stderr[:300]!r}")
        continue
    os.unlink(name)
print(f"{count} damaged, {loaded} loaded, {failed} failed")
sys.exit(1 if failed or not loaded or loaded == count else 0)
PY
test_expect_success 'damaged profiles: refused alike, or read as Python reads them' "
	python3 damage.py '$TOOL' 300 '$FIXTURES' \$(test_have_shared && echo '$TESTDATA') >out &&
	cat out
"

# NaN beside a \u0000 string: the tape reader leaves the text to jansson
# (with the marker strings), the profile is a tree, and walks as Python
# reads it.
test_expect_success 'NaN beside a NUL string loads as a tree and walks' "
	cat >nul.perf <<-\\EOF &&
	{\"resources\": {\"a#0\": {\"amount\": [NaN, 1.5, -Infinity, 2],
	 \"note\": [\"\\u0000x\", \"\\u0000NaN?\", \"y\", \"\"]}},
	 \"resource_type_map\": {\"a#0\": {\"uid\": \"a\", \"n\": Infinity}},
	 \"header\": {\"type\": \"mixed\", \"cmd\": \"c\", \"workload\": \"\"}}
	EOF
	'$TOOL' walk nul.perf >actual &&
	python3 py_sums.py nul.perf >expect &&
	test_cmp expect actual &&
	test_grep '^col	a#0	amount	4	1	2	3	nan	0\$' actual
"

test_expect_success 'the empty file and a top-level list are refused' "
	: >empty.perf &&
	test_exit_code 2 '$TOOL' load empty.perf 2>err &&
	echo \"profile-tape-test: cannot read profile 'empty.perf': line 1: '[' or '{' expected near end of file\" >expect &&
	test_cmp expect err &&
	echo '[]' >list.perf &&
	test_exit_code 2 '$TOOL' load list.perf 2>err &&
	echo \"profile-tape-test: profile 'list.perf': not a JSON object\" >expect &&
	test_cmp expect err
"

# Jansson quotes the text near a syntax error, a line break included.
test_expect_success 'a syntax error across a line break is still reported on one line' "
	printf '{\"resources\": {\"a\\\\\\n\": 1}}' >break.perf &&
	test_exit_code 2 perun show break.perf tableof resources 2>err &&
	test \$(wc -l <err) = 1 &&
	test_grep \"cannot read profile 'break.perf': line 2: invalid escape near\" err
"

test_done
