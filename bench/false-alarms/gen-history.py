#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Commit the false-alarm corpus's history into the git repository in DIR
(it must exist; its HEAD is the parent of the first commit):

    gen-history.py DIR [N0]

A small C program of five functions with work loops (hash, xorshift, modsum,
lcg, fold; one command per function, ./<name> N, calls it ten times with
size N; ./all N calls all five) and 28 commits after the first: identical-
code commits (a comment, a renamed local, a README edit) between planted
changes of one function each.  The planted sizes are exact: a function's
cost is its loop's iteration count, a named constant in the source.

Writes DIR/../history.tsv, one line per commit, oldest first:
    <sha> <kind> <function or -> <expected: up|down|-> <factor> <subject>
kind is base, identical, planted or creep (one step of the +3% creep).
"""
import os, subprocess, sys

repo = sys.argv[1]
N0 = int(sys.argv[2]) if len(sys.argv) > 2 else 1000   # the smallest size profiled
FUNCS = ["hash", "xorshift", "modsum", "lcg", "fold"]

# Per function: the loop body (a dependency chain the compiler cannot fold
# or vectorise, so time follows the iteration count), in terms of a local
# accumulator <v> and a loop index <i>.
BODIES = {
    "hash": "{v} = {v} * 31 + ((unsigned long)({i} + k) ^ ({v} >> 7));",
    "xorshift": "{v} ^= {v} << 13; {v} ^= {v} >> 7; {v} ^= {v} << 17; {v} += (unsigned long){i};",
    "modsum": "{v} = ({v} + (unsigned long)k * 2654435761u) % 1000000007u;",
    "lcg": "{v} = {v} * 6364136223846793005u + (unsigned long)({i} | 1);",
    "fold": "{v} = ({v} >> 3) + ({v} << 5) + (unsigned long)(k ^ {i});",
}
# Iterations per unit of N (about 0.1 s per run of ten calls at N=2000 here;
# the division of modsum is slower; fold starts 3x slow to get 3x faster).
WORK = {"hash": 3400, "xorshift": 2250, "modsum": 1250, "lcg": 3800, "fold": 4000}

state = {
    "work": dict(WORK),
    "quadratic": set(),                 # functions whose inner loop is n * work / N0
    "local": {f: "h" for f in FUNCS},   # the accumulator's name
    "note": {f: "the work loop" for f in FUNCS},
    "readme": 0,
}


def c_source():
    out = ["/* The false-alarm corpus program: five functions with work loops. */",
           "#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>", "",
           "/* The size at which a quadratic loop costs what the linear one did. */",
           f"#define N0 {N0}L", ""]
    for f in FUNCS:
        v, w = state["local"][f], state["work"][f]
        bound = f"{w}L * n / N0" if f in state["quadratic"] else f"{w}L"
        body = BODIES[f].format(v=v, i="i")
        out += [f"/* {f}: {state['note'][f]} */",
                "__attribute__((noinline)) unsigned long " + f + "(long n)", "{",
                f"\tunsigned long {v} = 1;",
                "\tfor (long i = 0; i < n; i++)",
                f"\t\tfor (long k = 0; k < {bound}; k++) {{",
                f"\t\t\t{body}", "\t\t}",
                f"\treturn {v};", "}", ""]
    table = ", ".join(f'{{"{f}", {f}}}' for f in FUNCS)
    out += ["static const struct { const char *name; unsigned long (*fn)(long); } fns[] = {",
            f"\t{table}", "};", "",
            "/* ./<function> N runs that function ten times, ./all N every one. */",
            "int main(int argc, char **argv)", "{",
            "\tconst char *self = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];",
            "\tlong n = argc > 1 ? atol(argv[1]) : 1000;",
            "\tunsigned long s = 0;",
            "\tfor (unsigned f = 0; f < sizeof(fns) / sizeof(fns[0]); f++)",
            "\t\tif (!strcmp(self, \"all\") || !strcmp(self, fns[f].name))",
            "\t\t\tfor (int c = 0; c < 10; c++)",
            "\t\t\t\ts += fns[f].fn(n);",
            "\tprintf(\"%lu\\n\", s);",
            "\treturn 0;", "}", ""]
    return "\n".join(out)


def write_tree():
    with open(os.path.join(repo, "prog.c"), "w") as f:
        f.write(c_source())
    with open(os.path.join(repo, "README.md"), "w") as f:
        f.write("# corpus\n\nFive functions with work loops.\n")
        for k in range(state["readme"]):
            f.write(f"\nNote {k + 1}: nothing in the program changed here.\n")
    links = " ".join(FUNCS + ["all"])
    with open(os.path.join(repo, "Makefile"), "w") as f:
        f.write(f"all: prog\n\tfor l in {links}; do ln -sf prog $$l; done\n"
                "prog: prog.c\n\t$(CC) -O2 -o prog prog.c\n")
    with open(os.path.join(repo, ".gitignore"), "w") as f:
        f.write("prog\n" + "\n".join(FUNCS + ["all"]) + "\n")


def git(*args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True).stdout.strip()


rows = []


def commit(kind, func, expect, factor, subject):
    write_tree()
    git("add", "prog.c", "README.md", "Makefile", ".gitignore")
    git("-c", "user.name=corpus", "-c", "user.email=corpus@example.com",
        "commit", "-q", "-m", subject)
    rows.append((git("rev-parse", "HEAD"), kind, func, expect, factor, subject))


def identical(what, func):
    if what == "comment":
        state["note"][func] += " (reviewed)"
    elif what == "rename":
        state["local"][func] = {"h": "acc", "acc": "sum", "sum": "h"}[state["local"][func]]
    else:
        state["readme"] += 1
    commit("identical", "-", "-", "1", f"{what}: {func if what != 'docs' else 'README'}")


def planted(func, factor, subject, kind="planted"):
    state["work"][func] = round(state["work"][func] * factor)
    commit(kind, func, "up" if factor > 1 else "down", f"{factor:g}", subject)


commit("base", "-", "-", "1", "base: five functions")
identical("comment", "hash")
planted("xorshift", 1.3, "xorshift: +30%")
identical("rename", "modsum")
identical("docs", "-")
planted("hash", 2.0, "hash: 2x slower")
identical("comment", "lcg")
planted("modsum", 1.1, "modsum: +10%")
identical("rename", "xorshift")
identical("docs", "-")
state["quadratic"].add("lcg")        # 1x at N0, 2x at 2 N0, 3x at 3 N0
commit("planted", "lcg", "up", "n", "lcg: O(n) -> O(n^2)")
identical("comment", "fold")
planted("fold", 1 / 3, "fold: 3x faster")
identical("rename", "hash")
identical("docs", "-")
base = state["work"]["xorshift"]
for step in range(1, 9):               # +3% a commit, compounded from one base
    state["work"]["xorshift"] = round(base * 1.03 ** step)
    commit("creep", "xorshift", "up", "1.03", f"xorshift: creep step {step} (+3%)")
for what, func in (("comment", "modsum"), ("rename", "fold"), ("docs", "-"),
                   ("comment", "xorshift"), ("rename", "lcg")):
    identical(what, func)

# Prove the identical commits identical: the disassembly of each commit's
# program (built as make builds it, from one path, so no file name differs)
# must equal its parent's, and every planted one must differ.
build = os.path.join(repo, "..", "objdump")
os.makedirs(build, exist_ok=True)
prev, same = None, 0
for r in rows:
    src = git("show", f"{r[0]}:prog.c")
    with open(os.path.join(build, "prog.c"), "w") as f:
        f.write(src + "\n")
    subprocess.run(["cc", "-O2", "-w", "-o", "prog", "prog.c"], cwd=build, check=True)
    asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "prog"], cwd=build,
                         check=True, capture_output=True, text=True).stdout
    asm = asm.split("\n", 2)[2]            # drop the line naming the file
    if r[1] == "identical" and asm != prev:
        sys.exit(f"gen-history: {r[0][:7]} ({r[5]}) changed the machine code")
    if r[1] in ("planted", "creep") and asm == prev:
        sys.exit(f"gen-history: {r[0][:7]} ({r[5]}) left the machine code as it was")
    same += r[1] == "identical"
    prev = asm
print(f"gen-history: {len(rows)} commits; objdump -d of the {same} identical ones "
      "equals their parent's, of every planted one it differs", file=sys.stderr)

with open(os.path.join(repo, "..", "history.tsv"), "w") as f:
    for r in rows:
        f.write("\t".join(r) + "\n")
