#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Remake the test data of t0510-import-perf.sh: perf script outputs of the
# programs here (recorded in /tmp/perun-import-perf, with and without
# kernel frames, fp and dwarf stacks, two events, -F with pid/tid,
# +srcline) and what FlameGraph's stackcollapse-perf.pl folds them to.
# quirks.script is written by hand.  Run once, as root or with
# perf_event_paranoid <= 1:  ./regenerate.sh /path/to/stackcollapse-perf.pl
set -e
sc=$(realpath "${1:?usage: $0 /path/to/stackcollapse-perf.pl}")
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/perun-import-perf
rm -rf "$work" && mkdir -p "$work" && cd "$work"
for p in threads recurse; do
	cc -O1 -g -fno-omit-frame-pointer -pthread -o $p "$here/$p.c"
done
record() { name=$1; shift; perf record -q -F 499 -o $name.data "$@" >/dev/null; }
record tk -e cpu-clock -g ./threads
record tu -e cpu-clock:u -g ./threads
record rd -e cpu-clock:u --call-graph dwarf ./recurse
record ev -e cpu-clock,task-clock -g ./threads
for n in tk tu rd ev; do perf script -i $n.data >"$here/$n.script" 2>/dev/null; done
perf script -F comm,pid,tid,time,period,event,ip,sym,dso -i tk.data >"$here/tk-pid.script" 2>/dev/null
perf script -F +srcline -i tu.data >"$here/tu-srcline.script" 2>/dev/null
cd "$here"
# <input> <options>... : <input>[.<options>].folded
fold() {
	in=$1; shift
	name=$in$(printf '%s' "$*" | sed 's/--/./g; s/[ =]//g')
	perl "$sc" "$@" $in.script 2>/dev/null | LC_ALL=C sort >$name.folded
}
for o in "" --pid --tid --kernel --jit --all --addrs --event-filter=task-clock; do fold quirks $o; done
fold tk; fold tk --kernel; fold tk --tid
fold tu; fold rd; fold ev; fold ev --event-filter=task-clock
fold tk-pid --pid; fold tk-pid --tid
fold tu-srcline --srcline
