#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The libFuzzer targets of fuzz/ build (clang, ASan, UBSan) and run a
# short campaign from their seed corpora without a crash or a leak: the
# profile loader, the configuration's YAML, the pidx index and store
# objects.  Long campaigns are run by hand (fuzz/README.md).
. "$srcdir/tests/test-lib.sh"

command -v clang >/dev/null || test_skip_all "clang is not installed"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' >probe.c
clang -fsanitize=fuzzer probe.c -o probe 2>/dev/null ||
	test_skip_all "clang cannot build libFuzzer targets here"

TARGETS="profile_load config_yaml index_read store_object"

test_expect_success 'the targets build' '
	sh "$TEST_SRCDIR/fuzz/build.sh" "$TRASH_DIRECTORY/out" >build.log 2>&1 ||
		{ tail -n 20 build.log; false; }
'

for t in $TARGETS; do
	test_expect_success "$t: 3000 runs from the seeds, no crash" "
		mkdir -p new-$t &&
		\"$TRASH_DIRECTORY/out/fuzz_$t\" -runs=3000 -max_total_time=60 -seed=1 \
			new-$t \"$TEST_SRCDIR/fuzz/corpus/$t\" >$t.log 2>&1 ||
			{ tail -n 30 $t.log; false; }
	"
done

test_done
