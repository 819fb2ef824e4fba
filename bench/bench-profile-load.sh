#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-profile-load.sh [builddir] - libperun's profile phases beside
# Python's json module on the same files:
#   - trace.perf: a 12 MB trace-like profile (bench/gen-check-profiles.py,
#     10,000 functions x 5 calls, 30,000 models), as perun check loads it;
#   - points.perf: one resource type with 1,000,000 points (integer sizes,
#     random floats of 17 digits), in the pending form Perun stores.
#   - /tmp/perun-bench-views/kperf-1000000.perf when it exists (made by
#     bench-views.sh: 1,000,000 resource types of one value, 38 MB), read
#     and never changed, fastest of 1 (its tree takes ~700 MB).
# For each file bench/bench-profile-load prints load (into the tape), walk
# (perun_profile_foreach_type reading every column value from the tape),
# tree (perun_profile_json), the same walk on the tree, compact and pending
# dump, the items of every row, free, the streamed load from the file and
# its walk (perun_profile_load_file_streamed: the map read during the walk,
# in a thread of its own), and load + tree (what loading cost before the
# tape) (user instructions, CPU and wall seconds, fastest of 3);
# then Python's json.load, the same walk over its dicts, json.dumps and
# the pending dump (indent=2 and the folding of number lists), fastest of
# 3, and the ratio C / Python.  End to end: perun show tableof (a table of
# the million rows) and perun
# postprocessby regression-analysis on points.perf.  The machine's load
# makes wall time noisy; instructions are the steadier figure.  Prints
# figures, asserts nothing.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
builddir=$(cd "${1:-.}" && pwd)
make -s -C "$builddir" bench/bench-profile-load perun stage-plugins >/dev/null
bench_setup bench-profile-load "$builddir"

python3 "$here/gen-check-profiles.py" "$work"
mv "$work/baseline.perf" "$work/trace.perf"
rm -f "$work/target.perf"
python3 - "$work/points.perf" <<'PY'
import json, random, re, sys
rnd = random.Random(7)
n = 1000000
prof = {
    "resources": {"work#0": {
        "structure-unit-size": list(range(1, n + 1)),
        "amount": [3 + 0.002 * i + rnd.random() - 0.5 for i in range(1, n + 1)],
    }},
    "resource_type_map": {"work#0": {"uid": "work", "type": "mixed",
                                     "subtype": "time delta"}},
    "models": [],
    "header": {"type": "mixed", "cmd": "bench", "args": "", "workload": "",
               "units": {"mixed(time delta)": "us"}},
    "collector_info": {"name": "trace", "params": {}},
    "postprocessors": [],
}
text = re.sub(r",\s+(\d+)", r", \1", json.dumps(prof, indent=2))
with open(sys.argv[1], "w") as out:
    out.write(text)
PY
printf '# load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"

kperf=/tmp/perun-bench-views/kperf-1000000.perf
for f in "$work/trace.perf" "$work/points.perf" "$kperf"; do
	[ -f "$f" ] || continue
	runs=3
	[ "$f" = "$kperf" ] && runs=1
	"$builddir/bench/bench-profile-load" -n $runs "$f" | tee "$work/c.out"
	python3 - "$f" "$work/c.out" $runs <<'PY'
import json, re, sys, time

def best(fn):
    times = []
    for _ in range(int(sys.argv[3])):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        times.append((time.process_time() - c0, time.perf_counter() - w0))
    return min(times)

def walk():
    # what bench-profile-load's walk does: every column value seen,
    # the numbers summed
    values, total = 0, 0.0
    resources = prof["resources"]
    for tid, persistent in prof["resource_type_map"].items():
        for key, column in resources.get(tid, {}).items():
            for v in column:
                values += 1
                if type(v) in (int, float):
                    total += v
    return values, total

text = open(sys.argv[1]).read()
prof = json.loads(text)
py = {
    "load": best(lambda: json.loads(text)),
    "walk": best(walk),
    "dump compact": best(lambda: json.dumps(prof)),
    "dump pending": best(lambda: re.sub(r",\s+(\d+)", r", \1", json.dumps(prof, indent=2))),
}
c = {}
for line in open(sys.argv[2]):
    m = re.match(r"\s+(\S.*?)\s+\S+ insns\s+([\d.]+) s cpu\s+([\d.]+) s wall", line)
    if m:
        c[m.group(1)] = (float(m.group(2)), float(m.group(3)))
py["load + walk"] = tuple(a + b for a, b in zip(py["load"], py["walk"]))
c["load + walk"] = tuple(a + b for a, b in zip(c["load"], c["walk"]))
print(f"  python3 json (best of {sys.argv[3]})       cpu     wall   C/Python cpu")
for phase, (cpu, wall) in py.items():
    ratio = c[phase][0] / cpu if cpu > 0 else float("nan")
    print(f"  {phase:<14} {cpu:14.3f} s {wall:7.3f} s {ratio:8.2f}")
PY
done

echo "# end to end (fastest of 3: wall, cpu seconds)"
set -- $(bench_best "$PERUN" show "$work/points.perf" tableof -of /dev/null resources)
printf '%-40s %8s %8s\n' "show points.perf tableof" "$1" "$2"
if [ -f "$PERUN_PLUGIN_PATH/postprocess/regression_analysis.so" ]; then
	set -- $(bench_best "$PERUN" postprocessby "$work/points.perf" regression-analysis)
	printf '%-40s %8s %8s\n' "postprocessby points.perf regression" "$1" "$2"
fi
