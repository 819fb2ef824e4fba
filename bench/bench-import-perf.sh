#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Throughput of "perun import perf script" against FlameGraph's
# stackcollapse-perf.pl, the Perl script Python Perun piped perf script
# through (issue 14), side by side in one run on the same file:
#
#   bench/bench-import-perf.sh <stackcollapse-perf.pl> [builddir] [MB]
#
# The input (<MB> default 1024) is the real perf script outputs of
# tests/import-perf (tk, tu, rd: kernel, user and dwarf stacks), each sample repeated under 200 process names (so the
# distinct stacks stay bounded, about 200 x those of the inputs), the
# result concatenated until it is <MB> large.  Prints for each side the
# wall time, MB/s and peak RSS (GNU time), the ratio, and checks that
# both folded the same stacks with the same counts.  To show that memory
# follows the distinct stacks and not the input, perun also reads a
# quarter of the input.  Figures only; nothing is asserted but equality.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sc=$(realpath "${1:?usage: $0 <stackcollapse-perf.pl> [builddir] [MB]}")
. "$here/bench-lib.sh"
bench_setup bench-import-perf "${2:-.}"
mb=${3:-1024}
data="$here/../tests/import-perf"

# One event (cpu-clock), as one perf record -e makes: all samples count.
cat "$data/tk.script" "$data/tu.script" "$data/rd.script" | sed 's/ cpu-clock:u: / cpu-clock: /' |
	awk 'BEGIN { RS = ""; ORS = "\n\n" }
	     { rec[NR] = $0 }
	     END { for (v = 0; v < 200; v++) for (i = 1; i <= NR; i++) {
		     r = rec[i]; sp = index(r, " ")
		     print substr(r, 1, sp - 1) "_" v substr(r, sp) } }' >chunk.script
chunk=$(wc -c <chunk.script)
: >big.script
quarter=$((mb * 1024 * 1024 / 4))
while [ "$(wc -c <big.script)" -lt $((mb * 1024 * 1024)) ]; do
	cat chunk.script >>big.script
	[ -f quarter.script ] || [ "$(wc -c <big.script)" -lt $quarter ] || cp big.script quarter.script
done
size=$(wc -c <big.script)
qsize=$(wc -c <quarter.script)

# run <label> <bytes> <cmd>...: one row "<label> <wall> <MB/s> <CPU> <RSS>"
# (CPU = user + system: on a shared machine the steadier figure)
run() {
	label=$1 bytes=$2
	shift 2
	/usr/bin/time -f "%e %U %S %M" -o time.out "$@" >run.out
	read -r wall user sys rss <time.out
	cpu=$(echo "$user + $sys" | bc -l)
	printf '%-32s wall %7.2f s %7.1f MB/s  cpu %7.2f s  peak RSS %6.1f MiB\n' "$label" \
		"$wall" "$(echo "$bytes / 1048576 / $wall" | bc -l)" "$cpu" \
		"$(echo "$rss / 1024" | bc -l)"
	echo "$wall $cpu" >last.time
}

echo "input: $((size / 1048576)) MiB of perf script text (chunk of $((chunk / 1024)) KiB repeated)"
run "perun import perf script (1/4)" "$qsize" "$PERUN" import perf script quarter.script
run "perun import perf script" "$size" "$PERUN" import perf script big.script
read -r ours ours_cpu <last.time
run "perl stackcollapse-perf.pl" "$size" perl "$sc" big.script
read -r theirs theirs_cpu <last.time
mv run.out perl.folded
profile=$(ls -t .perun/jobs/*.perf | head -n 1)
jq -r '.resource_type_map as $m | .resources | to_entries[] | $m[.key] as $t
	| ([$t.command] + [$t.trace[].func] + [$t.uid] | join(";"))
	  + " " + (.value.amount[] | tostring)' "$profile" | sort >perun.folded
sort perl.folded | cmp -s - perun.folded && same=identical || same=DIFFERENT
echo "distinct stacks: $(wc -l <perun.folded); folds: $same"
printf 'ratio perl / perun: wall %.1fx, cpu %.1fx\n' "$(echo "$theirs / $ours" | bc -l)" \
	"$(echo "$theirs_cpu / $ours_cpu" | bc -l)"
