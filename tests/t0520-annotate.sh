#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# <perun/annotate.h> and libperun-annotate: a threaded C program and a C++
# program with every kind of annotation, built here, write Chrome Trace
# Event JSON when PERUN_ANNOTATE asks; an independent reader (python3's
# json, tests/annotate/check-trace.py) finds balanced regions per thread,
# async pairs matched by id, the exact counts and durations no shorter
# than the sleeps; in both event forms and both file formats, across fork,
# a crash and _exit; bad options and an unwritable directory are named.
. "$srcdir/tests/test-lib.sh"

command -v python3 >/dev/null || test_skip_all "python3 is needed to read the traces"
command -v c++ >/dev/null || test_skip_all "no C++ compiler"
ANN="$TEST_SRCDIR/tests/annotate"
LIBDIR="$TEST_BUILDDIR/sdk/.libs"
check() { python3 "$ANN/check-trace.py" "$@"; }
# field <summary> <kind> <name> <column>: a number from check-trace's lines
field() { awk -v k="$2" -v n="$3" -v c="$4" '$1 == k && $2 == n { print $c }' "$1"; }

test_expect_success 'setup: the C program (C11) and the C++ program (C++11) build' '
	cc -std=c11 -O2 -Wall -Wextra -Werror -pedantic -I"$TEST_SRCDIR/sdk/include" \
		-o annotated "$ANN/annotated.c" -L"$LIBDIR" -lperun-annotate -lpthread \
		-Wl,-rpath,"$LIBDIR" &&
	c++ -std=c++11 -O2 -Wall -Wextra -Werror -I"$TEST_SRCDIR/sdk/include" \
		-o annotatedxx "$ANN/annotated.cc" -L"$LIBDIR" -lperun-annotate -lpthread \
		-Wl,-rpath,"$LIBDIR"
'

test_expect_success 'every annotation is a USDT probe of provider perun with a semaphore' '
	readelf -n annotated >notes &&
	for p in work_begin work_end nap_begin nap_end load_begin load_end step_instant \
		progress_counter request_async_start request_async_finish prep_before finish_after; do
		test_grep "Name: $p\$" notes || return 1
	done &&
	test_grep "Provider: perun" notes &&
	! grep -q "Semaphore: 0x0*\$" notes
'

test_expect_success 'without PERUN_ANNOTATE nothing is written' '
	mkdir quiet && (cd quiet && ../annotated) && test -z "$(ls quiet)"
'

test_expect_success 'verbose array: balanced, every count exact, durations >= sleeps' '
	mkdir v && PERUN_ANNOTATE="log-dir=v" ./annotated 2>err &&
	test ! -s err &&
	ls v >files && test $(wc -l <files) = 1 &&
	test_grep "^perun\.$(hostname | cut -d. -f1)\.[0-9]*\.pfw\$" files &&
	check v/* >sum &&
	test_grep "^format array\$" sum &&
	test "$(field sum region work 3)" = 20 && test "$(field sum region nap 3)" = 20 &&
	test "$(field sum region load 3)" = 20 &&
	test "$(field sum async request 3)" = 4 &&
	test "$(field sum instant step 3)" = 20 && test "$(field sum counter progress 3)" = 20 &&
	test "$(field sum instant prep 3)" = 1 && test "$(field sum instant finish 3)" = 1 &&
	test "$(field sum threads 2 2)" = "" && test_grep "^threads 5\$" sum &&
	test "$(field sum region nap 4)" -ge 2000 && test "$(field sum region load 4)" -ge 1000 &&
	test "$(field sum region work 4)" -ge 3000 && test "$(field sum async request 4)" -ge 3000 &&
	grep -c "\"ph\":\"B\"" v/* >nb && test $(cat nb) = 60
'

test_expect_success 'compact object: X events only, same counts, named process' '
	mkdir c && PERUN_ANNOTATE="name=solver:log-dir=c:log-event=compact:log-format=object" \
		./annotated &&
	check c/* >sum &&
	test_grep "^format object\$" sum &&
	test "$(field sum region work 3)" = 20 && test "$(field sum region nap 4)" -ge 2000 &&
	! grep -q "\"ph\":\"[BE]\"" c/* &&
	test $(grep -c "\"ph\":\"X\"" c/*) = 60 &&
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"otherData\"][\"name\"] == \"solver\"; assert any(e[\"name\"] == \"process_name\" and e[\"args\"][\"name\"] == \"solver\" for e in d[\"traceEvents\"])" c/*
'

test_expect_success 'file name parts: name, instance-path, hostname, pid' '
	mkdir n && PERUN_ANNOTATE="name=a:log-dir=n:log-filename-include=name,instance-path,pid" \
		FLUX_ENCLOSING_ID=f1 FLUX_JOB_ID=f2 ./annotated &&
	ls n | grep -q "^perun\.a\.f1\.f2\.[0-9]*\.pfw\$"
'

test_expect_success 'cpu-mem-usage: a counter pair per region with cpu_usage and memory_usage' '
	mkdir u && PERUN_ANNOTATE="log-dir=u:cpu-mem-usage=True:log-event=compact" ./annotated &&
	check u/* >sum && test "$(field sum region work 3)" = 20 &&
	test "$(field sum counter work 3)" = 40 &&
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=[e for e in d if e[\"ph\"]==\"C\" and e[\"name\"]==\"nap\"]; assert all(0 <= e[\"args\"][\"cpu_usage\"] <= 100 for e in c); assert max(e[\"args\"][\"memory_usage\"] for e in c) > 0" u/*
'

test_expect_success 'fork: the child writes a file of its own' '
	mkdir f && PERUN_ANNOTATE="log-dir=f" ./annotated fork &&
	test $(ls f | wc -l) = 2 &&
	for x in f/*; do check $x >$x.sum || return 1; done &&
	cat f/*.sum | awk "\$1 == \"region\" && \$2 == \"work\" { print \$3 }" | sort -n >counts &&
	printf "3\n20\n" >expect && test_cmp expect counts
'

test_expect_success 'exec: the new image writes a second file, the first is kept' '
	mkdir e && PERUN_ANNOTATE="log-dir=e:log-filename-include=pid" ./annotated exec &&
	ls e >files && test $(wc -l <files) = 2 &&
	pid=$(sed -n "s/^perun\.\([0-9]*\)\.pfw\$/\1/p" files) && test -n "$pid" &&
	test_grep "^perun\.$pid\.1\.pfw\$" files &&
	for x in e/*; do check $x >$x.sum && test_grep "^region work 20 " $x.sum || return 1; done
'

test_expect_success 'a crash inside a region leaves a trace that parses, with what ran' '
	mkdir k && { PERUN_ANNOTATE="log-dir=k" ./annotated crash; test $? = 139; } &&
	check k/* >sum &&
	test "$(field sum region doomed 3)" = 1 && test "$(field sum region work 3)" = 20 &&
	test_grep "\"doomed\"" k/*
'

test_expect_success '_exit: the file still parses' '
	mkdir x && PERUN_ANNOTATE="log-dir=x" ./annotated exit &&
	python3 -c "import json,sys; json.load(open(sys.argv[1]))" x/*
'

test_expect_success 'C++: a method, a scope left by an exception, std::thread async ends' '
	mkdir cc && PERUN_ANNOTATE="log-dir=cc" ./annotatedxx &&
	check cc/* >sum &&
	test "$(field sum region area 3)" = 12 && test "$(field sum region area 4)" -ge 1000 &&
	test "$(field sum region risky 3)" = 2 && test "$(field sum region risky 4)" -ge 2000 &&
	test "$(field sum async job 3)" = 3 && test "$(field sum instant caught 3)" = 2 &&
	test "$(field sum counter sum 3)" = 3
'

test_expect_success 'a bad value names its key; the program goes on unannotated' '
	mkdir b && (cd b && PERUN_ANNOTATE="log-event=fast" ../annotated 2>../err) &&
	test_grep "PERUN_ANNOTATE: bad value .fast. for key .log-event." err &&
	test $(wc -l <err) = 1 && test -z "$(ls b)" &&
	PERUN_ANNOTATE="colour=red" ./annotated 2>err &&
	test_grep "unknown key .colour." err &&
	PERUN_ANNOTATE="log-enable=maybe" ./annotated 2>err &&
	test_grep "bad value .maybe. for key .log-enable." err &&
	PERUN_ANNOTATE="log-enable=False:log-dir=b" ./annotated 2>err &&
	test ! -s err && test -z "$(ls b)"
'

test_expect_success 'an unwritable log directory is said once; the program goes on' '
	PERUN_ANNOTATE="log-dir=/nonexistent/dir" ./annotated >out 2>err &&
	test $(grep -c "cannot write the trace ./nonexistent/dir/perun" err) = 1 &&
	test $(wc -l <err) = 1
'

test_expect_success 'the man page documents every macro and key of the header' '
	page="$TEST_SRCDIR/docs/man3/perun-annotate.3" &&
	macros=$(sed -n "s/^#define \\(PERUN_[A-Z][A-Z_]*\\)(.*/\\1/p" \
		"$TEST_SRCDIR/sdk/include/perun/annotate.h") &&
	test $(echo $macros | wc -w) = 8 &&
	for m in $macros; do
		grep -q "$m" "$page" || { echo "$m is not in the page"; return 1; }
	done &&
	for k in name log-filename-include log-dir log-enable cpu-mem-usage log-event log-format; do
		grep -q "^\.B $k\$" "$page" && grep -q "$k" "$TEST_SRCDIR/sdk/include/perun/annotate.h" ||
			{ echo "key $k"; return 1; }
	done &&
	if command -v groff >/dev/null; then
		groff -man -ww -z "$page" 2>warn && test ! -s warn
	fi
'

test_done
