#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Replays the regression corpus: each input of REGDIR/<target>/ (every
# input that ever failed a target or the tests) runs once through
# BINDIR/fuzz_<target>; a crash, a leak or a run past 10 s fails.
#
# Usage: fuzz/replay.sh BINDIR [REGDIR]
set -u
bin=$1
reg=${2:-$(cd "$(dirname "$0")" && pwd)/regression}
log=$(mktemp "${TMPDIR:-/tmp}/fuzz-replay.XXXXXX")
trap 'rm -f "$log"' EXIT
status=0
for dir in "$reg"/*/; do
	t=$(basename "$dir")
	set -- "$dir"*
	[ -f "$1" ] || continue
	if "$bin/fuzz_$t" -timeout=10 -rss_limit_mb=2048 "$@" >"$log" 2>&1; then
		echo "fuzz_$t: $# regression inputs pass"
	else
		echo "fuzz_$t: a regression input fails:"
		grep -v "^Running:\|^Executed" "$log" | tail -n 30
		status=1
	fi
done
exit $status
