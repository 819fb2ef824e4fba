#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Synthetic, seeded history of profiles for tests/t2006-check-false-alarms.sh:
the corpus of bench/bench-false-alarms.sh (five functions, identical-code
versions between planted changes) without measuring anything.

    false-alarm-history.py count
        the number of versions (commits the test makes)
    false-alarm-history.py make OUTDIR SEED SHA...
        OUTDIR/history.tsv (sha, kind, function, up|down, subject) and per
        version v (1-based): vNN-<f>.perf, a time profile of ./<f> over the
        sizes 1000, 2000, 3000 (five runs each: real, user, sys, max-rss),
        as 'perun run matrix' merges a workload generator's runs, and
        vNN-trace.perf, a trace profile of ./all 2000 (per-call records of
        the five functions, with their exclusive times, and the process)
    false-alarm-history.py judge OUTDIR ALL.json METHOD
        what METHOD reported in 'perun check --format json all', one line
        each: "found <subject>" for an alarm (Degradation or Optimization
        level: Degradation, Severe, Total) at a planted version, in its
        function, its direction; "maybe <subject>" for a Maybe there;
        "false <version> <subject> <location> <result>" for an alarm at an
        identical version or in another function or direction.

The noise is what bench/bench-false-alarms.sh sees on a shared 2-core
machine: per collection a load factor shared by its runs (sd 2%), per run
3%, and outliers (4% of the runs, 3% of the calls) slowed 1.3-2.5x (runs:
their wall time) or 1.5-4x (calls).  Identical versions draw from the same
distribution; a planted version scales one function's cost.
"""
import json, math, os, random, sys

FUNCS = ["hash", "xorshift", "modsum", "lcg", "fold"]
COST = {"hash": 0.050, "xorshift": 0.060, "modsum": 0.045, "lcg": 0.055, "fold": 0.050}  # s per 1000
CALLS = {"hash": 10, "xorshift": 20, "modsum": 5, "lcg": 10, "fold": 40}    # calls per traced run
SIZES, REPEAT, TRACE_N, N0 = (1000, 2000, 3000), 5, 2000, 1000

# (kind, function, factor or "quadratic", subject), oldest first: bench's.
HISTORY = [("base", "-", 1, "base")]
_ident = [("identical", "-", 1, s) for s in ("comment", "rename", "docs")]
HISTORY += [_ident[0], ("planted", "xorshift", 1.3, "xorshift +30%"), _ident[1], _ident[2],
            ("planted", "hash", 2.0, "hash 2x slower"), _ident[0],
            ("planted", "modsum", 1.1, "modsum +10%"), _ident[1], _ident[2],
            ("planted", "lcg", "quadratic", "lcg O(n^2)"), _ident[0],
            ("planted", "fold", 1 / 3, "fold 3x faster"), _ident[1], _ident[2]]
HISTORY += [("creep", "xorshift", 1.03, f"xorshift creep {k}") for k in range(1, 9)]
HISTORY += [_ident[k % 3] for k in range(5)]
CREEP = "xorshift +3% x 8 (creep)"


def lognormal(rnd, sd):
    return math.exp(rnd.gauss(0, sd))


def make(out, seed, shas):
    rnd = random.Random(seed)
    factor, quadratic = {f: 1.0 for f in FUNCS}, set()
    with open(os.path.join(out, "history.tsv"), "w") as hist:
        for v, ((kind, fn, fac, subject), sha) in enumerate(zip(HISTORY, shas), 1):
            if fac == "quadratic":
                quadratic.add(fn)
            elif fn != "-":
                factor[fn] *= fac
            up = "-" if fn == "-" else "up" if fac == "quadratic" or fac > 1 else "down"
            hist.write(f"{sha}\t{kind}\t{fn}\t{up}\t{subject}\n")
            cost = lambda f, n: COST[f] * n / 1000 * factor[f] * (n / N0 if f in quadratic else 1)
            for f in FUNCS:
                write(out, f"v{v:02d}-{f}.perf", time_profile(rnd, f, cost, sha))
            write(out, f"v{v:02d}-trace.perf", trace_profile(rnd, cost, sha))


def write(out, name, profile):
    with open(os.path.join(out, name), "w") as f:
        json.dump(profile, f)


def time_profile(rnd, f, cost, sha):
    """As the time collector writes it, merged over the sizes."""
    res, types, load = {}, {}, lognormal(rnd, 0.02)
    for n in SIZES:
        cols = {"real": [], "user": [], "sys": [], "max-rss": []}
        for _ in range(REPEAT):
            cpu = cost(f, n) * load * lognormal(rnd, 0.03)
            real = cpu * (1.01 + 0.03 * rnd.random())
            if rnd.random() < 0.04:        # the machine was busy: waited, and caches cold
                real *= rnd.uniform(1.3, 2.5)
                cpu *= rnd.uniform(1.0, 1.15)
            sys_ = 0.004 if rnd.random() < 0.2 else 0.0   # tick accounting
            cols["real"].append(round(real, 9))
            cols["user"].append(round(max(cpu - sys_, 0.0), 6))
            cols["sys"].append(sys_)
            cols["max-rss"].append(rnd.choice((1282048, 1384448, 1396736, 1425408, 1568768)))
        for sub in ("real", "user", "sys", "max-rss"):
            key = f"./{f}{':max-rss' if sub == 'max-rss' else ''}#{len(res)}"
            res[key] = {"amount": cols[sub], "order": list(range(1, REPEAT + 1))}
            types[key] = {"subtype": sub, "time": str(sum(cols["real"])),
                          "type": "memory" if sub == "max-rss" else "time",
                          "uid": f"./{f}:max-rss" if sub == "max-rss" else f"./{f}",
                          "workload": n}
            if sub == "max-rss":
                types[key]["exit-code"] = 0
    return {"header": {"type": "time", "cmd": f"./{f}", "workload": "sizes",
                       "units": {"time": "s", "memory": "B"}},
            "collector_info": {"name": "time", "params": {"repeat": REPEAT, "warmup": 1,
                                                          "output": "discard"}},
            "postprocessors": [], "models": [], "origin": sha,
            "resources": res, "resource_type_map": types}


def trace_profile(rnd, cost, sha):
    """As the trace collector (eBPF) writes it: a record per call, in us."""
    res, types, t, load = {}, {}, 0.0, lognormal(rnd, 0.02)
    for f in FUNCS:
        amounts, stamps = [], []
        for _ in range(CALLS[f]):
            a = cost(f, TRACE_N) * 10 / CALLS[f] * 1e6 * load * lognormal(rnd, 0.03)
            if rnd.random() < 0.03:        # preempted mid-call
                a *= rnd.uniform(1.5, 4.0)
            stamps.append(round(t, 3))
            amounts.append(round(a, 3))
            t += a + 5.0
        res[f"{f}#0"] = {"amount": amounts, "timestamp": stamps,
                         "call-order": list(range(len(amounts))), "exclusive": amounts}
        types[f"{f}#0"] = {"location": "prog", "subtype": "time delta", "tid": 4242,
                           "type": "mixed", "uid": f, "workload": str(TRACE_N)}
    res["!ProcessResource!#0"] = {"amount": [round(t + 900.0, 3)], "timestamp": [0.0],
                                  "call-order": [0]}
    types["!ProcessResource!#0"] = {"location": "prog", "pid": 4242, "ppid": 4200,
                                    "subtype": "time delta", "tid": 4242, "type": "mixed",
                                    "uid": "!ProcessResource!", "workload": str(TRACE_N)}
    return {"header": {"type": "mixed", "cmd": "./all", "workload": str(TRACE_N),
                       "units": {"mixed(time delta)": "us"}},
            "collector_info": {"name": "trace", "params": {"func": FUNCS, "engine": "ebpf",
                                                           "strategy": "custom"}},
            "postprocessors": [], "models": [], "origin": sha,
            "resources": res, "resource_type_map": types}


def judge(out, path, method):
    hist = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "history.tsv"))]
    by_sha = {h[0]: (i + 1, h) for i, h in enumerate(hist)}
    data = json.load(open(path))
    for c in data["changes"]:
        code = c["result_code"]
        ver = c.get("version") or (data["pairs"][c["pair"]]["target_minor"]
                                   if c.get("pair") is not None else None)
        if c["method"] != method or code == 0 or ver not in by_sha:
            continue
        v, (_, kind, fn, up, subject) = by_sha[ver]
        loc = c["location"][2:] if c["location"].startswith("./") else c["location"]
        for sub in (":real", ":user", ":sys"):  # a time profile's series
            if loc.endswith(sub):
                loc = loc[:-len(sub)]
        alarm = abs(code) in (2, 3, 4)
        right = kind in ("planted", "creep") and loc == fn and (code < 0) == (up == "up")
        whole = kind in ("planted", "creep") and loc not in FUNCS and \
            not loc.endswith(":max-rss") and (code < 0) == (up == "up")
        name = CREEP if kind == "creep" else subject
        if right:
            print(f"{'found' if alarm else 'maybe'} {name}")
        elif alarm and not whole:  # a whole-program total moving with the change is no alarm
            print(f"false v{v:02d} {subject} {c['location']} {c['result']}")


if __name__ == "__main__":
    if sys.argv[1] == "count":
        print(len(HISTORY))
    elif sys.argv[1] == "make":
        make(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
    else:
        judge(sys.argv[2], sys.argv[3], sys.argv[4])
