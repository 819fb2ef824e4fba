#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""An independent reader of Chrome Trace Event JSON (python3's json only).

  check-trace.py FILE...

Each file must parse as JSON, as an array of events or an object with
traceEvents.  Per process and thread, B and E events must balance and
nest by name; X events need dur >= 0; async b and e events must pair by
(cat, name, id) exactly once.  Prints, sorted:

  region NAME COUNT MIN_US      sync regions (B/E pairs and X events)
  async NAME COUNT MIN_US       async pairs
  instant NAME COUNT            i events (args too: NAME.KEY=VALUE... not shown)
  counter NAME COUNT
  threads N                     distinct (pid, tid) with events
  processes N                   distinct pids with events
  format array|object           of the last file
Exits 1 with the problem on stderr when a rule is broken.
"""
import collections
import json
import sys


def fail(msg):
    sys.stderr.write("check-trace: %s\n" % msg)
    sys.exit(1)


def main():
    regions = collections.defaultdict(list)
    asyncs = collections.defaultdict(list)
    instants = collections.Counter()
    counters = collections.Counter()
    threads, pids = set(), set()
    fmt = None
    for path in sys.argv[1:]:
        with open(path) as f:
            try:
                doc = json.load(f)
            except ValueError as e:
                fail("%s: not JSON: %s" % (path, e))
        if isinstance(doc, dict):
            events, fmt = doc["traceEvents"], "object"
        else:
            events, fmt = doc, "array"
        stacks = collections.defaultdict(list)
        open_async = {}
        # Threads flush their buffers in turn: order by time (stable, so a
        # thread's own order holds for equal stamps).
        for ev in sorted(events, key=lambda e: float(e.get("ts", 0))):
            ph = ev["ph"]
            if ph == "M":
                continue
            key = (path, ev["pid"], ev["tid"])
            name, ts = ev["name"], float(ev["ts"])
            threads.add(key)
            pids.add((path, ev["pid"]))
            if ph == "B":
                stacks[key].append((name, ts))
            elif ph == "E":
                if not stacks[key] or stacks[key][-1][0] != name:
                    fail("%s: E of %s at %s closes %s" % (path, name, ts, stacks[key][-1:] or "nothing"))
                _, begin = stacks[key].pop()
                if ts < begin:
                    fail("%s: %s ends before it begins" % (path, name))
                regions[name].append(ts - begin)
            elif ph == "X":
                if float(ev["dur"]) < 0:
                    fail("%s: %s has a negative dur" % (path, name))
                regions[name].append(float(ev["dur"]))
            elif ph == "b":
                k = (ev.get("cat"), name, ev["id"])
                if k in open_async:
                    fail("%s: async %s id %s begins twice" % (path, name, ev["id"]))
                open_async[k] = ts
            elif ph == "e":
                k = (ev.get("cat"), name, ev["id"])
                if k not in open_async:
                    fail("%s: async %s id %s ends without a beginning" % (path, name, ev["id"]))
                asyncs[name].append(ts - open_async.pop(k))
            elif ph == "i":
                instants[name] += 1
            elif ph == "C":
                if not isinstance(ev.get("args"), dict):
                    fail("%s: counter %s without args" % (path, name))
                counters[name] += 1
            else:
                fail("%s: unexpected phase %r" % (path, ph))
        for key, stack in stacks.items():
            if stack:
                fail("%s: thread %s left %s open" % (path, key[2], [n for n, _ in stack]))
        if open_async:
            fail("%s: async regions never ended: %s" % (path, sorted(open_async)))
    out = []
    for name, durs in regions.items():
        out.append("region %s %d %d" % (name, len(durs), int(min(durs))))
    for name, durs in asyncs.items():
        out.append("async %s %d %d" % (name, len(durs), int(min(durs))))
    out += ["instant %s %d" % kv for kv in instants.items()]
    out += ["counter %s %d" % kv for kv in counters.items()]
    print("\n".join(sorted(out)))
    print("threads %d" % len(threads))
    print("processes %d" % len(pids))
    print("format %s" % fmt)


main()
