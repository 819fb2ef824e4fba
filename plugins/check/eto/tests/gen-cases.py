#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write the synthetic trace profiles of the eto tests into cases/ (a developer tool).

    gen-cases.py OUTDIR

renamed-{baseline,target}.perf: two binaries whose names change with their
version (libsort-3.4.so -> libsort-3.5.so) as upstream's location matching
expects, a slowed and a sped-up function, two new ones and a removed one;
many-{baseline,target}.perf: 300 functions over three binaries (numpy's
pairwise sums and pandas' quantiles over more than 128 values), several
resource types per function (per thread), a resource without exclusive
times, a non-ASCII name and a handful of planted outliers;
chained-{baseline,target}.perf: location renames that must not chain.
The numbers come from a fixed-seed generator, so the files are stable.
"""
import json
import random
import sys


def profile(funcs):
    """funcs: list of (uid, location, tid, [exclusive ns...])"""
    resources, rtm = {}, {}
    counts = {}
    for uid, loc, tid, excl in funcs:
        n = counts.get(uid, 0)
        counts[uid] = n + 1
        key = "%s#%d" % (uid, n)
        if excl is None:
            resources[key] = {"amount": [1], "timestamp": [10], "call-order": [0]}
        else:
            resources[key] = {"amount": [e + 7 for e in excl],
                              "timestamp": list(range(len(excl))),
                              "call-order": list(range(len(excl))),
                              "exclusive": excl}
        rtm[key] = {"location": loc, "subtype": "time delta", "tid": tid, "time": "0.0",
                    "type": "mixed", "uid": uid, "workload": ""}
    return {
        "resources": resources,
        "resource_type_map": rtm,
        "models": [],
        "origin": "f" * 40,
        "header": {"type": "mixed", "cmd": "./run_sorts", "args": "", "workload": "",
                   "units": {"mixed(time delta)": "us"}},
        "collector_info": {"name": "trace", "params": {}},
        "postprocessors": [],
    }


def write(path, prof):
    with open(path, "w") as f:
        json.dump(prof, f)
        f.write("\n")


def renamed():
    rnd = random.Random(7)
    base, targ = [], []
    names = ["sort_%02d" % i for i in range(12)]
    for i, name in enumerate(names):
        calls = [rnd.randint(90000, 110000) for _ in range(5)]
        loc = "libsort-3.4.so" if i % 2 else "run_sorts"
        tloc = "libsort-3.5.so" if i % 2 else "run_sorts"
        if name != "sort_03":  # only in the target
            base.append((name, loc, 1, calls))
        t = [c + rnd.randint(-2000, 2000) for c in calls]
        if name == "sort_05":
            t = [c * 10 for c in calls]
        if name == "sort_08":
            t = [c // 4 for c in calls]
        targ.append((name, tloc, 1, t))
    base.append(("old_helper", "libsort-3.4.so", 1, [50000, 60000]))
    targ.append(("new_helper", "libsort-3.5.so", 1, [400000, 350000]))
    return profile(base), profile(targ)


def many():
    rnd = random.Random(11)
    base, targ = [], []
    locs = ["run_many", "libmath.so.6", "libc.so.6"]
    for i in range(300):
        name = "func_%03d" % i if i != 17 else "f\u00fcnf_017"
        loc = locs[i % 3]
        calls = [rnd.randint(1000, 200000) for _ in range(rnd.randint(1, 12))]
        tcalls = [max(1, int(c * rnd.gauss(1.0, 0.03))) for c in calls]
        if i % 41 == 5:
            tcalls = [c * 6 for c in calls]
        if i % 53 == 7:
            tcalls = [c // 5 for c in calls]
        base.append((name, loc, 100, calls))
        targ.append((name, loc, 200, tcalls))
        if i % 10 == 0:  # a second thread of the same function
            base.append((name, loc, 101, calls[:2]))
            targ.append((name, loc, 201, tcalls[:2]))
    base.append(("!ProcessResource!", "run_many", 100, None))
    targ.append(("!ProcessResource!", "run_many", 200, None))
    return profile(base), profile(targ)


def chained():
    """Renames that would chain if applied one after the other: libfoo-1.so
    becomes libfoo- (its match is libfoo-2.so), while the baseline's own
    libfoo- becomes libfo (its match is libfoa-)."""
    rnd = random.Random(3)
    base, targ = [], []
    for i in range(10):
        calls = [rnd.randint(9000, 11000) for _ in range(3)]
        bloc = ["libfoo-1.so", "libfoo-", "main"][i % 3]
        tloc = ["libfoo-2.so", "libfoa-", "main"][i % 3]
        base.append(("fn_%d" % i, bloc, 1, calls))
        targ.append(("fn_%d" % i, tloc, 1, [c * (3 if i == 4 else 1) for c in calls]))
    return profile(base), profile(targ)


def main():
    out = sys.argv[1]
    b, t = renamed()
    write(out + "/renamed-baseline.perf", b)
    write(out + "/renamed-target.perf", t)
    b, t = chained()
    write(out + "/chained-baseline.perf", b)
    write(out + "/chained-target.perf", t)
    b, t = many()
    write(out + "/many-baseline.perf", b)
    write(out + "/many-target.perf", t)


if __name__ == "__main__":
    main()
