#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Quick start demo: build Perun, then run the job matrix of
# examples/demo/local.yml over two versions of a small C program in a
# throw-away git repository, find the slowdown of the second with
# perun check, and draw the profile with its regression models.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh" >/dev/null

perun() { "$top/build/perun" "$@"; }
export PERUN_PLUGIN_PATH="$top/build/stage/plugins"
work=$(mktemp -d "${TMPDIR:-/tmp}/perun-demo.XXXXXX")
export PERUN_CONFIG_DIR="$work/config"
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

cd "$work"
git init -q project && cd project
git config user.name "Perun Demo" && git config user.email demo@example.com
printf 'sort: sort.c\n\tcc -O2 -o sort sort.c\n' >Makefile
printf 'sort\n' >.gitignore

# Version 1 sorts with qsort; version 2 "simplifies" it into an insertion
# sort, a quadratic slowdown that Perun should catch.
python3 - "$top/examples/demo/sort.c" "$top/examples/demo/sort-v2.c" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
new = open(sys.argv[2]).read().split("*/", 1)[1].lstrip("\n")
src = re.sub(r"static void sort\(long \*a, long n\)\n\{.*?\n\}\n", new, src, count=1, flags=re.S)
open("sort.c", "w").write(src)
PY
git add . && git commit -qm "Sort with qsort"
cp "$top/examples/demo/sort.c" sort.c
git commit -qam "Sort with a hand-written insertion sort"

step perun init
perun init
cp "$top/examples/demo/local.yml" .perun/local.yml
step perun run -m HEAD~1 -m HEAD matrix
perun run -m HEAD~1 -m HEAD matrix
step perun status
perun status
step perun log --short
perun log --short
step perun show 0@i tableof models -h uid -h model -h r_square
perun show 0@i tableof models -h uid -h model -h r_square
step perun check head --fail-on degradation
rc=0
perun check head --fail-on degradation || rc=$?
printf '(exit status %s: a CI job gated this way fails on this commit)\n' "$rc"
step perun check profiles "HEAD~1^0@i" 0@i --format markdown
perun check profiles "HEAD~1^0@i" 0@i --format markdown
step perun show 0@i scatter --per workload --filename "$work/scatter"
perun show 0@i scatter --per workload --filename "$work/scatter"
printf '\nThe demo project is in %s\n' "$work/project"
