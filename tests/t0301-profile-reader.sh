#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# libperun's fast profile reader and float printer: what they take they
# read as Python does (dumps compared with Python's json), what they leave
# jansson reports with its own messages.
. "$srcdir/tests/test-lib.sh"

command -v python3 >/dev/null || test_skip_all "python3 is needed as the reference"
TOOL="$TEST_BUILDDIR/tests/helpers/profile-tool"

# Python's dump of a profile file, in the order libperun keeps.
cat >py_dump.py <<'PY'
import json, sys
d = json.load(open(sys.argv[2]))
order = {"resources": d.pop("resources"), "resource_type_map": d.pop("resource_type_map"),
         "models": d.pop("models")}
order.update(d)
if sys.argv[1] == "compact":
    sys.stdout.write(json.dumps(order))
else:
    import re
    sys.stdout.write(re.sub(r",\s+(\d+)", r", \1", json.dumps(order, indent=2)))
PY

# Numbers of every kind: short decimals, 17-digit ones, random bit
# patterns, neighbours of powers of two and ten, subnormals, the integer
# limits; strings with escapes, surrogate pairs and raw UTF-8; NaN and the
# infinities; commas, spaces and digits in strings and lists (which the
# pending form folds); nesting 400 levels deep.
cat >gen.py <<'PY'
import json, math, random, struct, sys
rnd = random.Random(int(sys.argv[1]))
floats = [0.0, -0.0, 1e-05, 1e-4, 9.999999999999999e-05, 1e16, 1e15, 9999999999999998.0,
          123456789012345678.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
          0.1, 0.3, 2 / 3, -1.5, 1e22, 1e23, 1e-10, 9.5367431640625e-07, 2.0 ** 52, 2.0 ** 53 + 2]
for i in range(30000):
    kind = i % 5
    if kind == 0:
        v = struct.unpack("d", struct.pack("Q", rnd.getrandbits(64)))[0]
    elif kind == 1:
        v = rnd.random() * 10 ** rnd.randint(-12, 18)
    elif kind == 2:
        v = round(rnd.random() * 10 ** rnd.randint(0, 8), rnd.randint(0, 6))
    elif kind == 3:
        v = 2.0 ** rnd.randint(-40, 60) if i % 2 else 10.0 ** rnd.randint(-12, 17)
        for _ in range(rnd.randint(0, 2)):
            v = math.nextafter(v, math.inf if rnd.random() < 0.5 else 0)
    else:
        v = 3 + 0.002 * i + rnd.random() - 0.5
    if not math.isfinite(v):
        v = 1.0
    floats.append(-v if rnd.random() < 0.3 else v)
floats += [math.nan, math.inf, -math.inf]
ints = [0, -1, 2 ** 63 - 1, -2 ** 63, 10 ** 18, -10 ** 18 - 1] + \
       [rnd.randint(-2 ** 63, 2 ** 63 - 1) for _ in range(1000)]
deep = []
for _ in range(400):
    deep = [deep]
uid = "f\u00e9\U0001F600 \"q\"\\\t/\x7f"
prof = {
    "resources": {uid + "#0": {"amount": floats, "order": list(range(len(floats)))},
                  "ints#0": {"amount": ints}},
    "resource_type_map": {uid + "#0": {"uid": uid, "type": "mixed", "n": {"l": [1, None, True, False]}},
                          "ints#0": {"uid": "ints", "type": "mixed", "deep": deep}},
    "models": [{"uid": "f", "r_square": math.nan, "coeffs": [{"name": "b0", "value": -math.inf}]},
               # what the pending form folds: ",<spaces><digit>" anywhere
               {"uid": "a,  5 ,\t6 ,7 ,   x,  ", "a,   1": [-1, 2, -0.0, 0.0, math.nan, 3, math.inf,
                                                   -math.inf, 4, [5, [6, -7]], {"b,  8": 9}, [],
                                                   {}, "10", None, True, 11.5, -12.5, 13]}],
    "header": {"type": "mixed", "cmd": "c", "args": "", "workload": "\u4e2d", "units": {}},
    "collector_info": {"name": "trace", "params": {}},
    "postprocessors": [],
}
with open(sys.argv[2], "w") as out:
    out.write(json.dumps(prof, indent=int(sys.argv[3])) if int(sys.argv[3]) >= 0
              else json.dumps(prof, ensure_ascii=False))
PY

for case in "1 2" "2 -1"; do
	set -- $case
	test_expect_success "numbers, strings and nesting read and dump as Python (seed $1)" "
		python3 gen.py $1 in.perf $2 &&
		python3 py_dump.py compact in.perf >expect &&
		'$TOOL' compact in.perf >actual &&
		test_cmp expect actual &&
		python3 py_dump.py pending in.perf >expect.pending &&
		'$TOOL' pending in.perf >actual.pending &&
		test_cmp expect.pending actual.pending
	"
done

# Text jansson refuses: the fast reader leaves it, and the message is
# jansson's.  Each case: name, the models list, the expected message.
head='{"header": {"type": "mixed"}, "resources": {}, "resource_type_map": {}, "models": '
n=0
while IFS='|' read -r name models message; do
	n=$((n + 1))
	printf '%s%s}' "$head" "$models" >bad$n.perf
	printf "profile-tool: cannot read profile 'bad$n.perf': line 1: %s\n" "$message" >expect$n
	test_expect_success "refused: $name" "
		test_must_fail '$TOOL' compact bad$n.perf 2>err$n </dev/null &&
		test_cmp expect$n err$n
	"
done <<'CASES'
a duplicate key|[{"a": 1, "a": 2}]|duplicate object key near '"a"'
NUL in a string|["x\u0000y"]|\u0000 is not allowed without JSON_ALLOW_NUL near '"x\u0000y"'
a too big integer|[9223372036854775808]|too big integer near '9223372036854775808'
a too big negative integer|[-9223372036854775809]|too big negative integer near '-9223372036854775809'
a real overflow|[1e400]|real number overflow near '1e400'
a trailing comma|[1, ]|unexpected token near ']'
a leading zero|[01]|invalid token near '0'
a lone high surrogate|["\ud800"]|invalid Unicode '\uD800' near '"\ud800"'
a lone low surrogate|["\udc00x"]|invalid Unicode '\uDC00' near '"\udc00x"'
a raw tab|["a	b"]|control character 0x9 near '"a'
a bare point|[1.]|invalid token near '1.'
a bare minus|[-]|invalid token near '-'
lowercase nan|[nan]|invalid token near 'nan'
a word after Infinity|[Infinity1]|']' expected near '1'
CASES

test_expect_success 'refused: invalid UTF-8 and a too deep nesting' "
	printf '%s[\"\377\"]}' '$head' >utf.perf &&
	test_must_fail '$TOOL' compact utf.perf 2>err &&
	test_grep 'unable to decode byte 0xff' err &&
	python3 -c 'import sys; sys.stdout.write(sys.argv[1] + \"[\" * 2100 + \"]\" * 2100 + \"}\")' '$head' >deep.perf &&
	test_must_fail '$TOOL' compact deep.perf 2>err &&
	test_grep 'maximum parsing depth reached' err
"

# With NaN in the text, Perun's reader lets \u0000 through (its marker
# strings need it): the fast reader leaves such text to jansson, as before.
test_expect_success 'NaN beside a NUL string still loads' "
	printf '%s[NaN, \"\\\\u0000x\"]}' '$head' >nul.perf &&
	'$TOOL' count nul.perf
"

test_done
