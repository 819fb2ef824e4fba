#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write two trace-like profiles, baseline.perf and target.perf, into DIR:
10,000 functions x 5 calls (amount, exclusive, call-order, timestamp,
structure-unit-size) and per function a linear, a quadratic and a
regressogram model; every 50th function is 3x slower in the target.

    gen-check-profiles.py DIR
"""
import json, random, sys
work = sys.argv[1]

def profile(seed, slowdown):
    rnd = random.Random(seed)
    resources, types, models = {}, {}, []
    for f in range(10000):
        uid = f"func_{f:05d}(int, char const*)"
        scale = 1.0 + (f % 97) / 10.0
        if f % 50 == 0:
            scale *= slowdown          # some functions change
        sizes = [10 * (k + 1) for k in range(5)]
        amounts = [round(scale * s * (1 + rnd.random() / 10), 3) for s in sizes]
        key = f"{uid}#0"
        resources[key] = {
            "amount": amounts,
            "exclusive": [round(a * 0.8, 3) for a in amounts],
            "structure-unit-size": sizes,
            "call-order": [f * 5 + k for k in range(5)],
            "timestamp": [1000 * f + k for k in range(5)],
        }
        types[key] = {"location": "bench", "subtype": "time delta", "tid": 1,
                      "type": "mixed", "uid": uid, "workload": ""}
        common = {"uid": uid, "x_start": 10, "x_end": 50, "method": "full"}
        models.append(dict(common, model="linear", r_square=0.95 + rnd.random() / 25,
                           coeffs=[{"name": "b0", "value": scale}, {"name": "b1", "value": scale}]))
        models.append(dict(common, model="quadratic", r_square=0.9 + rnd.random() / 20,
                           coeffs=[{"name": "b0", "value": scale}, {"name": "b1", "value": 0.5},
                                   {"name": "b2", "value": scale / 100}]))
        models.append({"uid": uid, "model": "regressogram", "r_square": 0.8,
                       "bucket_stats": [scale * s for s in sizes], "buckets_method": "user",
                       "statistic_function": "mean", "x_start": 10, "x_end": 50,
                       "y_start": amounts[0], "per_key": "structure-unit-size", "of_key": "amount"})
    return {
        "header": {"type": "mixed", "cmd": "bench", "args": "", "workload": "",
                   "units": {"mixed(time delta)": "us"}},
        "collector_info": {"name": "trace", "params": {}},
        "postprocessors": [],
        "resources": resources, "resource_type_map": types, "models": models,
    }

for name, seed, slow in (("baseline", 1, 1.0), ("target", 2, 3.0)):
    with open(f"{work}/{name}.perf", "w") as out:
        json.dump(profile(seed, slow), out)
