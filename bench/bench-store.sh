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
bench_profile_store "$commits" "$per_commit"

hyperfine -N --warmup 3 --runs 30 --export-markdown "$work/bench.md" \
	"$bin --version" "$bin status" "$bin status --short" "$bin log" "$bin log --short" \
	"$bin log --format json"
cat "$work/bench.md"
