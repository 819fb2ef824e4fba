#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write a profile of N resources with models for the scatter benchmark.

    gen-scatter-profile.py N OUT [--uids U] [--seed S]

U uids (default 10) share the N points: structure-unit-size 0..9999 and an
amount growing as n log n with noise, in Perun's flattened format, plus a
linear and a regressogram model per uid as the postprocessors store them.
"""
import argparse
import json
import math
import random

ap = argparse.ArgumentParser()
ap.add_argument("n", type=int)
ap.add_argument("out")
ap.add_argument("--uids", type=int, default=10)
ap.add_argument("--seed", type=int, default=1)
args = ap.parse_args()
rnd = random.Random(args.seed)
res, rtm, models = {}, {}, []
per_uid = args.n // args.uids
for u in range(args.uids):
    uid = f"func_{u}(int)"
    xs = [rnd.randrange(10000) for _ in range(per_uid + (args.n % args.uids if u == 0 else 0))]
    ys = [round((u + 1) * x * math.log(x + 2) / 1000 * rnd.uniform(0.9, 1.1), 3) for x in xs]
    res[f"{uid}#0"] = {"structure-unit-size": xs, "amount": ys}
    rtm[f"{uid}#0"] = {"uid": uid, "type": "mixed", "subtype": "time delta"}
    models.append({"uid": uid, "model": "linear", "method": "full", "r_square": 0.98,
                   "x_start": 0, "x_end": 9999,
                   "coeffs": [{"name": "b0", "value": 0.0}, {"name": "b1", "value": (u + 1) * 0.01}]})
    models.append({"uid": uid, "model": "regressogram", "r_square": 0.99, "x_start": 0, "x_end": 9999,
                   "y_start": 0.0, "buckets_method": "doane", "statistic_function": "mean",
                   "bucket_stats": [(u + 1) * (b + 0.5) * 500 * math.log(b * 500 + 252) / 1000
                                    for b in range(20)]})
profile = {"resources": res, "resource_type_map": rtm, "models": models,
           "header": {"type": "mixed", "cmd": "bench", "workload": "",
                      "units": {"mixed(time delta)": "ms"}},
           "collector_info": {"name": "complexity", "params": {}}, "postprocessors": []}
with open(args.out, "w") as f:
    json.dump(profile, f)
