#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Classify what every check method reported over the false-alarm corpus.

    classify.py HISTORY.tsv DIR METHOD...

Also writes DIR/alarms.txt: every alarm and Maybe with its class.

HISTORY.tsv is gen-history.py's (sha, kind, function, up|down, factor,
subject); DIR holds per method all-<m>.json ('perun check --format json
all') and gate-<m>.tsv ('<sha> <exit code of check head --fail-on
degradation>').  An alarm is a verdict of Degradation or Optimization level
(Degradation, Severe, Total; what --fail-on degradation gates on for the
degradations); Maybe* verdicts are counted apart.  An alarm is
  found        at a planted commit, in its function, the planted direction
               (for the creep: at any of its eight commits, upwards);
  consistent   at a planted commit, a whole-program location (eto's Total,
               the trace's !ProcessResource!), the planted direction;
  false alarm  anything else: at an identical-code commit, or in another
               function, metric (max-rss) or direction at a planted one.
"""
import json, sys
from collections import defaultdict

hist_path, d, methods = sys.argv[1], sys.argv[2], sys.argv[3:]
FUNCS = {"hash", "xorshift", "modsum", "lcg", "fold"}
history = [line.rstrip("\n").split("\t") for line in open(hist_path)]
kind = {h[0]: h for h in history}
planted = [h for h in history if h[1] == "planted"]
creep = [h for h in history if h[1] == "creep"]
changes = [(h[2], h[3], h[5]) for h in planted] + \
          ([(creep[0][2], "up", f"{creep[0][2]}: +3% x {len(creep)} (creep)")] if creep else [])
identical = [h[0] for h in history if h[1] == "identical"]


def where(loc):
    """(function or '*' for the whole program, metric)"""
    loc = loc[2:] if loc.startswith("./") else loc
    if loc.endswith(":max-rss"):
        return loc[:-8], "max-rss"
    for sub in (":real", ":user", ":sys"):  # a time profile's series
        if loc.endswith(sub):
            loc = loc[:-len(sub)]
    return (loc if loc in FUNCS else "*"), "time"


def collector(c):
    return "trace" if c.get("cmdstr", "").startswith("./all") else "time"


rows, gates, default_gate = [], [], None
details = open(f"{d}/alarms.txt", "w")
for m in methods:
    data = json.load(open(f"{d}/all-{m}.json"))
    per = defaultdict(lambda: {"found": set(), "maybe": set(), "fa_ident": 0, "fa_ident_commits": set(),
                               "fa_planted": 0, "maybe_ident": 0, "applies": False})
    for c in data["changes"]:
        if c["method"] != (m if m != "default" else "aat"):   # the shared default
            continue
        code = c["result_code"]
        ver = c.get("version") or (data["pairs"][c["pair"]]["target_minor"]
                                   if c.get("pair") is not None else None)
        r = per[collector(c)]
        r["applies"] = True
        if code == 0 or ver not in kind:
            continue
        alarm, up = abs(code) in (2, 3, 4), code < 0
        k = kind[ver]
        fn, metric = where(c["location"])
        what = "false alarm"
        if k[1] in ("planted", "creep"):
            right = (up == (k[3] == "up"))
            what = ("found" if fn == k[2] and metric == "time" and right else
                    "consistent" if fn == "*" and right else "false alarm")
        print(m, collector(c), ver[:7], k[5], c["location"], c["type"], c["result"],
              c["from"], "->", c["to"], "" if alarm else "(maybe)", what, sep="\t", file=details)
        if k[1] == "identical":
            if alarm:
                r["fa_ident"] += 1
                r["fa_ident_commits"].add(ver)
            else:
                r["maybe_ident"] += 1
            continue
        if k[1] not in ("planted", "creep"):
            continue
        right_dir = up == (k[3] == "up")
        key = k[5] if k[1] == "planted" else changes[-1][2]
        if fn == k[2] and metric == "time" and right_dir:
            (r["found"] if alarm else r["maybe"]).add(key)
        elif fn == "*" and right_dir:
            pass                      # consistent: the program's total moved so
        elif alarm:
            r["fa_planted"] += 1
    # which collectors the method looked at (pairs are made per method)
    for p in data["pairs"]:
        if p.get("verdicts"):
            per["trace" if p["cmdstr"].startswith("./all") else "time"]["applies"] = True
    for col in ("time", "trace"):
        r = per[col]
        if not r["applies"]:
            rows.append((m, col, "-", "-", "no verdicts", "-", "-", "-"))
            continue
        missed = [s for _, _, s in changes if s not in r["found"]]
        rows.append((m, col, f"{len(r['found'])}/{len(changes)}",
                     str(len([s for s in missed if s in r["maybe"]])),
                     ", ".join(s.split(":")[0] + ("(maybe)" if s in r["maybe"] else "") for s in missed) or "-",
                     f"{r['fa_ident']} at {len(r['fa_ident_commits'])}", str(r["fa_planted"]),
                     str(r["maybe_ident"])))
    rc = dict(line.split() for line in open(f"{d}/gate-{m}.tsv"))
    if m == "default":
        default_gate = " ".join(f"{s[:7]}:{rc.get(s, '?')}" for s in identical)
    fails = [s for s in identical if rc.get(s) == "1"]
    degr = [h for h in planted if h[3] == "up"]
    opt = [h for h in planted if h[3] == "down"]
    gates.append((m, f"{len(fails)}/{len(identical)}",
                  f"{sum(rc.get(h[0]) == '1' for h in degr)}/{len(degr)}",
                  f"{sum(rc.get(h[0]) == '1' for h in opt)}/{len(opt)}",
                  f"{sum(rc.get(h[0]) == '1' for h in creep)}/{len(creep)}",
                  " ".join(sorted({rc.get(s, '?') for s in identical}))))

head = ("method", "profiles", "found", "maybe", "missed", "false alarms (identical)",
        "FA at planted", "maybe at ident.")
w = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
print("Planted changes found at their commit and function (alarm level), false alarms:")
for r in [head] + rows:
    print("  ".join(str(x).ljust(w[i]) for i, x in enumerate(r)).rstrip())
print()
head = ("method", "gate fails at identical", "at planted degr.", "at planted opt.",
        "at creep steps", "exit codes at identical")
gates.sort(key=lambda g: g[0] != "default")
w = [max(len(str(r[i])) for r in gates + [head]) for i in range(len(head))]
print("The gate, perun check head --fail-on degradation <commit>:")
for r in [head] + gates:
    print("  ".join(str(x).ljust(w[i]) for i, x in enumerate(r)).rstrip())
if default_gate:
    print("\nThe default gate (shared rules: aat), exit code at each identical commit:")
    print("  " + default_gate)
