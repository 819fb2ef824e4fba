#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The libFuzzer targets of fuzz/ build through configure --enable-fuzzing
# (clang, ASan, UBSan; a clear error with another compiler), replay their
# regression corpus (every input that ever failed: an alias bomb, a zlib
# bomb, truncated indexes, overflowing selectors) and run a short
# campaign from their seeds without a crash or a leak.  Long campaigns:
# bench/bench-fuzz.sh.
. "$srcdir/tests/test-lib.sh"

TARGETS="profile_load config_yaml index_read store_object selector perf_script chrome_trace serve_request"

test_expect_success 'configure --enable-fuzzing refuses a compiler that is not clang' '
	command -v gcc >/dev/null || { say "no gcc"; return 0; }
	mkdir gcc-build && (cd gcc-build &&
	test_must_fail "$TEST_SRCDIR/configure" -q CC=gcc --enable-fuzzing >out 2>err) &&
	test_grep "enable-fuzzing needs clang: configure CC=clang --enable-fuzzing" gcc-build/err
'

command -v clang >/dev/null || test_skip_all "clang is not installed"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >probe.c
clang -fsanitize=fuzzer probe.c -o probe 2>/dev/null ||
	test_skip_all "clang cannot build libFuzzer targets here"

# A build configured --enable-fuzzing has them; any other builds them
# with fuzz/build.sh in its fuzz/out (kept, so later runs only make).
if [ -x "$TEST_BUILDDIR/fuzz/fuzz_selector" ]; then
	BIN=$TEST_BUILDDIR/fuzz
	make_targets() { make -C "$TEST_BUILDDIR" -s fuzz-targets; }
else
	BIN=$TEST_BUILDDIR/fuzz/out
	make_targets() { sh "$TEST_SRCDIR/fuzz/build.sh" "$BIN"; }
fi

test_expect_success 'the targets build' '
	make_targets >build.log 2>&1 || { tail -n 20 build.log; false; }
'

test_expect_success 'every target replays its regression corpus' '
	for t in $TARGETS; do
		ls "$TEST_SRCDIR/fuzz/regression/$t"/* >/dev/null ||
			{ echo "no regression corpus for $t"; return 1; }
	done &&
	sh "$TEST_SRCDIR/fuzz/replay.sh" "$BIN" "$TEST_SRCDIR/fuzz/regression" >replay.out &&
	cat replay.out &&
	test $(grep -c "regression inputs pass$" replay.out) = 8
'

for t in $TARGETS; do
	test_expect_success "$t: 3000 runs from the seeds, no crash" "
		mkdir -p new-$t &&
		\"$BIN/fuzz_$t\" -runs=3000 -max_total_time=60 -seed=1 new-$t \
			\"$TEST_SRCDIR/fuzz/corpus/$t\" \"$TEST_SRCDIR/fuzz/regression/$t\" \
			>$t.log 2>&1 || { tail -n 30 $t.log; false; }
	"
done

test_done
