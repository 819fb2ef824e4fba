#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# What a durable write costs: perun add of one and of 40 profiles, and
# perun postprocessby (issue 21: one durable commit per command).
#
#   bench/bench-durable.sh [builddir]
#
# Prints wall, user+system time and peak memory of each command (the
# fastest of $BENCH_RUNS, default 5, each in a fresh copy of the instance,
# the copy included)
# and, with strace, its fsync and syncfs calls.  BENCH_BEFORE=<builddir>
# adds an earlier build's figures (bench-lib.sh).  The disk decides the
# wall times: run it where /tmp is a real disk for meaningful ones.
# Figures only; nothing is asserted.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
bench_setup bench-durable "${1:-.}"
head=$(git rev-parse HEAD)
python3 - "$head" <<'PY'
import json, sys
profile = {
    "header": {"type": "time", "cmd": "prog", "args": "", "workload": "w",
               "units": {"time": "s"}},
    "collector_info": {"name": "time", "params": {}}, "postprocessors": [],
    "models": [], "origin": sys.argv[1],
    "resources": {f"f{i}#0": {"amount": [float(j) for j in range(1, 20)],
                              "structure-unit-size": list(range(1, 20))}
                  for i in range(4)},
    "resource_type_map": {f"f{i}#0": {"uid": f"f{i}", "type": "time"} for i in range(4)},
}
for k in range(40):
    profile["header"]["workload"] = f"w{k}"
    json.dump(profile, open(f".perun/jobs/p{k:02d}.perf", "w"))
PY
# A command run in a fresh copy of the instance as it was set up (the
# copy of a few small files is part of the figures: milliseconds).
bench_fresh_store instance
fresh=$bench_fresh

# syncs <cmd>...: the fsync and syncfs calls of cmd (in a fresh copy).
syncs() {
	command -v strace >/dev/null || { echo "?"; return; }
	rm -rf .perun && cp -a "$work/instance" .perun
	strace -f -e trace=fsync,fdatasync,syncfs -o "$work/strace" "$@" >/dev/null 2>&1 || true
	grep -c 'sync' "$work/strace" || true
}

# measure <label> <perun args>...: the figures, and the syncs of this
# build (and of BENCH_BEFORE's).
measure() {
	label=$1
	shift
	BENCH_RUNS=${BENCH_RUNS:-5} bench_measure "$label" "$fresh" "$PERUN" "$@"
	line="  syncs: $(syncs "$PERUN" "$@")"
	if [ -n "${BENCH_BEFORE:-}" ]; then
		before=$(cd "$BENCH_BEFORE" && pwd)
		line="$line, before $(PERUN_PLUGIN_PATH=$before/stage/plugins syncs "$before/perun" "$@")"
	fi
	echo "$line"
}

measure "add, one profile" add p00.perf
measure "add, 40 profiles" add $(cd .perun/jobs && ls p*.perf)
measure "postprocessby regressogram" postprocessby p00.perf regressogram
