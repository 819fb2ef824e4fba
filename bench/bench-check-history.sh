#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-check-history.sh [builddir] - the history-aware check (cpd) and eto.
#
# 1. In process, through the plugin ABI (bench/bench-check-history): cpd's
#    compare_series on 100 versions x 10,000 locations (3 repetitions each,
#    a tenth of the locations with a 2x step) with the t-test and the
#    permutation test, and eto's compare on two trace profiles of 10,000
#    functions; CPU seconds of the call alone, and how many steps cpd named
#    at their version.
# 2. End to end: perun check profiles with eto on two such profiles (JSON
#    written by the bench), and perun check all with cpd over a git
#    history of 100 commits with one time profile of 10,000 locations each
#    (loading the 100 profiles included).  Wall and CPU seconds of the
#    fastest of 3 runs (needs GNU time, Debian: time); then the peak
#    memory of check all with cpd and with aat.
# Target: check profiles on 10,000 functions under one second.
# Prints figures, asserts nothing.
set -eu

. "$(dirname "$0")/bench-lib.sh"
builddir=$(cd "${1:-.}" && pwd)
make -s -C "$builddir" perun stage-plugins bench/bench-check-history >/dev/null
bench_setup bench-check-history "$builddir"

printf '# load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "## in process"
"$builddir/bench/bench-check-history" "$PERUN_PLUGIN_PATH" 100 10000 10000

python3 - "$work" <<'PY'
import json, random, sys
work = sys.argv[1]
rnd = random.Random(5)

def trace(target):
    res, rtm = {}, {}
    libs = ["run", "libfoo-1.3.so" if target else "libfoo-1.2.so", "libc.so.6", "libm.so.6"]
    for f in range(10000):
        uid = "func_%05d" % f
        scale = 1000 * (1 + f % 97) * (5 if target and f % 500 == 7 else 1)
        calls = [int(scale * (1 + rnd.gauss(0, 0.03))) for _ in range(5)]
        res[uid + "#0"] = {"amount": calls, "exclusive": [int(c * 0.8) for c in calls],
                           "call-order": list(range(5)), "timestamp": list(range(5))}
        rtm[uid + "#0"] = {"uid": uid, "location": libs[f % 4], "type": "mixed",
                           "subtype": "time delta", "tid": 1, "workload": ""}
    return {"header": {"type": "mixed", "cmd": "./run", "args": "", "workload": "",
                       "units": {"mixed(time delta)": "us"}},
            "collector_info": {"name": "trace", "params": {}}, "postprocessors": [],
            "resources": res, "resource_type_map": rtm, "models": []}

for name, target in (("baseline", 0), ("target", 1)):
    with open("%s/eto-%s.perf" % (work, name), "w") as out:
        json.dump(trace(target), out)

def timing(v):
    res, rtm = {}, {}
    for l in range(10000):
        uid = "./prog:f%05d" % l
        level = 0.001 * (1 + l % 17) * (2 if l % 10 == 3 and v >= 25 + (l // 10) % 50 else 1)
        res[uid + "#0"] = {"amount": [level * (1 + rnd.gauss(0, 0.05)) for _ in range(3)],
                           "order": [1, 2, 3]}
        rtm[uid + "#0"] = {"uid": uid, "subtype": "real", "type": "time"}
    return {"header": {"type": "time", "cmd": "./prog", "args": "", "workload": "",
                       "units": {"time": "s"}},
            "collector_info": {"name": "time", "params": {}}, "postprocessors": [],
            "resources": res, "resource_type_map": rtm, "models": []}

for v in range(100):
    with open("%s/time-%03d.perf" % (work, v), "w") as out:
        json.dump(timing(v), out)
PY
ls -l "$work/eto-baseline.perf" "$work/time-000.perf" |
	awk '{ printf "# %s: %.1f MB\n", $NF, $5 / 1e6 }'

echo "## end to end"
printf '%-34s %8s %8s\n' command wall cpu
"$PERUN" config --local set degradation.strategies "[{method: eto}]" >/dev/null
set -- $(bench_best "$PERUN" check profiles "$work/eto-baseline.perf" "$work/eto-target.perf")
printf '%-34s %8s %8s\n' "check profiles (eto, 10,000 fns)" "$1" "$2"

# 100 commits, one time profile each.
for v in $(seq 0 99); do
	git -c user.name=b -c user.email=b@example.com commit -q --allow-empty -m "v$v"
	"$PERUN" add --force --keep-profile "$work/time-$(printf %03d "$v").perf" >/dev/null
done
"$PERUN" config --local set degradation.strategies "[{method: cpd}]" >/dev/null
set -- $(bench_best "$PERUN" check all)
n=$("$PERUN" check --format json all | python3 -c '
import json, sys
print(sum(1 for c in json.load(sys.stdin)["changes"] if c["method"] == "cpd" and c["result"] != "NoChange"))')
printf '%-34s %8s %8s   %s changes\n' "check all (cpd, 100 x 10,000)" "$1" "$2" "$n"

# Peak memory of check all over the 100 versions: with cpd, which judges
# whole histories, every profile stays loaded to the end; without a
# history method (aat) only the version being checked and its parents'
# are held (issue 21), however long the history.  BENCH_BEFORE=<builddir>
# adds an earlier build's figures.  2026-11-28, AMD EPYC 2-core VM, against
# 7566fca: cpd 6.50 s, 1938 MB (before 6.44 s, 1938 MB: loaded whole
# either way); aat 4.79 s, 492 MB (before 5.63 s, 1921 MB), most of it the
# report's million verdicts.
bench_label_width=34
bench_measure "check all (cpd): peak memory" "$PERUN" check all
"$PERUN" config --local set degradation.strategies "[{method: aat}]" >/dev/null
bench_measure "check all (aat, 100 x 10,000)" "$PERUN" check all
