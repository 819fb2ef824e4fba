#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Random loop programs for t9103, which checks that no bound of perun
collect bounds is below the iterations a run makes.

  gen-loops.py gen SEED COUNT OUT.c    write COUNT functions f0..f<COUNT-1>
                                       of random loop nests (for, while,
                                       do; counters up and down, steps,
                                       halving, doubling, two counters,
                                       breaks, continues, resets,
                                       amortised inner loops), each loop
                                       body counting its runs in __c[K],
                                       and a main that runs every function
                                       over a grid of n, m, u and prints
                                       "f K n m u count" (count -1: the
                                       run did not end within its fuel)
  gen-loops.py check PROFILE RUNS      compare: every bounded loop's bound,
                                       evaluated at n, m, u, is >= its
                                       count, and a run that did not end
                                       has an O(∞) loop; prints a summary,
                                       exits 1 on a violation
"""
import json
import math
import random
import re
import sys

FUEL = 200000
GRID_N = [-3, 0, 1, 2, 5, 9]
GRID_U = [0, 1, 4, 7]


class Gen:
    def __init__(self, rnd):
        self.r = rnd
        self.k = 0  # loop index
        self.lines = []
        self.loop_lines = {}  # K -> line number (1-based) of its keyword
        self.var = 0

    def emit(self, text, depth):
        self.lines.append("\t" * depth + text)

    def fresh(self):
        self.var += 1
        return "v%d" % self.var

    def limit(self, outer):
        choices = ["n", "m", "u", str(self.r.randint(0, 12)), "n + %d" % self.r.randint(-3, 3)]
        if outer:
            choices.append(self.r.choice(outer))
        return self.r.choice(choices)

    def start(self, outer):
        choices = ["0", "1", "n", "m", "u", str(self.r.randint(-2, 10))]
        if outer:
            choices.append(self.r.choice(outer))
        return self.r.choice(choices)

    def loop(self, depth, outer, fn_vars, in_c_loop=False):
        K = self.k
        self.k += 1
        v = self.fresh()
        typ = self.r.choice(["int", "int", "int", "unsigned"])
        up = self.r.random() < 0.6
        kind = self.r.choice(["for", "for", "while", "do", "gotow", "gotod"])
        step = self.r.choice([1, 1, 1, 2, 3])
        shape = self.r.random()
        lim = self.limit(outer)
        init = self.start(outer)
        if shape < 0.12:
            # halving / doubling
            if up:
                upd = "%s *= 2" % v
                init = self.r.choice(["1", "0", "u", "2"])
                cond = "%s < %s" % (v, lim)
            else:
                upd = "%s /= 2" % v
                cond = self.r.choice(["%s > 0" % v, "%s" % v, "%s > 1" % v])
        elif shape < 0.2:
            upd = "%s %s 1" % (v, "+=" if up else "-=")
            cond = "%s != %s" % (v, lim)
        else:
            op = self.r.choice(["<", "<="]) if up else self.r.choice([">", ">="])
            cond = "%s %s %s" % (v, op, lim)
            upd = "%s %s %d" % (v, "+=" if up else "-=", step)
            if self.r.random() < 0.08:
                upd = "%s %s %d" % (v, "-=" if up else "+=", step)  # wrong way
        second = None
        if self.r.random() < 0.15:
            w = self.fresh()
            fn_vars.append(("int", w, "0"))
            second = w
            cond = "(%s) && %s < %s" % (cond, w, self.limit(outer))
        fn_vars.append((typ, v, None))
        self.emit("%s = %s;" % (v, init), depth)
        line_of = lambda: len(self.lines) + 1
        if kind == "for":
            self.loop_lines[K] = line_of()
            self.emit("for (; %s; %s) {" % (cond, upd), depth)
        elif kind == "while":
            self.loop_lines[K] = line_of()
            self.emit("while (%s) {" % cond, depth)
        elif kind == "gotow":
            # tested first: L: if (c) { ...; goto L; }
            self.loop_lines[K] = line_of()
            self.emit("L%d: if (%s) {" % (K, cond), depth)
        elif kind == "gotod":
            # tested last: L: ...; if (c) goto L;
            self.loop_lines[K] = line_of()
            self.emit("L%d:" % K, depth)
        else:
            self.loop_lines[K] = line_of()
            self.emit("do {", depth)
        self.emit("__c[%d]++;" % K, depth + 1)
        self.emit("if (++__fuel > %d) return -1;" % FUEL, depth + 1)
        if second:
            self.emit("%s++;" % second, depth + 1)
        # break and continue need a loop of C around them
        jumps = not kind.startswith("goto") or in_c_loop
        if jumps and self.r.random() < 0.15:
            self.emit("if (nd()) break;", depth + 1)
        if kind.startswith("goto") and self.r.random() < 0.15:
            self.emit("if (nd()) goto E%d;" % K, depth + 1)
        if jumps and kind != "for" and self.r.random() < 0.12:
            self.emit("if (nd()) continue;", depth + 1)
        if kind == "for" and self.r.random() < 0.12:
            self.emit("if (nd()) continue;", depth + 1)
        if self.r.random() < 0.08:
            self.emit("if (nd()) %s = %s;" % (v, self.start(outer)), depth + 1)
        if self.r.random() < 0.1:
            self.emit("if (nd()) %s %s 1;" % (v, "+=" if up else "-="), depth + 1)
        if depth < 3 and self.r.random() < 0.45:
            self.loop(depth + 1, outer + [v], fn_vars,
                      in_c_loop or not kind.startswith("goto"))
        self.emit("s++;", depth + 1)
        if kind == "gotow":
            self.emit("%s;" % upd, depth + 1)
            self.emit("goto L%d;" % K, depth + 1)
            self.emit("}", depth)
            self.emit("E%d:;" % K, depth)
        elif kind == "gotod":
            self.emit("%s;" % upd, depth + 1)
            self.emit("if (%s)" % cond, depth)
            self.emit("goto L%d;" % K, depth + 1)
            self.emit("E%d:;" % K, depth)
        elif kind == "while":
            self.emit("%s;" % upd, depth + 1)
            self.emit("}", depth)
        elif kind == "do":
            self.emit("%s;" % upd, depth + 1)
            self.emit("} while (%s);" % cond, depth)
        else:
            self.emit("}", depth)

    def amortised(self, depth, fn_vars):
        """Seed 002's pattern: an inner loop spending what its outer adds."""
        K = self.k
        self.k += 2
        i, p = self.fresh(), self.fresh()
        fn_vars += [("unsigned", i, None), ("unsigned", p, None)]
        self.emit("%s = 0;" % p, depth)
        self.emit("%s = 0;" % i, depth)
        self.loop_lines[K] = len(self.lines) + 1
        self.emit("for (; %s < u; %s++) {" % (i, i), depth)
        self.emit("__c[%d]++;" % K, depth + 1)
        self.emit("%s++;" % p, depth + 1)
        self.emit("if (nd()) {", depth + 1)
        self.loop_lines[K + 1] = len(self.lines) + 1
        self.emit("while (%s > 0) {" % p, depth + 2)
        self.emit("__c[%d]++;" % (K + 1), depth + 3)
        self.emit("%s--;" % p, depth + 3)
        self.emit("}", depth + 2)
        self.emit("}", depth + 1)
        self.emit("}", depth)

    def amortised_deep(self, depth, fn_vars):
        """A counter raised at some level of a nest of 2 or 3 loops and
        spent by a loop at the bottom, maybe reset on the way."""
        levels = self.r.randint(2, 3)
        K = self.k
        self.k += levels + 1
        p = self.fresh()
        fn_vars.append(("unsigned", p, None))
        raise_at = self.r.randrange(levels)
        reset_at = self.r.randrange(levels) if self.r.random() < 0.25 else -1
        self.emit("%s = 0;" % p, depth)
        for j in range(levels):
            i = self.fresh()
            fn_vars.append(("int", i, None))
            lim = self.r.choice(["n", "m", "(int)u", str(self.r.randint(0, 4))])
            self.loop_lines[K + j] = len(self.lines) + 1
            self.emit("for (%s = 0; %s < %s; %s++) {" % (i, i, lim, i), depth + j)
            self.emit("__c[%d]++;" % (K + j), depth + j + 1)
            if j == raise_at:
                self.emit("%s += %d;" % (p, self.r.randint(1, 2)), depth + j + 1)
            if j == reset_at:
                self.emit("%s = u;" % p, depth + j + 1)
        d = depth + levels
        self.emit("if (nd()) {", d)
        self.loop_lines[K + levels] = len(self.lines) + 1
        guard = self.r.choice(["%s > 0", "%s > 0 && nd()", "%s != 0"]) % p
        self.emit("while (%s) {" % guard, d + 1)
        self.emit("__c[%d]++;" % (K + levels), d + 2)
        self.emit("%s--;" % p, d + 2)
        self.emit("}", d + 1)
        self.emit("}", d)
        for j in reversed(range(levels)):
            self.emit("}", depth + j)

    def last_value(self, depth, fn_vars):
        """A variable set from a counter, before or after its increment,
        bounding a later loop."""
        K = self.k
        self.k += 2
        i, last, j = self.fresh(), self.fresh(), self.fresh()
        fn_vars += [("int", i, None), ("int", last, None), ("int", j, None)]
        lim = self.r.choice(["n", "m", "(int)u", str(self.r.randint(0, 6))])
        step = self.r.choice([1, 1, 2])
        self.emit("%s = %d;" % (last, self.r.randint(0, 3)), depth)
        self.emit("%s = %s;" % (i, self.r.choice(["0", "1", "n"])), depth)
        self.loop_lines[K] = len(self.lines) + 1
        self.emit("while (%s < %s) {" % (i, lim), depth)
        self.emit("__c[%d]++;" % K, depth + 1)
        set_last = "%s = %s + %d;" % (last, i, self.r.randint(0, 3))
        if self.r.random() < 0.3:
            set_last = "if (nd()) " + set_last
        before = self.r.random() < 0.6
        if before:
            self.emit(set_last, depth + 1)
        self.emit("%s += %d;" % (i, step), depth + 1)
        if not before:
            self.emit(set_last, depth + 1)
        self.emit("}", depth)
        self.emit("%s = 0;" % j, depth)
        self.loop_lines[K + 1] = len(self.lines) + 1
        self.emit("while (%s < %s) {" % (j, last), depth)
        self.emit("__c[%d]++;" % (K + 1), depth + 1)
        self.emit("%s++;" % j, depth + 1)
        self.emit("}", depth)

    def function(self, idx):
        first = len(self.lines)
        fn_vars = []
        body_start = None
        self.emit("int f%d(int n, int m, unsigned u)" % idx, 0)
        self.emit("{", 0)
        decl_at = len(self.lines)
        self.emit("int s = 0;", 1)
        k0 = self.k
        if self.r.random() < 0.1:
            self.amortised(1, fn_vars)
        if self.r.random() < 0.1:
            self.amortised_deep(1, fn_vars)
        if self.r.random() < 0.1:
            self.last_value(1, fn_vars)
        for _ in range(self.r.randint(1, 2)):
            self.loop(1, [], fn_vars)
        self.emit("return s;", 1)
        self.emit("}", 0)
        self.emit("", 0)
        decls = ["\t%s %s%s;" % (t, v, " = " + i if i else "") for t, v, i in fn_vars]
        # declarations shift the loops' lines down
        for K in range(k0, self.k):
            self.loop_lines[K] += len(decls)
        self.lines[decl_at:decl_at] = decls
        return k0, self.k


PRELUDE = """/* generated by gen-loops.py %(seed)d %(count)d */
static unsigned long __rnd = 1;
static int nd(void)
{
	__rnd = __rnd * 6364136223846793005UL + 1442695040888963407UL;
	return (int)(__rnd >> 62) & 1;
}
unsigned long __c[%(slots)d];
unsigned long __fuel;
"""

MAIN = """#include <stdio.h>
#include <string.h>
typedef int (*fn_t)(int, int, unsigned);
static const fn_t fns[] = { %(fns)s };
static const int first[] = { %(first)s };
static const int last[] = { %(last)s };
int main(void)
{
	static const int ns[] = { %(ns)s };
	static const unsigned us[] = { %(us)s };
	for (int f = 0; f < %(count)d; f++)
		for (int a = 0; a < %(nn)d; a++)
			for (int b = 0; b < %(nn)d; b++)
				for (int c = 0; c < %(nu)d; c++) {
					memset(__c, 0, sizeof(__c));
					__fuel = 0;
					int r = fns[f](ns[a], ns[b], us[c]);
					for (int k = first[f]; k < last[f]; k++)
						printf("%%d %%d %%d %%d %%u %%ld\\n", f, k, ns[a], ns[b],
						       us[c], r == -1 ? -1L : (long)__c[k]);
				}
	return 0;
}"""


def gen(seed, count, out):
    g = Gen(random.Random(seed))
    g.lines += (PRELUDE % {"seed": seed, "count": count, "slots": count * 12}).split("\n")
    ranges = [g.function(idx) for idx in range(count)]
    g.lines += (MAIN % {
        "fns": ", ".join("f%d" % i for i in range(count)),
        "first": ", ".join(str(a) for a, _ in ranges),
        "last": ", ".join(str(b) for _, b in ranges),
        "ns": ", ".join(map(str, GRID_N)), "us": ", ".join(map(str, GRID_U)),
        "count": count, "nn": len(GRID_N), "nu": len(GRID_U)}).split("\n")
    with open(out, "w") as fh:
        fh.write("\n".join(g.lines) + "\n")
    with open(out + ".lines", "w") as fh:
        for K in sorted(g.loop_lines):
            fh.write("%d %d\n" % (K, g.loop_lines[K]))


class CInt:
    """An integer whose "/" is the ceiling division of the bounds."""

    def __init__(self, v):
        self.v = v

    def _o(self, x):
        return x.v if isinstance(x, CInt) else x

    def __add__(self, x):
        return CInt(self.v + self._o(x))

    __radd__ = __add__

    def __mul__(self, x):
        return CInt(self.v * self._o(x))

    __rmul__ = __mul__

    def __truediv__(self, k):
        return CInt(-(-self.v // self._o(k)))

    def __neg__(self):
        return CInt(-self.v)


def _max(a, b):
    a = a.v if isinstance(a, CInt) else a
    b = b.v if isinstance(b, CInt) else b
    return CInt(max(a, b))


def _log2(a):
    a = a.v if isinstance(a, CInt) else a
    return CInt(0 if a <= 1 else math.ceil(math.log2(a)))


def evaluate(bound, env):
    expr = bound.replace("×", "*").replace("max(", "_max(").replace("log2(", "_log2(")
    names = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", expr)) - {"_max", "_log2"}
    if names - set(env):
        return None
    scope = {"_max": _max, "_log2": _log2}
    scope.update({k: CInt(v) for k, v in env.items()})
    val = eval(expr, {"__builtins__": {}}, scope)  # our own printed bounds
    return val.v if isinstance(val, CInt) else val


def check(profile, runs, lines_file):
    prof = json.load(open(profile))
    by_line = {}
    for res in prof["resource_type_map"].values():
        if res["type"] == "local bound":
            by_line[res["uid"]["line"]] = res
    loop_line = {}
    for row in open(lines_file):
        k, line = map(int, row.split())
        loop_line[k] = line
    checked = bounded_loops = violations = unended = unverifiable = 0
    seen_bounded = set()
    for row in open(runs):
        f, k, n, m, u, count = map(int, row.split())
        res = by_line.get(loop_line[k])
        if res is None:
            print("loop %d (line %d): no resource" % (k, loop_line[k]))
            violations += 1
            continue
        if res["class"] == "O(∞)":
            continue
        seen_bounded.add(k)
        if count == -1:
            # the run did not end: its function must have an O(∞) loop
            # (when the bounds allow fewer runs than its fuel)
            fn_loops = [kk for kk, ln in loop_line.items()
                        if by_line.get(ln, {}).get("uid", {}).get("function") == "f%d" % f]
            total = 0
            for kk in fn_loops:
                r = by_line[loop_line[kk]]
                b = None if r["class"] == "O(∞)" else evaluate(r["bound"], {"n": n, "m": m, "u": u})
                total = None if b is None or total is None else total + b
            if total is not None and total < FUEL and k == fn_loops[0]:
                print("f%d n=%d m=%d u=%d: no end, yet its loops are bounded by %d runs"
                      % (f, n, m, u, total))
                violations += 1
            unended += 1
            continue
        b = evaluate(res["bound"], {"n": n, "m": m, "u": u})
        if b is None:
            unverifiable += 1
            continue
        checked += 1
        if count > b:
            print("f%d loop %d (line %d) n=%d m=%d u=%d: %d runs > bound %s = %d"
                  % (f, k, loop_line[k], n, m, u, count, res["bound"], b))
            violations += 1
    loops = len(loop_line)
    print("loops %d, bounded %d, runs checked %d, unended runs %d, unverifiable %d, "
          "violations %d" % (loops, len(seen_bounded), checked, unended, unverifiable,
                              violations))
    return 1 if violations else 0


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3], sys.argv[4]))
