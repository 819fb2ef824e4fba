#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# perun serve on a store of 10,000 profiles over 1,000 commits: the
# project page and its API call (GET /api/log?profiles=1) one at a time,
# then 100 concurrent clients reading pages and API calls over loopback
# for 30 s with wrk (Debian: wrk), with p50/p99 latency and the error
# count.  Prints figures; asserts nothing.  Usage:
#   bench/bench-serve.sh [build-dir]     (default: ./build)
# Targets (issue 15): the project page under 100 ms; no error under load.
# COMMITS, PROFILES_PER_COMMIT, CLIENTS and SECONDS_LOAD change the sizes.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
commits=${COMMITS:-1000}
per_commit=${PROFILES_PER_COMMIT:-10}
clients=${CLIENTS:-100}
seconds=${SECONDS_LOAD:-30}

# shellcheck source=bench/bench-lib.sh
. "$top/bench/bench-lib.sh"
bench_binary "$build"
bench_workdir perun-bench-serve
command -v curl >/dev/null || { echo "bench-serve: curl is needed" >&2; exit 2; }

echo "building a repository of $commits commits with $per_commit profiles each in $work"
cd "$work"
bench_profile_store "$commits" "$per_commit"

"$bin" serve --listen 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null; rm -rf "$work"' EXIT INT TERM
until grep -q token= "$work/serve.out" 2>/dev/null; do sleep 0.1; done
url=$(sed -n 's|^perun serve: \(http://[^ ]*\)$|\1|p' "$work/serve.out")
base=${url%%/?token=*}
token=${url##*token=}
auth="Authorization: Bearer $token"

# time_get <path>: the median and best of 21 requests, in ms (curl's own
# clock: from the connect to the last byte, without curl's start-up).
time_get() {
	for _ in $(seq 21); do
		curl -s -o /dev/null -H "$auth" -w "%{time_total}\n" "$base$1"
	done | sort -n | awk '{ t[NR] = $1 * 1000 } END { printf "%8.1f %8.1f\n", t[11], t[1] }'
}

# The project page's data is made as the server starts (a walk of the
# whole history) and kept until the store changes: the first call right
# after the start may wait for it.
first=$(curl -s -o /dev/null -H "$auth" -w "%{time_total}" "$base/api/log?profiles=1")
echo
echo "the first GET /api/log?profiles=1, right after the start: $(echo "$first * 1000" | bc) ms"
echo "one request at a time (ms)               median     best"
for path in / /assets/perun.js "/api/log" "/api/log?profiles=1" "/api/commits/HEAD/profiles" \
	"/api/profile?p=0@i" "/api/profile/resources?p=0@i" "/api/profile/views/bars?p=0@i"; do
	printf "  %-36s %s\n" "GET $path" "$(time_get "$path")"
done
printf "  %-36s %s\n" "(perun log --format json, CLI)" \
	"$(for _ in $(seq 11); do /usr/bin/time -f %e "$bin" log --format json 2>&1 >/dev/null; done |
		sort -n | awk '{ t[NR] = $1 * 1000 } END { printf "%8.1f %8.1f", t[6], t[1] }')"
curl -s -H "$auth" "$base/api/log?profiles=1" -o "$work/log.json"
echo "  /api/log?profiles=1: $(wc -c <"$work/log.json") bytes, $(jq '[.minor_versions[].tracked | length] | add' "$work/log.json") profiles"

if ! command -v wrk >/dev/null; then
	echo "no wrk (Debian: wrk): the load test is left out"
	exit 0
fi
# Each client reads the pages and their API calls in turn; the project
# page's data (/api/log?profiles=1) is one request in eight.
cat >"$work/mix.lua" <<EOF
local paths = { "/", "/profile?p=0@i", "/compare?baseline=1@i&target=0@i", "/assets/perun.js",
  "/assets/perun.css", "/api/profile?p=0@i", "/api/commits/HEAD/profiles", "/api/log?profiles=1" }
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1], { ["Authorization"] = "Bearer $token" })
end
done = function(summary, latency, requests)
  io.write(string.format("  requests %d, errors: connect %d read %d write %d timeout %d status %d\n",
    summary.requests, summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.timeout, summary.errors.status))
  io.write(string.format("  latency p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000))
  io.write(string.format("  throughput %.0f requests/s\n", summary.requests / (summary.duration / 1e6)))
end
EOF
echo
echo "$clients concurrent clients for $seconds s (wrk, 2 threads, keep-alive)"
wrk -t2 -c"$clients" -d"${seconds}s" --timeout 10s -s "$work/mix.lua" "$base/" | sed -n '/requests /,$p'
# The server is still there and answers.
test "$(curl -s -o /dev/null -w "%{http_code}" -H "$auth" "$base/api/info")" = 200 &&
	echo "  after the load: the server answers"
echo "  server peak RSS: $(sed -n 's/^VmHWM: *//p' /proc/$serve_pid/status)"
kill -TERM $serve_pid
wait $serve_pid && echo "  SIGTERM: exit 0"
