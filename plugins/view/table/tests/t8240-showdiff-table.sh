#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun showdiff <baseline> <target> table: the top-N records of each
# profile, their shares and differences, against an independent python
# computation over the profiles' JSON; csv, markdown, json; errors.
. "$srcdir/tests/test-lib.sh"
test_fixtures

base="$FIXTURES/kperf/kperf-baseline.perf"
targ="$FIXTURES/kperf/kperf-target.perf"

# oracle <n> [<key> <value>]: rank,profile,uid,trace,share,amount,diff
oracle() {
	python3 - "$base" "$targ" "$@" <<-\EOP
	import json, sys
	def flat(v):
	    if isinstance(v, list):
	        return ",".join(":".join(str(x) for x in f.values()) for f in v)
	    return str(v)
	def top(path, filt):
	    p = json.load(open(path))
	    sums, order, total = {}, [], 0
	    for rid, cols in p["resources"].items():
	        t = p["resource_type_map"][rid]
	        key = (flat(t["uid"]), flat(t.get("trace", [])))
	        for i, a in enumerate(cols["amount"]):
	            if filt and flat(t.get(filt[0], cols.get(filt[0], [None] * (i + 1))[i])) != filt[1]:
	                continue
	            if key not in sums:
	                order.append(key)
	            sums[key] = sums.get(key, 0) + a
	            total += a
	    ranked = sorted((k for k in order if sums[k]), key=lambda k: -sums[k])
	    return [(k, sums[k], 100 * sums[k] / total) for k in ranked], total
	n = int(sys.argv[3])
	filt = sys.argv[4:6] if len(sys.argv) > 4 else None
	(b, _), (t, _) = top(sys.argv[1], filt), top(sys.argv[2], filt)
	b, t = b[:n], t[:n]
	def q(s):
	    return '"' + s.replace('"', '""') + '"' if "," in s or '"' in s else s
	print("rank,profile,uid,trace,share,amount,diff")
	for i in range(max(len(b), len(t))):
	    for name, mine, other in (("baseline", b, t), ("target", t, b)):
	        if i < len(mine):
	            (uid, trace), amount, share = mine[i]
	            diff = amount - (other[i][1] if i < len(other) else 0)
	            print(f"{i + 1},{name}(origin),{q(uid)},{q(trace)},{share:.2f},{amount},{diff}")
	EOP
}

test_expect_success 'csv: the top 10 of both, shares and differences' '
	perun showdiff "$base" "$targ" table --format csv >actual &&
	oracle 10 >expected &&
	test_cmp expected actual
'

test_expect_shared 'csv: --top-n 3 and a filter' '
	base="$TESTDATA/diff_profiles/kperf-baseline.perf" targ="$TESTDATA/diff_profiles/kperf-target.perf" &&
	perun showdiff "$base" "$targ" table -n 3 --format csv >actual &&
	oracle 3 >expected &&
	test_cmp expected actual &&
	perun showdiff "$base" "$targ" table -n 5 -f uid __intel_pmu_enable_all.isra.0 --format csv >actual &&
	oracle 5 uid __intel_pmu_enable_all.isra.0 >expected &&
	test_cmp expected actual &&
	test "$(wc -l <actual)" -gt 2
'

test_expect_shared 'text: the summary, then a line per rank and profile' '
	base="$TESTDATA/diff_profiles/kperf-baseline.perf" targ="$TESTDATA/diff_profiles/kperf-target.perf" &&
	perun showdiff "$base" "$targ" table -n 2 -g tag >out &&
	test_grep "^Difference summary" out &&
	test_grep "^  command   ls \.$" out &&
	test_grep "^   1  baseline(tag)  *__intel_pmu_enable_all.isra.0  *39.00  *867  *-3805138 " out &&
	test_grep "^   2  target(tag)  *task_work_add  *13.03  *654267  *653807 " out
'

test_expect_success 'markdown and json carry the same records' '
	perun showdiff "$base" "$targ" table -n 4 --format markdown >md &&
	test "$(grep -c "^| [0-9]" md)" = 8 &&
	perun showdiff "$base" "$targ" table -n 4 --format json -o t.json >out &&
	test_cmp /dev/null out &&
	oracle 4 >expected &&
	python3 - t.json expected <<-\EOP
	import csv, json, sys
	doc = json.load(open(sys.argv[1]))
	rows = list(csv.DictReader(open(sys.argv[2])))
	got = []
	for r in doc["ranks"]:
	    for side in ("baseline", "target"):
	        if side in r:
	            got.append((str(r["rank"]), r[side]["uid"], r[side]["trace"], "%.2f" % r[side]["share"],
	                         r[side]["amount"], r[side]["diff"]))
	want = [(r["rank"], r["uid"], r["trace"], r["share"], float(r["amount"]), float(r["diff"])) for r in rows]
	assert got == want, (got, want)
	EOP
'

test_expect_success 'equal amounts keep the order of "resources", not the map'"'"'s' '
	python3 - <<-\EOP &&
	import json
	for name in ("ord-a", "ord-b"):
	    json.dump({"header": {"type": "time", "cmd": "p", "args": "", "workload": "w",
	                          "units": {"time": "s"}},
	               "collector_info": {"name": "time", "params": {}}, "postprocessors": [],
	               "models": [], "origin": "",
	               "resources": {"f%d#0" % i: {"amount": [1.0]} for i in range(4)},
	               "resource_type_map": {"f%d#0" % i: {"uid": "f%d" % i, "type": "time"}
	                                     for i in reversed(range(4))}},
	              open(name + ".perf", "w"))
	EOP
	perun showdiff ord-a.perf ord-b.perf table --format csv >out &&
	test "$(cut -d, -f3 out | sed -n "2p;4p;6p;8p" | tr "\n" " ")" = "f0 f1 f2 f3 "
'

test_expect_success 'records met again near and far are summed into one' '
	python3 - <<-\EOP &&
	import json, random
	random.seed(7)
	for name, n in (("rep-a", 300), ("rep-b", 260)):
	    keys = ["g%d" % random.randrange(40) for _ in range(n)]
	    json.dump({"header": {"type": "time", "cmd": "p", "args": "", "workload": "w",
	                          "units": {"time": "s"}},
	               "collector_info": {"name": "kperf", "params": {}}, "postprocessors": [],
	               "models": [], "origin": "",
	               "resources": {"r%d#0" % i: {"amount": [random.randrange(1, 1000)] * (1 + i % 3)}
	                             for i in range(n)},
	               "resource_type_map": {"r%d#0" % i: {"uid": k[:2],
	                                                   "trace": [{"func": "main"}, {"func": k}]}
	                                     for i, k in enumerate(keys)}},
	              open(name + ".perf", "w"))
	EOP
	base=rep-a.perf targ=rep-b.perf &&
	perun showdiff "$base" "$targ" table -n 100 --format csv >actual &&
	oracle 100 >expected &&
	test_cmp expected actual &&
	test "$(wc -l <actual)" -gt 60
'

test_expect_success 'errors: one profile, bad --top-n, extra words' '
	test_exit_code 2 perun show "$base" table 2>err &&
	test_grep "only compares two profiles" err &&
	test_exit_code 2 perun showdiff "$base" "$targ" table -n 0 2>err &&
	test_grep "top-n must be at least 1, not 0" err &&
	test_exit_code 2 perun showdiff "$base" "$targ" table extra 2>err &&
	test_grep "unexpected argument ${SQ:-}.extra" err &&
	test_exit_code 2 perun showdiff "$base" "$targ" table --format yaml 2>err
'

test_done
