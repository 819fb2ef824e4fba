#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Quick start demo: build Perun, then profile two versions of a small C
# program in a throw-away git repository and look at the results.
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
cp "$top/examples/demo/sort.c" sort.c
printf 'sort: sort.c\n\tcc -O2 -o sort sort.c\n' >Makefile
printf 'sort\n' >.gitignore
git add . && git commit -qm "Sort with insertion sort"
make -s

step perun init
perun init
step perun collect -c ./sort -w 20000 time --repeat 5 --warmup 1
perun collect -c ./sort -w 20000 time --repeat 5 --warmup 1
step perun add 0@p
perun add 0@p

# Version 2: replace the insertion sort by qsort.
python3 - "$top/examples/demo/sort-v2.c" <<'PY'
import re, sys
src = open("sort.c").read()
new = open(sys.argv[1]).read().split("*/", 1)[1].lstrip("\n")
src = re.sub(r"static void sort\(long \*a, long n\)\n\{.*?\n\}\n", new, src, count=1, flags=re.S)
open("sort.c", "w").write(src)
PY
git commit -qam "Sort with qsort"
make -s
step perun collect -c ./sort -w 20000 time --repeat 5 --warmup 1
perun collect -c ./sort -w 20000 time --repeat 5 --warmup 1
step perun add 0@p
perun add 0@p

step perun status
perun status
step perun log --short
perun log --short
step perun log
perun log
step perun show 0@i tableof resources
perun show 0@i tableof resources
step perun show "HEAD~1^0@i" tableof resources
perun show "HEAD~1^0@i" tableof resources
printf '\nThe demo project is in %s\n' "$work/project"
