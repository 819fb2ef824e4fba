#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# sdk/python/perun_annotate.py: a threaded Python program with the same
# annotations as tests/annotate/annotated.c writes the same Chrome Trace
# JSON (checked by the independent reader check-trace.py: balanced regions,
# async pairs by id, counts, durations >= sleeps) in both event forms and
# file formats and across fork; its traces and a C program's merge into one
# profile with 'perun import chrome'; a bad PERUN_ANNOTATE names its key.
. "$srcdir/tests/test-lib.sh"

command -v python3 >/dev/null || test_skip_all "no python3"
ANN="$TEST_SRCDIR/tests/annotate"
LIBDIR="$TEST_BUILDDIR/sdk/.libs"
export PYTHONPATH="$TEST_SRCDIR/sdk/python"
check() { python3 "$ANN/check-trace.py" "$@"; }
field() { awk -v k="$2" -v n="$3" -v c="$4" '$1 == k && $2 == n { print $c }' "$1"; }
query() { python3 "$TEST_SRCDIR/plugins/collect/trace/tests/trace-query.py" "$@"; }

test_expect_success 'without PERUN_ANNOTATE: nothing written' '
	mkdir quiet && (cd quiet && python3 "$ANN/annotated.py") && test -z "$(ls quiet)"
'

test_expect_success 'verbose array: the same events as the C runtime writes' '
	mkdir v && PERUN_ANNOTATE="log-dir=v:name=py" python3 "$ANN/annotated.py" 2>err &&
	test ! -s err &&
	ls v | grep -q "^perun\.$(hostname | cut -d. -f1)\.[0-9]*\.pfw\$" &&
	check v/* >sum &&
	test "$(field sum region work 3)" = 12 && test "$(field sum region nap 3)" = 12 &&
	test "$(field sum region load 3)" = 12 && test "$(field sum async request 3)" = 3 &&
	test "$(field sum instant step 3)" = 12 && test "$(field sum counter progress 3)" = 12 &&
	test "$(field sum instant prep 3)" = 1 && test "$(field sum instant finish 3)" = 1 &&
	test "$(field sum region nap 4)" -ge 2000 && test "$(field sum region load 4)" -ge 1000 &&
	test "$(field sum async request 4)" -ge 3000 &&
	test_grep "^threads 4\$" sum &&
	test_grep "\"thread_name\".*\"worker-0\"" v/*
'

test_expect_success 'compact object with cpu-mem-usage, and fork' '
	mkdir c && PERUN_ANNOTATE="log-dir=c:log-event=compact:log-format=object:cpu-mem-usage=True" \
		python3 "$ANN/annotated.py" fork &&
	test $(ls c | wc -l) = 2 &&
	for f in c/*; do check $f >$f.sum || return 1; done &&
	cat c/*.sum | awk "\$1 == \"region\" && \$2 == \"work\" { print \$3 }" | sort -n >counts &&
	printf "2\n12\n" >expect && test_cmp expect counts &&
	! grep -q "\"ph\":\"[BE]\"" c/*.pfw && test_grep "cpu_usage" c/*.pfw &&
	test_grep "^format object\$" c/*.sum
'

test_expect_success 'a C and a Python process: one profile by import chrome' '
	cc -std=c11 -O2 -I"$TEST_SRCDIR/sdk/include" -o annotated "$ANN/annotated.c" \
		-L"$LIBDIR" -lperun-annotate -lpthread -Wl,-rpath,"$LIBDIR" &&
	mkdir mix && PERUN_ANNOTATE="log-dir=mix:name=cprog" ./annotated &&
	PERUN_ANNOTATE="log-dir=mix:name=pyprog" python3 "$ANN/annotated.py" &&
	test_make_git_project proj && (cd proj && perun init >/dev/null &&
		perun import chrome ../mix/* >/dev/null && cp .perun/jobs/*.perf ../p.perf) &&
	test "$(query p.perf calls work)" = 32 &&
	test "$(query p.perf calls request)" = 7 &&
	test "$(query p.perf calls "!ProcessResource!")" = 2 &&
	test "$(query p.perf field work process)" = "$(printf "cprog\npyprog")" &&
	test "$(query p.perf exclusive work)" = ok
'

test_expect_success 'a bad PERUN_ANNOTATE names the key; the program goes on' '
	PERUN_ANNOTATE="log-event=loud" python3 "$ANN/annotated.py" 2>err &&
	test_grep "^perun-annotate: PERUN_ANNOTATE: bad value .loud. for key .log-event." err &&
	PERUN_ANNOTATE="size=3" python3 "$ANN/annotated.py" 2>err &&
	test_grep "unknown key .size." err &&
	PERUN_ANNOTATE="log-dir=/nonexistent/d" python3 "$ANN/annotated.py" 2>err &&
	test $(grep -c "cannot write the trace ./nonexistent/d/perun" err) = 1
'

test_done
