#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-instructions.sh [builddir] [n] - the instructions collector against
# the tools a user would run instead, on the same program, in one go:
#   perun collect -c ./prog -w N instructions    (a profile on disk)
#   valgrind --tool=cachegrind --cache-sim=no ./prog N, then cg_annotate
#   ./prog N                                      (the program alone)
# and the ratios: what perun adds to cachegrind's own run and report, and
# Valgrind's slowdown of the program.  Also the counts of two runs of the
# same binary, to show they do not move.  Prints figures, asserts nothing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/bench-lib.sh"
command -v valgrind >/dev/null || { echo "bench-instructions: valgrind is not installed" >&2; exit 2; }
command -v cc >/dev/null || { echo "bench-instructions: no C compiler" >&2; exit 2; }
bench_setup bench-instructions "${1:-.}"
n=${2:-10000}
bench_label_width=46

# A program of a few functions with a hot loop, as the false-alarm corpus.
cat >prog.c <<-\EOC
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) static unsigned long mix(unsigned long x, long n)
{
	for (long i = 0; i < n * 1000; i++)
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
	return x;
}
__attribute__((noinline)) static long sum(long n)
{
	long s = 0;
	for (long i = 0; i < n * 2000; i++)
		s += i % 7;
	return s;
}
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	printf("%lu %ld\n", mix(88172645463325252ul, n), sum(n));
	return 0;
}
EOC
cc -O1 -g -o prog prog.c

# cpu seconds of the last bench_measure (user + system of its best run)
cpu() { echo "$_bm_user + $_bm_sys" | bc; }

echo "program: $n units; load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores;" \
	"best of ${BENCH_RUNS:=3}"
export BENCH_RUNS
bench_measure "./prog (alone)" ./prog "$n"
alone=$(cpu)
bench_measure "valgrind --tool=cachegrind --cache-sim=no" \
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$work/cg.out" ./prog "$n"
cg=$(cpu)
bench_measure "  + cg_annotate of its output" cg_annotate "$work/cg.out"
cg=$(echo "$cg + $(cpu)" | bc)
bench_measure "perun collect instructions (a profile)" \
	"$PERUN" collect -c ./prog -w "$n" instructions
ours=$(cpu)
awk -v a="$alone" -v c="$cg" -v o="$ours" 'BEGIN {
	printf "cpu: perun / (cachegrind + cg_annotate) %.2fx; cachegrind / the program alone %.0fx\n",
		o / c, (a > 0 ? (c / a) : 0) }'

# The same binary twice: the program's total in each profile.
"$PERUN" collect -c ./prog -w "$n" instructions -r 2 >/dev/null 2>&1
p=$(ls -t .perun/jobs/*.perf | head -n 1)
"$PERUN" show "$p" tableof --format csv -h uid -h amount resources |
	awk -F, '$1 == "./prog" { printf "%s%s", sep, $2; sep = ", " } END { print "" }' |
	sed 's/^/counts of two runs of the same binary: /'
