#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The traces libperun-annotate writes open in other programs' own Trace
# Event importers:
#   * the trace engine of Chromium's DevTools Performance panel (the npm
#     package @paulirish/trace_engine, run in Node.js by
#     tests/helpers/trace-engine-read.mjs): one process, every worker
#     thread's 15 regions as entries, its 5 work calls the roots of its
#     tree, the counts the program made;
#   * speedscope's importer (tests/helpers/speedscope-read.mjs): "Trace
#     Event Format", work;nap and work;load no shorter than the sleeps;
# for the verbose array and compact object forms of the 4-thread C
# program, and the C++ program.  (Chromium's chrome://tracing does not
# load in headless mode and Perfetto's UI is not available offline.)
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/tests/annotate/annotate-lib.sh"

command -v node >/dev/null ||
	test_skip_all "Node.js is needed to run the importers (Debian: apt-get install nodejs)"
ENGINE=${PERUN_TRACE_ENGINE:-$(npm root -g 2>/dev/null)/@paulirish/trace_engine/analyze-trace.mjs}
ENGINE_READ="$TEST_SRCDIR/tests/helpers/trace-engine-read.mjs"
SS_PKG=${PERUN_SPEEDSCOPE:-$(npm root -g 2>/dev/null)/speedscope}
SS_BUNDLE=$(ls "$SS_PKG"/dist/release/speedscope-*.js 2>/dev/null | head -n 1)
SS_READ="$TEST_SRCDIR/tests/helpers/speedscope-read.mjs"
[ -f "$ENGINE" ] || [ -n "$SS_BUNDLE" ] ||
	test_skip_all "neither the trace engine nor speedscope is installed (scripts/install-deps.sh)"
[ -f "$ENGINE" ] || say "the trace engine is not at $ENGINE: its checks are skipped"
[ -n "$SS_BUNDLE" ] || say "speedscope is not at $SS_PKG: its checks are skipped"

# engine <file>: the trace engine's model of the file, in ./engine.out
engine() { [ ! -f "$ENGINE" ] || node "$ENGINE_READ" "$ENGINE" "$1" >engine.out; }
# weight <stack>: speedscope's self weight of the stack, from ./ss.out
weight() { awk -v s="$1" '$1 == s { print int($2) }' ss.out; }
speedscope() {
	[ -z "$SS_BUNDLE" ] || {
		node "$SS_READ" "$SS_BUNDLE" "$1" >ss.out &&
		test_grep "^format Importing as Trace Event Format profile\$" ss.out
	}
}

test_expect_success 'setup: the annotated C and C++ programs' '
	annotate_build
'

for form in "verbose array" "compact object"; do
	set -- $form
	test_expect_success "both importers read the $form form" "
		mkdir $1 && PERUN_ANNOTATE='log-dir=$1:log-event=$1:log-format=$2' ./annotated &&
		engine $1/* && { [ ! -f \"\$ENGINE\" ] || {
			test_grep '^processes 1\$' engine.out &&
			test \$(grep -c '^thread .* 15 5\$' engine.out) = 4 &&
			test_grep '^entry work 20\$' engine.out &&
			test_grep '^entry nap 20\$' engine.out &&
			test_grep '^entry load 20\$' engine.out; }; } &&
		speedscope $1/* && { [ -z \"\$SS_BUNDLE\" ] || {
			test \$(weight work\\;nap) -ge 10000 &&
			test \$(weight work\\;load) -ge 5000; }; }
	"
done

# Readers parse "ts" as a double, which holds epoch microseconds only to a
# quarter: finer digits rounded either way put a region's end after the
# next region's begin (speedscope then misnests them, about 1 run in 20).
test_expect_success 'timestamps and durations are exact quarters of a microsecond' '
	grep -ho "\"\(ts\|dur\)\":[0-9.]*" compact/* verbose/* >times &&
	test -s times &&
	test_must_fail grep -v "\.\(000\|250\|500\|750\)$" times
'

test_expect_success 'both importers read the C++ trace' '
	mkdir cc && PERUN_ANNOTATE="log-dir=cc" ./annotatedxx &&
	engine cc/* && { [ ! -f "$ENGINE" ] || {
		test_grep "^entry area 12\$" engine.out && test_grep "^entry risky 2\$" engine.out &&
		test $(grep -c "^thread .* 4 4\$" engine.out) = 3; }; } &&
	speedscope cc/* && { [ -z "$SS_BUNDLE" ] || test $(weight risky) -ge 4000; }
'

test_done
