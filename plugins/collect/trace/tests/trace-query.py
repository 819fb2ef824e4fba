#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Questions the trace tests ask of a profile (Perun's flattened format).

  trace-query.py PROFILE uids            distinct uids, one a line
  trace-query.py PROFILE calls UID       number of resources of UID
  trace-query.py PROFILE tids UID        number of distinct threads of UID
  trace-query.py PROFILE min UID         smallest amount of UID (us)
  trace-query.py PROFILE end UID         latest end (timestamp + amount) of UID
  trace-query.py PROFILE orders UID      call-order values of UID, sorted
  trace-query.py PROFILE exclusive ROOT...
        per thread, the time functions spent in callees (amount - exclusive,
        summed) against the summed amounts of all non-root functions; prints
        "ok" when they agree to within 1 ns per call
  trace-query.py PROFILE processes       "pid ppid" of process records
  trace-query.py PROFILE field UID KEY   distinct values of a persistent key
"""
import collections
import json
import sys


def rows(profile):
    for type_id, columns in profile["resources"].items():
        persistent = profile["resource_type_map"][type_id]
        n = len(next(iter(columns.values()))) if columns else 1
        for i in range(n):
            row = dict(persistent)
            for key, values in columns.items():
                row[key] = values[i]
            yield row


def main():
    with open(sys.argv[1]) as f:
        profile = json.load(f)
    what, args = sys.argv[2], sys.argv[3:]
    all_rows = list(rows(profile))
    of = [r for r in all_rows if args and r["uid"] == args[0]]
    if what == "uids":
        print("\n".join(sorted({r["uid"] for r in all_rows})))
    elif what == "calls":
        print(len(of))
    elif what == "tids":
        print(len({r["tid"] for r in of}))
    elif what == "min":
        print(min(r["amount"] for r in of) if of else "none")
    elif what == "end":
        print(max(r["timestamp"] + r["amount"] for r in of) if of else "none")
    elif what == "orders":
        print(" ".join(str(o) for o in sorted(r["call-order"] for r in of)))
    elif what == "field":
        print("\n".join(sorted({str(r.get(args[1])) for r in of})))
    elif what == "processes":
        for r in all_rows:
            if r["uid"] == "!ProcessResource!":
                print(r["pid"], r["ppid"])
    elif what == "exclusive":
        roots = set(args)
        callee = collections.defaultdict(float)
        nonroot = collections.defaultdict(float)
        calls = collections.defaultdict(int)
        for r in all_rows:
            if "exclusive" not in r:
                continue
            callee[r["tid"]] += r["amount"] - r["exclusive"]
            calls[r["tid"]] += 1
            if r["uid"] not in roots:
                nonroot[r["tid"]] += r["amount"]
        bad = [(t, callee[t], nonroot[t]) for t in calls
               if abs(callee[t] - nonroot[t]) > 0.001 * calls[t]]
        print("ok" if calls and not bad else "mismatch %s" % bad)
    else:
        sys.exit("unknown question " + what)


main()
