#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""An independent reading of flame graphs and stack exports.

    flame-check.py PROFILE [--svg FILE] [--width PX] [--minimum PX]
                   [--max-trace N] [--folded FILE] [--stacks]

The call stacks are computed here from the profile's JSON, on rules written
down separately from the C code (kperf traces are root first with the uid
as the leaf; memory traces leaf first, "free" records skipped; trace
profiles nest each thread's calls by [timestamp, timestamp + amount) and
weigh a call by what its callees leave).  Then:
  --svg     the SVG is parsed with xml.etree: every frame's exact width
            (fg:w) is the total of its path, its drawn width is that total
            scaled, siblings do not overlap and stay inside their parent,
            and exactly the frames at least --minimum pixels wide are drawn;
  --diff-baseline  the SVG is a differential graph: red frames grew and blue
            ones shrank against the baseline scaled to the target's total
            (--negated: the baseline drawn against the target);
  --folded  the folded file has these stacks and their weights rounded;
  --stacks  prints the stacks, folded.
Prints "frames N" and "total T"; exits 1 with the differences otherwise.
"""
import argparse
import json
import math
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

SVG = "{http://www.w3.org/2000/svg}"
FG = "{urn:perun:flamegraph}"


def frame_text(v):
    if isinstance(v, str):
        return v
    if isinstance(v, dict):
        if all(k in v for k in ("function", "source", "line")):
            return f"{v['function']}()~{v['source']}~{v['line']}"
        if "func" in v:
            return str(v["func"])
    sys.exit(f"flame-check: a frame this reader does not know: {v!r}")


def profile_stacks(path):
    with open(path) as f:
        prof = json.load(f)
    kperf = prof.get("collector_info", {}).get("name") == "kperf"
    stacks = defaultdict(float)
    calls = []
    for key, pers in prof["resource_type_map"].items():
        cols = prof["resources"].get(key, {})
        amounts = cols.get("amount", [])
        if not amounts:
            continue
        if "trace" in pers:
            if pers.get("subtype") == "free":
                continue
            frames = [frame_text(fr) for fr in pers["trace"]]
            if kperf:
                frames.append(frame_text(pers["uid"]))
            else:
                frames.reverse()
                if not frames:
                    frames = [frame_text(pers["uid"])]
            stacks[tuple(frames)] += sum(amounts)
        elif "timestamp" in cols:
            for ts, amount in zip(cols["timestamp"], amounts):
                calls.append((pers.get("tid", 0), ts, amount, frame_text(pers["uid"])))
    calls.sort(key=lambda c: (c[0], c[1], -c[2], c[3]))
    open_calls = []  # [tid, end, path, self]
    for tid, start, dur, name in calls:
        while open_calls and (open_calls[-1][0] != tid or start >= open_calls[-1][1]):
            done = open_calls.pop()
            stacks[done[2]] += max(done[3], 0)
        if open_calls:
            open_calls[-1][3] -= dur
        path = (open_calls[-1][2] if open_calls else ()) + (name,)
        open_calls.append([tid, start + dur, path, dur])
    while open_calls:
        done = open_calls.pop()
        stacks[done[2]] += max(done[3], 0)
    return stacks


def cut(stacks, max_trace):
    if not max_trace:
        return stacks
    out = defaultdict(float)
    for path, w in stacks.items():
        out[path[:max_trace]] += w
    return out


def totals_of(stacks):
    totals = defaultdict(float)
    for path, w in stacks.items():
        totals[()] += w
        for i in range(1, len(path) + 1):
            totals[path[:i]] += w
    return totals


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_svg(path, totals, width, minimum, errors, base_totals=None, negated=False):
    text = open(path).read()
    if "xmlns:fg=" not in text:  # an <svg> cut out of an HTML page
        text = text.replace("<svg ", '<svg xmlns:fg="urn:perun:flamegraph" ', 1)
    root = ET.fromstring(text)
    pad = float(root.get(FG + "pad"))
    total = totals[()]
    scale = (width - 2 * pad) / total
    if float(root.get("width")) != width:
        errors.append(f"svg width {root.get('width')}, expected {width}")
    frames = []
    for g in root.iter(SVG + "g"):
        if g.get("class") != "f":
            continue
        title = g.find(SVG + "title").text
        rect = g.find(SVG + "rect")
        frames.append({"name": title[: title.rfind(" (")], "x": float(rect.get(FG + "x")),
                       "w": float(rect.get(FG + "w")), "y": float(rect.get("y")),
                       "px": float(rect.get("x")), "pw": float(rect.get("width")),
                       "fill": rect.get("fill")})
    # Depth from the rows: the root ("all") is the lowest row.
    rows = sorted({f["y"] for f in frames}, reverse=True)
    depth_of = {y: i for i, y in enumerate(rows)}
    by_depth = defaultdict(list)
    for f in frames:
        by_depth[depth_of[f["y"]]].append(f)
    drawn = set()
    for d in sorted(by_depth):
        level = sorted(by_depth[d], key=lambda f: f["x"])
        for f in level:
            if d == 0:
                f["path"] = ()
                if f["name"] != "all":
                    errors.append(f"root frame is {f['name']!r}, not 'all'")
            else:
                parents = [p for p in by_depth[d - 1]
                           if p["x"] <= f["x"] + 1e-9 and f["x"] + f["w"] <= p["x"] + p["w"] * (1 + 1e-12) + 1e-9]
                if len(parents) != 1:
                    errors.append(f"frame {f['name']!r} at depth {d} has {len(parents)} parents")
                    continue
                f["path"] = parents[0]["path"] + (f["name"],)
            if f["path"] in drawn:
                errors.append(f"frame {'/'.join(f['path'])} drawn twice")
            drawn.add(f["path"])
            want = totals.get(f["path"])
            if want is None:
                errors.append(f"frame {';'.join(f['path'])} is in no stack of the profile")
            elif not close(want, f["w"]):
                errors.append(f"frame {';'.join(f['path'])}: fg:w {f['w']}, its stacks sum to {want}")
            if base_totals is not None and f["path"] in totals:
                delta = totals[f["path"]] - base_totals.get(f["path"], 0.0) * total / base_totals[()]
                if negated:  # the baseline is drawn: growth is the other way
                    delta = -delta
                want_fill = "red" if delta > 1e-9 * total else "blue" if delta < -1e-9 * total else "grey"
                fill = f["fill"]
                got_fill = ("red" if fill.startswith("rgb(255,") and not fill.endswith(",255)") else
                            "blue" if fill.endswith(",255)") and not fill.startswith("rgb(255,") else "grey")
                if got_fill != want_fill:
                    errors.append(f"frame {';'.join(f['path'])}: {fill}, but it changed by {delta:+g}")
            if abs(f["pw"] - f["w"] * scale) > 0.011 or abs(f["px"] - (pad + f["x"] * scale)) > 0.011:
                errors.append(f"frame {';'.join(f['path'])}: drawn at {f['px']}+{f['pw']}, "
                              f"expected {pad + f['x'] * scale:.2f}+{f['w'] * scale:.2f}")
        for a, b in zip(level, level[1:]):
            if a["x"] + a["w"] > b["x"] * (1 + 1e-12) + 1e-9:
                errors.append(f"frames {a['name']!r} and {b['name']!r} overlap")
    expected = {p for p, t in totals.items() if t > 0 and t * scale >= minimum}
    for p in sorted(expected - drawn)[:10]:
        errors.append(f"missing frame {';'.join(p) or 'all'} ({totals[p] * scale:.3f} px)")
    for p in sorted(drawn - expected)[:10]:
        errors.append(f"frame {';'.join(p)} drawn though narrower than {minimum} px")
    return len(frames)


def read_folded(path):
    stacks = defaultdict(float)
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            stack, _, weight = line.rpartition(" ")
            if not stack:
                sys.exit(f"flame-check: {path}:{n}: not 'frames weight': {line!r}")
            stacks[tuple(stack.split(";"))] += float(weight)
    return stacks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("profile")
    ap.add_argument("--svg")
    ap.add_argument("--width", type=float, default=1200)
    ap.add_argument("--minimum", type=float, default=0.1)
    ap.add_argument("--max-trace", type=int, default=0)
    ap.add_argument("--folded")
    ap.add_argument("--diff-baseline", metavar="PROFILE",
                    help="the SVG is a differential graph against this baseline")
    ap.add_argument("--negated", action="store_true",
                    help="with --diff-baseline: PROFILE is the baseline, drawn, and the "
                         "other the target (red still means grown in the target)")
    ap.add_argument("--stacks", action="store_true")
    args = ap.parse_args()
    stacks = cut(profile_stacks(args.profile), args.max_trace)
    totals = totals_of(stacks)
    errors = []
    if args.stacks:
        for path in sorted(stacks):
            print(";".join(path), stacks[path])
    if args.svg:
        base = totals_of(cut(profile_stacks(args.diff_baseline), args.max_trace)) if args.diff_baseline else None
        print("frames", check_svg(args.svg, totals, args.width, args.minimum, errors, base,
                                  args.negated))
    if args.folded:
        # Weights are integers: each stack's rounded, carrying what rounding
        # left over to the next line, so the total is the exact total rounded.
        got = read_folded(args.folded)
        want = {p: w for p, w in stacks.items() if w}
        slack = 0.0 if all(w == int(w) for w in want.values()) else 1.0
        for p in sorted(set(got) | set(want)):
            g, w = got.get(p, 0.0), want.get(p, 0.0)
            if g != int(g) or abs(g - w) > slack + 1e-9 * abs(w):
                errors.append(f"folded {';'.join(p)}: {got.get(p)} instead of {want.get(p)}")
        if sum(got.values()) != math.floor(sum(want.values()) + 0.5):
            errors.append(f"folded total {sum(got.values())} instead of {sum(want.values())}")
    print("total", f"{totals[()]:.17g}")
    for e in errors[:30]:
        print("error:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
