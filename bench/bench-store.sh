#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Start-up, status and log on a store of 10,000 profiles over 1,000 commits.
# Prints hyperfine's figures; asserts nothing.  Usage:
#   bench/bench-store.sh [build-dir]     (default: ./build)
# Targets (issue 2): --version under 10 ms, status and log under 50 ms each.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
commits=${COMMITS:-1000}
per_commit=${PROFILES_PER_COMMIT:-10}

# shellcheck source=bench/bench-lib.sh
. "$top/bench/bench-lib.sh"
bench_binary "$build"
bench_workdir perun-bench-store

echo "building a repository of $commits commits with $per_commit profiles each in $work"
cd "$work"
git init -q repo && cd repo
git config user.name Bench && git config user.email bench@example.com
bench_commits "$commits"
"$bin" init >/dev/null

# One collected profile as a template for all the others.
"$bin" collect -c /bin/true time -r 3 -w 0 >/dev/null
template=$(ls .perun/jobs/*.perf | head -1)
python3 - "$template" "$per_commit" "$(git rev-list master | tr '\n' ' ')" <<'PY'
import json, os, sys
t = json.load(open(sys.argv[1]))
per = int(sys.argv[2])
os.makedirs("gen", exist_ok=True)
for sha in sys.argv[3].split():
    d = os.path.join("gen", sha)
    os.makedirs(d)
    for k in range(per):
        t["origin"] = sha
        t["header"]["workload"] = f"w{k}"
        json.dump(t, open(os.path.join(d, f"time-{k}.perf"), "w"))
PY
rm -f .perun/jobs/*.perf
for d in gen/*; do
	"$bin" add -m "${d#gen/}" "$d"/*.perf >/dev/null
done
echo "store: $(find .perun/objects -type f | wc -l) files, $(du -sh .perun | cut -f1)"

hyperfine -N --warmup 3 --runs 30 --export-markdown "$work/bench.md" \
	"$bin --version" "$bin status" "$bin status --short" "$bin log" "$bin log --short" \
	"$bin log --format json"
cat "$work/bench.md"
