#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Profiles load, and dump byte-for-byte as Python does: the project's own
# (tests/fixtures) and, where ../shared is, those Python Perun wrote.
. "$srcdir/tests/test-lib.sh"

command -v python3 >/dev/null || test_skip_all "python3 is needed as the reference"
test_fixtures
TOOL="$TEST_BUILDDIR/tests/helpers/profile-tool"

# Python's own serialisation of what Perun's Profile keeps after loading:
# resources, resource_type_map, models first, then the rest in file order.
cat >py_dump.py <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
order = {"resources": {}, "resource_type_map": {}, "models": d.get("models", [])}
for k, v in d.items():
    if k not in order:
        order[k] = v
    elif k != "models":
        order[k] = v
if sys.argv[1] == "compact":
    sys.stdout.write(json.dumps(order))
else:
    import re
    sys.stdout.write(re.sub(r",\s+(\d+)", r", \1", json.dumps(order, indent=2)))
PY

test_have_shared || test_skip_shared "Python Perun's profiles dump as Python dumps them"
for f in $(ls "$FIXTURES"/*/*.perf; test_have_shared && ls "$TESTDATA"/*/*.perf); do
	case "$f" in
	*/corrupted_profiles/*|*/corrupted/*|*err-prof-*|*/err-*) continue ;;
	esac
	name=${f#"$FIXTURES/"}
	if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit('global' in d or 'snapshots' in d)" "$f"; then
		test_expect_success "$name dumps as Python dumps it" "
			python3 py_dump.py compact '$f' >expect &&
			'$TOOL' compact '$f' >actual &&
			test_cmp expect actual &&
			python3 py_dump.py pending '$f' >expect.pending &&
			'$TOOL' pending '$f' >actual.pending &&
			test_cmp expect.pending actual.pending
		"
	fi
	test_expect_success "$name survives a round trip" "
		'$TOOL' pending '$f' >once.perf &&
		'$TOOL' pending once.perf >twice.perf &&
		test_cmp once.perf twice.perf &&
		test \"\$('$TOOL' count '$f')\" = \"\$('$TOOL' count once.perf)\"
	"
done

cat >legacy.perf <<'PERF'
{"header": {"type": "memory", "cmd": "./a", "workload": "", "units": {"memory": "B"}},
 "collector_info": {"name": "memory", "params": {}}, "postprocessors": [],
 "snapshots": [
  {"time": "0.1", "resources": [
    {"amount": 4, "uid": {"source": "a.c", "function": "main", "line": 3}, "type": "memory", "subtype": "malloc", "address": 10},
    {"amount": 8, "uid": {"source": "a.c", "function": "main", "line": 3}, "type": "memory", "subtype": "malloc", "address": 20}]},
  {"time": "0.2", "resources": [
    {"amount": 16, "uid": {"function": "f", "source": "a.c", "line": 9}, "type": "memory", "subtype": "free", "address": 30}]}]}
PERF

test_expect_success 'snapshots become flattened resource types with snapshot and time' '
	"$TOOL" compact legacy.perf >flat.json &&
	python3 - <<-PY
	import json
	d = json.load(open("flat.json"))
	assert list(d)[:3] == ["resources", "resource_type_map", "models"], list(d)
	assert d["resources"] == {"a.c:main:3#0": {"amount": [4, 8], "address": [10, 20]},
	                          "a.c:f:9#0": {"amount": [16], "address": [30]}}, d["resources"]
	assert d["resource_type_map"]["a.c:main:3#0"] == {"snapshot": 0, "subtype": "malloc", "time": "0.1",
	    "type": "memory", "uid": {"source": "a.c", "function": "main", "line": 3}}
	assert list(d["resource_type_map"]["a.c:f:9#0"]) == ["snapshot", "subtype", "time", "type", "uid"]
	PY
'

test_expect_success 'floats are written in their shortest form, like repr()' '
	cat >floats.perf <<-PERF &&
	{"header": {"type": "time", "cmd": "x", "workload": "", "units": {"time": "s"}},
	 "collector_info": {"name": "time", "params": {}}, "postprocessors": [], "models": [],
	 "resources": {"x#0": {"amount": [0.1, 1e-05, 0.0001, 1e16, 1e15, 123456789.125, -2.5e-300, 3.0, 1.7976931348623157e308, 5e-324]}},
	 "resource_type_map": {"x#0": {"uid": "x", "type": "time", "text": "\u00e9\u4e2d\ud83d\ude00\t\"\\\\"}}}
	PERF
	python3 py_dump.py compact floats.perf >expect &&
	"$TOOL" compact floats.perf >actual &&
	test_cmp expect actual
'

test_expect_success 'floats of few decimals are written as repr() writes them too' '
	python3 - <<-PY &&
	import json, random, struct
	r = random.Random(21)
	v = [n / 1000 for n in range(1, 3000)]
	for digits in range(1, 17):
	    v += [r.randrange(1, 10 ** digits) / 1000 for _ in range(3000)]
	v += [r.randrange(1, 10 ** 6) / 10 ** r.randrange(0, 7) for _ in range(20000)]
	v += [1e12 - k / 1000 for k in range(1, 300)] + [1e12 + k / 1000 for k in range(300)]
	v += [1e-3 * (1 + k * 2 ** -52) for k in range(-300, 300)]
	v += [0.001, 0.1, 0.3, 1 / 3, 2 / 3, 999.9995, 0.0005, 123456789.125, 2.0 ** 40]
	v += [r.uniform(-1e13, 1e13) for _ in range(20000)]
	v += [struct.unpack("d", struct.pack("Q", r.getrandbits(64)))[0] for _ in range(20000)]
	v = [x for x in v if x == x and abs(x) != float("inf")]
	v += [-x for x in v[::7]]
	json.dump({"header": {"type": "time", "cmd": "x", "workload": "", "units": {"time": "s"}},
	           "collector_info": {"name": "time", "params": {}}, "postprocessors": [],
	           "models": [], "resources": {"x#0": {"amount": v}},
	           "resource_type_map": {"x#0": {"uid": "x", "type": "time"}}},
	          open("decimals.perf", "w"))
	PY
	python3 py_dump.py compact decimals.perf >expect &&
	"$TOOL" compact decimals.perf >actual &&
	test_cmp expect actual
'

for bad in "$FIXTURES"/corrupted/*.perf $(test_have_shared &&
	cd "$TESTDATA" && ls "$PWD/corrupted_profiles/corrupted-global.perf" \
		"$PWD/corrupted_profiles/corrupted-snapshots.perf" "$PWD/to_add_profiles/err-prof-1-incomplete.perf"); do
	test_expect_success "${bad#"$FIXTURES/"} is refused with a clear error" "
		test_must_fail '$TOOL' compact '$bad' 2>err &&
		test_grep \"profile.*$(basename $bad)\" err &&
		test \$(wc -l <err) -eq 1
	"
done

test_expect_success 'malformed inputs are refused, one line each' '
	echo "[1, 2]" >array.perf &&
	echo "{\"header\": {\"type\": \"cpu\"}}" >type.perf &&
	echo "{\"header\": {\"type\": \"time\"}, \"resources\": {\"a#0\": {\"amount\": [1, 2], \"order\": [1]}}, \"resource_type_map\": {\"a#0\": {}}}" >ragged.perf &&
	echo "{\"header\": {\"type\": \"time\"}, \"resources\": {\"a#0\": {\"amount\": [1]}}, \"resource_type_map\": {}}" >nomap.perf &&
	echo "{\"header\": {\"type\": \"time\"}, \"snapshots\": [{\"resources\": [{\"amount\": 1}]}]}" >nouid.perf &&
	printf "{\"header\": {\"type\": \"time\"}, \"a\": 1, \"a\": 2}" >dup.perf &&
	: >empty.perf &&
	for f in array type ragged nomap nouid dup empty; do
		test_must_fail "$TOOL" compact $f.perf 2>err.$f &&
		test $(wc -l <err.$f) -eq 1 || return 1
	done &&
	test_grep "not a JSON object" err.array &&
	test_grep "unknown profile type .cpu." err.type &&
	test_grep "has 1 values, other keys 2" err.ragged &&
	test_grep "missing from resource_type_map" err.nomap &&
	test_grep "resource without .uid." err.nouid &&
	test_grep "duplicate" err.dup
'

test_done
