#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun serve: the delay from a counter sample to a client of the run's
# Server-Sent Events (issue 15: under 250 ms), and from a line the program
# prints to the client.
#
#   bench/bench-serve-runs.sh [builddir] [seconds]
#
# A counters run (--interval-ms 100, task-clock, --output stderr) of a
# program that prints its wall clock every 50 ms is started through
# POST /api/runs; a Python client reads /api/runs/<id>/events and notes
# when each event arrives.  A program line's delay is its arrival minus
# the time it holds (one clock, exact).  A counter sample is a line the
# collector writes (and flushes) right after reading the counters, into
# the same pipe, so it takes the same path; its own clock t counts from
# the start of counting, whose wall time is not printed, so for samples
# the figure is the delay above the fastest sample of the run:
# (arrival - t) - min(arrival - t), an upper bound of what a sample waits
# more than the best case (the best case being a line's delay; strace
# cannot time the collector's writes: under ptrace it prints no
# intervals).  Reported: count, p50, p95, max in ms, and the server's
# peak RSS (/usr/bin/time -f %M).  There is no
# peer tool with a browser stream to compare with (the seed's bokeh
# server is not packaged); perf stat -I itself prints with no stream.
. "$(dirname "$0")/bench-lib.sh"
bench_setup bench-serve-runs "${1:-.}"
seconds=${2:-5}

cat >ticker.sh <<EOF
#!/bin/sh
# prints its clock every 50 ms for $seconds s, busy in between
end=\$((\$(date +%s) + $seconds))
while [ \$(date +%s) -lt \$end ]; do
	date +%s.%N
	t=\$(date +%s%N); while [ \$((\$(date +%s%N) - t)) -lt 50000000 ]; do :; done
done
EOF
chmod +x ticker.sh

serve_bench() {
	rm -f serve.out
	/usr/bin/time -f %M -o serve.rss "$PERUN" serve --listen 127.0.0.1:0 >serve.out 2>serve.err &
	time_pid=$!
	i=0
	until grep -q token= serve.out 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 200 ] && { cat serve.err >&2; exit 1; }
		sleep 0.05
	done
	url=$(sed -n "1s/.*\(http:[^ ]*\).*/\1/p" serve.out)
	python3 - "$url" <<'EOP'
import json, statistics, sys, time, urllib.request

url = sys.argv[1]
base, token = url.split("/?token=")
auth = {"Authorization": "Bearer " + token}

def call(method, path, body=None, headers=None):
    req = urllib.request.Request(base + path, method=method, headers={**auth, **(headers or {})},
                                 data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(req) as r:
        return json.load(r)

csrf = {"X-CSRF-Token": call("GET", "/api/csrf")["csrf"]}
session = call("POST", "/api/sessions", {"name": "bench"}, csrf)
run = call("POST", "/api/runs", {
    "session": session["id"], "collector": "counters",
    "collector_options": {"interval-ms": 100, "event": "task-clock", "output": "stderr"},
    "command": "./ticker.sh"}, csrf)

lines, samples = [], []
with urllib.request.urlopen(urllib.request.Request(
        base + "/api/runs/" + run["id"] + "/events", headers=auth)) as stream:
    event, data = None, []
    for raw in stream:
        now = time.time()
        line = raw.decode().rstrip("\n")
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif line == "":
            if event == "end":
                break
            if data:
                e = json.loads("".join(data))
                if "sample" in e:
                    samples.append(now - e["sample"]["t"])
                else:
                    try:
                        lines.append(now - float(e["line"]))
                    except ValueError:
                        pass
            event, data = None, []

def report(what, delays):
    if not delays:
        print(f"{what}: none received")
        return
    ms = sorted(d * 1000 for d in delays)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    print(f"{what}: {len(ms)} events, p50 {statistics.median(ms):.1f} ms, "
          f"p95 {p95:.1f} ms, max {ms[-1]:.1f} ms")

report("program line -> SSE client", lines)
base_delay = min(samples) if samples else 0
report("counter sample -> SSE client, above the fastest sample", [d - base_delay for d in samples])
EOP
	# perun serve is the child of time(1): stop it, then time reports.
	kill "$(pgrep -P "$time_pid")"
	wait "$time_pid"
}

serve_bench
echo "perun serve peak RSS: $(cat serve.rss) KiB"
