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

# The real binary, not libtool's wrapper script.
bin="$build/.libs/perun"
[ -x "$bin" ] || bin="$build/perun"
export LD_LIBRARY_PATH="$build/sdk/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PERUN_PLUGIN_PATH="$build/stage/plugins"
work=$(mktemp -d "${TMPDIR:-/tmp}/perun-bench-store.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
export PERUN_CONFIG_DIR="$work/config" HOME="$work"

echo "building a repository of $commits commits with $per_commit profiles each in $work"
cd "$work"
git init -q repo && cd repo
git config user.name Bench && git config user.email bench@example.com
# fast-import makes the 1,000 commits in one process.
python3 - "$commits" <<'PY' | git fast-import --quiet
import sys
n = int(sys.argv[1])
for i in range(n):
    body = f"v{i}\n".encode()
    msg = f"commit {i}\n".encode()
    sys.stdout.buffer.write(b"commit refs/heads/master\n")
    sys.stdout.buffer.write(f"committer Bench <bench@example.com> {1700000000 + i} +0000\n".encode())
    sys.stdout.buffer.write(b"data %d\n%s" % (len(msg), msg))
    sys.stdout.buffer.write(b"M 644 inline file.txt\ndata %d\n%s\n" % (len(body), body))
PY
git checkout -q master
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
