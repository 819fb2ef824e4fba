#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun fuzz on the paper's two examples (Perun, ICSE 2023 demo, section
# IV.b), printed in the paper's layout, and the fuzzer's cost per run.
#
#  Table III: std::regex_search with the Java class name regex of OWASP's
#    ReDoS list on a ~19 kB seed of class names (T3_SECONDS, default 240).
#  Table IV: a word-frequency counter on a hash table, Java 1.1 string
#    hash against DJB's; the Java variant is fuzzed with gcov coverage
#    (T4_SECONDS, default 150) and both time the generations of the
#    lineage of the worst input found.
#  Overhead: executions of a program that only reads its input, by perun
#    fuzz (no coverage, no candidates) against a bare posix_spawn/wait loop.
#
# Times are CPU seconds (user + system), the least of five runs (21 in
# Table IV, whose times are milliseconds); inputs running past HANG_LIMIT
# (default 60) wall seconds show as timeouts.
# PARTS="3 4 o" picks the tables (Table III, Table IV, overhead).
# Usage: bench/bench-perun-fuzz.sh [build-dir]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/bench-lib.sh"
bench_setup bench-perun-fuzz "${1:-$top/build}"
src=$top/bench/perun-fuzz
hang_limit=${HANG_LIMIT:-60}
parts=${PARTS:-"3 4 o"}
cputime=$work/cputime
gcc -O2 -o "$cputime" "$src/cputime.c"

# best <prog> <file> [tries]: the least CPU seconds of a few runs (5),
# or "timeout" past the limit (bench/perun-fuzz/cputime.c).
best() { "$cputime" "${3:-5}" "$hang_limit" "$1" "$2"; }

kb() { wc -c <"$1" | awk '{ printf "%.0f", $1 / 1000 }'; }

# rules <out> <file>: rule applications from the seed to this input.
rules() {
	awk -v f="$(basename "$2")" '$5 == f { print $8; exit }' "$1/logs/executions.log"
}

# ---- Table III ------------------------------------------------------------
case " $parts " in *" 3 "*)
mkdir t3 && cd t3
g++ -O2 -o regex "$src/regex.cc"
python3 - <<'PY'
import random
random.seed(3)
parts = ["com", "org", "net", "example", "project", "core", "util", "perun", "fuzz",
         "data", "model", "view", "check", "store", "index", "config"]
lines, size = [], 0
while size < 19000:
    name = ".".join(random.choice(parts) for _ in range(random.randint(2, 4)))
    name += "." + random.choice(["Main", "Profile", "Store", "Index", "Runner", "Helper"])
    lines.append(name)
    size += len(name) + 1
open("seed.txt", "w").write("\n".join(lines) + "\n")
PY
t0=$(now_ns)
"$PERUN" fuzz --cmd ./regex -w seed.txt -o out --skip-coverage-testing --seed 1 \
	--timeout "${T3_SECONDS:-240}" --hang-timeout 10 \
	--collector-params "--repeat 1 --warmup 0" >summary.txt
t3_secs=$(( ($(now_ns) - t0) / 1000000000 ))
seed_t=$(best ./regex seed.txt)
# each found input timed once to order them, the rows shown five times
for f in out/*.txt out/hangs/*; do
	[ -e "$f" ] && echo "$(best ./regex "$f" 1) $f"
done >timed.raw
{ grep -v '^timeout' timed.raw | sort -g; grep '^timeout' timed.raw; } >timed || true
echo "Table III: Java class name validation regex, std::regex_search (fuzzing: ${t3_secs} s)"
printf '%-8s %10s %12s %10s %6s\n' Input 'Size [kB]' 'Time [s]' Slowdown 'Rules'
printf '%-8s %10s %12s %10s %6s\n' seed "$(kb seed.txt)" "$seed_t" - -
# a few of the found inputs, from the quickest to the slowest
n=$(wc -l <timed)
i=0
for k in $(awk -v n="$n" 'BEGIN { if (n <= 4) { for (i = 1; i <= n; i++) print i }
	else { print 1; print int(n / 2); print n - 1; print n } }'); do
	line=$(sed -n "${k}p" timed)
	f=${line#* } t=${line%% *}
	[ "$t" = timeout ] || t=$(best ./regex "$f")
	i=$((i + 1))
	if [ "$t" = timeout ]; then
		shown="timeout (>${hang_limit} s)" slow=">$(awk -v a="$hang_limit" -v b="$seed_t" 'BEGIN { printf "%.0f", a / b }')"
	else
		shown=$t slow=$(awk -v a="$t" -v b="$seed_t" 'BEGIN { printf "%.1f", a / b }')
	fi
	printf '%-8s %10s %12s %10s %6s\n' "w_$k" "$(kb "$f")" "$shown" "$slow" "$(rules out "$f")"
done
echo "  ($(grep -c . timed) inputs found: $(ls out/*.txt 2>/dev/null | wc -l) degrading, $(ls out/hangs | wc -l) hangs of > 10 s)"
echo
cd ..
;; esac

# ---- Table IV -------------------------------------------------------------
case " $parts " in *" 4 "*)
mkdir t4 && cd t4
gcc -O2 -DJAVA11 -o java11 "$src/wordfreq.c"
gcc -O2 -o djb "$src/wordfreq.c"
mkdir cov && (cd cov && gcc -O1 --coverage -DJAVA11 -o java11 "$src/wordfreq.c")
python3 - <<'PY'
import random
random.seed(4)
# path names: the Java 1.1 hash samples every len/8-th character of
# strings of 16 or more, so names differing elsewhere collide
words = ["/usr/share/doc/pkg%04d/file%04d.txt" % (random.randint(0, 9999),
         random.randint(0, 9999)) for _ in range(4000)]
out, size = [], 0
while size < 210000:
    line = " ".join(random.choice(words) for _ in range(6))
    out.append(line)
    size += len(line) + 1
open("seed.txt", "w").write("\n".join(out) + "\n")
PY
t0=$(now_ns)
(cd cov && "$PERUN" fuzz --cmd ./java11 -w ../seed.txt -o ../out --seed 1 \
	--timeout "${T4_SECONDS:-150}" --hang-timeout 10 --max-size-ratio 5 \
	--coverage-increase-rate 1.0 --exec-limit 20 --interesting-files-limit 3 \
	--coverage-reader gcda --collector-params "--repeat 1 --warmup 0" >../summary.txt)
t4_secs=$(( ($(now_ns) - t0) / 1000000000 ))
# The rows are the generations of one lineage, as the paper's w_i: the
# worst-case mutation and those of its ancestors that were findings
# (kept in out/), from the seed on; at most eight, evenly spaced.
worst=$(sed -n 's/^  worst-case mutation *\([^ ]*\) .*/\1/p' summary.txt)
f=$worst
while [ -n "$f" ]; do
	p=$(awk -v f="$f" '$5 == f { print $3, $4; exit }' out/logs/executions.log)
	[ -n "$p" ] && echo "$f ${p#* }"
	f=${p%% *}
done | tac >chain
while read -r f r; do
	if [ -f "out/$f" ]; then echo "$f"; fi
done <chain >lineage
n=$(wc -l <lineage)
awk -v n="$n" 'BEGIN { m = n < 8 ? n : 8; for (i = 1; i <= m; i++) print int((i * n + m - 1) / m) }' |
	while read -r k; do sed -n "${k}p" lineage; done | uniq >rows
# used <file>: the rules from the seed to it, "T.16x5 T.1x2", most used first
used() {
	awk -v f="$1" '{ n[$2]++ } $1 == f { exit } END { for (r in n) print n[r], r }' chain |
		sort -k1,1nr -k2,2 | awk '{ printf "%s%sx%d", (NR > 1 ? " " : ""), $2, $1 }'
}
echo "Table IV: word frequencies on a hash table, Java 1.1 hash against DJB (fuzzing the Java 1.1 build with gcov: ${t4_secs} s)"
printf '%-8s %10s %10s %10s %10s %10s  %s\n' Input 'Size [kB]' 'Java [s]' Slowdown 'DJB [s]' Slowdown 'Rules used'
js=$(best ./java11 seed.txt 21) ds=$(best ./djb seed.txt 21)
printf '%-8s %10s %10s %10s %10s %10s  %s\n' seed "$(kb seed.txt)" "$js" - "$ds" - -
for f in $(cat rows); do
	jt=$(best ./java11 "out/$f" 21) dt=$(best ./djb "out/$f" 21)
	printf '%-8s %10s %10s %10s %10s %10s  %s\n' "w_$(rules out "$f")" "$(kb "out/$f")" "$jt" \
		"$(awk -v a="$jt" -v b="$js" 'BEGIN { printf "%.2f", a / b }')" "$dt" \
		"$(awk -v a="$dt" -v b="$ds" 'BEGIN { printf "%.2f", a / b }')" "$(used "$f")"
done
echo "  (w_i: the generation i of the lineage of the worst input; $n of its $(wc -l <chain) generations were findings, $(ls out/*.txt 2>/dev/null | wc -l) findings in all)"
echo
cd ..
;; esac

# ---- overhead per execution -----------------------------------------------
case " $parts " in *" o "*)
mkdir ov && cd ov
gcc -O2 -o nop "$src/nop.c"
gcc -O2 -o spawn-loop "$src/spawn-loop.c"
mkdir cov && (cd cov && gcc -O2 --coverage -o nop "$src/nop.c")
head -c 1000 "$top/README.md" >seed.txt
n=${OVERHEAD_RUNS:-1000}
# min_of <cmd...>: the least of three results (interleaved with the
# others, so a busy moment of the machine hits one round, not one side)
base=9 per=9 perc=9 perd=9
for round in 1 2 3; do
	b=$(./spawn-loop "$n" ./nop seed.txt)
	rm -rf out outc outd
	"$PERUN" fuzz --cmd ./nop -w seed.txt -o out --skip-coverage-testing --seed 1 \
		--max-executions "$n" --exec-limit "$n" --coverage-increase-rate 1000000 \
		--no-plotting >summary.txt
	p=$(awk -v n="$n" '$1 == "time" { printf "%.6f", $2 / n }' summary.txt)
	for reader in gcov gcda; do
		(cd cov && "$PERUN" fuzz --cmd ./nop -w ../seed.txt -o ../out-$reader --seed 1 \
			--max-executions 200 --exec-limit 200 --coverage-increase-rate 1000000 \
			--coverage-reader $reader --no-plotting >../summary-$reader.txt)
		rm -rf out-$reader
	done
	c=$(awk '$1 == "time" { printf "%.6f", $2 / 200 }' summary-gcov.txt)
	d=$(awk '$1 == "time" { printf "%.6f", $2 / 200 }' summary-gcda.txt)
	base=$(awk -v a="$base" -v b="$b" 'BEGIN { print (b < a ? b : a) }')
	per=$(awk -v a="$per" -v b="$p" 'BEGIN { print (b < a ? b : a) }')
	perc=$(awk -v a="$perc" -v b="$c" 'BEGIN { print (b < a ? b : a) }')
	perd=$(awk -v a="$perd" -v b="$d" 'BEGIN { print (b < a ? b : a) }')
done
echo "Cost per execution (a program that only reads its 1 kB input; least of 3 rounds):"
awk -v b="$base" -v p="$per" -v c="$perc" -v d="$perd" -v n="$n" 'BEGIN {
	printf "  bare posix_spawn/wait       %8.3f ms  (%d runs)\n", b * 1000, n
	printf "  perun fuzz, no coverage     %8.3f ms  overhead %.3f ms\n", p * 1000, (p - b) * 1000
	printf "  perun fuzz, gcov            %8.3f ms  (a gcov --json-format run each)\n", c * 1000
	printf "  perun fuzz, gcda reader     %8.3f ms\n", d * 1000 }'
;; esac
