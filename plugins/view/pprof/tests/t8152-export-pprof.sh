#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun show <profile> pprof: gzip-compressed profile.proto, decoded by a
# small protobuf reader of our own (pprof-read.py, python3's gzip) and
# compared with the stacks flame-check.py computes from the profile.
. "$srcdir/tests/test-lib.sh"
test_fixtures

command -v python3 >/dev/null || test_skip_all "python3 is needed to decode the profile independently"
CHECK="$TEST_SRCDIR/plugins/view/flamegraph/tests/flame-check.py"
READ="$TEST_SRCDIR/plugins/view/pprof/tests/pprof-read.py"

# pprof_ok <profile> <divide> <type line>: decoded stacks are the profile's.
pprof_ok() {
	perun show "$1" pprof -o p.pb.gz &&
	python3 "$READ" p.pb.gz --divide "$2" >decoded &&
	test "$(sed -n 1p decoded)" = "$3" &&
	grep -v -e "^type " -e "^comment " decoded >decoded.folded &&
	python3 "$CHECK" "$1" --folded decoded.folded
}

test_expect_shared 'kperf profile: sample counts' '
	pprof_ok "$TESTDATA/diff_profiles/kperf-baseline.perf" 1 "type samples count" &&
	test_grep "^comment perun time profile of ls $" decoded
'

test_expect_shared 'memory profile: bytes, frames with file and line' '
	pprof_ok "$TESTDATA/query_profiles/memory-basic.perf" 1 "type space bytes" &&
	test_grep "main()~/home/jirka/Git/memory-repo/test.c~77;" decoded.folded >/dev/null
'

test_expect_success 'trace profile: wall time in nanoseconds' '
	pprof_ok "$FIXTURES/trace/trace-baseline.perf" 1000 "type wall nanoseconds"
'

test_expect_success 'the default file, --max-trace, and a file that is gzip' '
	perun show "$FIXTURES/kperf/kperf-target.perf" pprof --max-trace 2 &&
	python3 "$READ" profile.pb.gz >decoded &&
	grep -v -e "^type " -e "^comment " decoded >cut.folded &&
	python3 "$CHECK" "$FIXTURES/kperf/kperf-target.perf" --max-trace 2 --folded cut.folded &&
	python3 -c "import gzip; gzip.decompress(open(\"profile.pb.gz\", \"rb\").read())"
'

test_expect_success 'the reader notices a broken file' '
	head -c 100 profile.pb.gz >broken.pb.gz &&
	test_must_fail python3 "$READ" broken.pb.gz 2>err
'

test_expect_success 'errors: no stacks, bad options, unwritable file; nothing written' '
	test_exit_code 2 perun show "$FIXTURES/mixed/points-models.perf" pprof -o x.pb.gz 2>err &&
	test_grep "^perun: view '"'"'pprof'"'"': the profile has no call stacks" err &&
	test_exit_code 2 perun show "$FIXTURES/kperf/kperf-target.perf" pprof -o x.pb.gz --max-trace x 2>err &&
	test_must_fail perun show "$FIXTURES/kperf/kperf-target.perf" pprof -o no/dir/x.pb.gz 2>err &&
	test_grep "no/dir/x.pb.gz" err && test $(wc -l <err) = 1 &&
	test ! -e x.pb.gz
'

test_done
