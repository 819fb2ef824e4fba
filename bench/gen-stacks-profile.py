#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write a kperf-type profile with N distinct call stacks, or with --trace
a trace-type profile of N recorded calls (for benchmarks).

    gen-stacks-profile.py N OUT [--seed S] [--shift F] [--trace]

Stacks are random walks over a synthetic call graph (5,000 functions, each
calling 8 others, 10 entry points, depth 4 to 24), so prefixes are shared as
in real programs.  Every stack gets a sample count; --shift F multiplies the
counts of one function's subtrees by F (a "changed" target for showdiff).
The profile is in Perun's flattened format, as Python Perun writes kperf
profiles: resource type "<uid>#<k>" with the trace, amounts in "resources".
With --trace, calls nest on two threads as the trace collector records them:
per function and thread one resource type with amount, timestamp and
call-order columns.
"""
import json
import random
import sys
import argparse

ap = argparse.ArgumentParser()
ap.add_argument("n", type=int)
ap.add_argument("out")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--shift", type=float, default=1.0)
ap.add_argument("--trace", action="store_true")
args = ap.parse_args()


def write(res, rtm, ptype, units, collector):
    profile = {
        "resources": res, "resource_type_map": rtm, "models": [],
        "header": {"type": ptype, "cmd": "bench", "workload": "", "units": units},
        "collector_info": collector, "postprocessors": [],
    }
    with open(args.out, "w") as f:
        json.dump(profile, f)


rng = random.Random(args.seed)
graph_rng = random.Random(42)  # the same program for every seed
names = [f"fn_{i:04d}" for i in range(5000)]
callees = [[graph_rng.randrange(5000) for _ in range(8)] for _ in range(5000)]
roots = list(range(10))

if args.trace:
    sys.setrecursionlimit(10000)
    calls = {}
    budget = [args.n]

    def call(f, depth, t, tid):
        start = t
        t += rng.randint(1, 20)
        if depth < 24:
            for _ in range(rng.choices((0, 1, 2, 3), (35, 30, 20, 15))[0]):
                if budget[0] <= 0:
                    break
                budget[0] -= 1
                t = call(callees[f][rng.randrange(8)], depth + 1, t, tid) + rng.randint(0, 10)
        t += rng.randint(1, 20)
        calls.setdefault((names[f], tid), []).append((start, t - start))
        return t

    t = {1001: 0, 1002: 0}
    while budget[0] > 0:
        budget[0] -= 1
        tid = rng.choice((1001, 1002))
        t[tid] = call(rng.choice(roots), 1, t[tid], tid) + rng.randint(1, 50)
    res, rtm, per_uid = {}, {}, {}
    for (uid, tid), recs in sorted(calls.items()):
        k = per_uid.get(uid, 0)
        per_uid[uid] = k + 1
        rid = f"{uid}#{k}"
        recs.sort()
        rtm[rid] = {"location": "bench", "subtype": "time delta", "tid": tid, "type": "mixed",
                    "uid": uid, "workload": ""}
        res[rid] = {"amount": [d for _, d in recs], "timestamp": [s for s, _ in recs],
                    "call-order": list(range(len(recs)))}
    write(res, rtm, "mixed", {"mixed(time delta)": "us"},
          {"name": "trace", "params": {"engine": "ebpf"}})
    sys.exit(0)

# Streamed: a million traces as Python objects would take gigabytes.
seen = set()
stacks = []
while len(seen) < args.n:
    f = rng.choice(roots)
    path = [f]
    for _ in range(rng.randint(4, 24) - 1):
        f = callees[f][rng.randrange(8)]
        path.append(f)
    key = tuple(path)
    if key in seen:
        continue
    seen.add(key)
    count = rng.randint(1, 100)
    if args.shift != 1.0 and 7 in path:
        count = max(1, int(count * args.shift))
    stacks.append((key, count))
seen = None
per_uid = {}
rids = []
for path, _ in stacks:
    uid = names[path[-1]]
    k = per_uid.get(uid, 0)
    per_uid[uid] = k + 1
    rids.append(f"{uid}#{k}")
with open(args.out, "w") as out:
    out.write('{"resources": {')
    out.write(", ".join(f'"{rid}": {{"amount": [{c}]}}' for rid, (_, c) in zip(rids, stacks)))
    out.write('}, "resource_type_map": {')
    for i, (rid, (path, _)) in enumerate(zip(rids, stacks)):
        trace = ", ".join(f'{{"func": "{names[p]}"}}' for p in path[:-1])
        out.write(f'{", " if i else ""}"{rid}": {{"command": "bench", "time": 1.0, '
                  f'"trace": [{trace}], "uid": "{names[path[-1]]}"}}')
    out.write('}, "models": [], "header": {"type": "time", "cmd": "bench", "workload": "", '
              '"units": {"time": "sample"}}, "collector_info": {"name": "kperf", "params": '
              '{"with_sudo": false, "warmup": 0, "repeat": 1}}, "postprocessors": []}\n')
