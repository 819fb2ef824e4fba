#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The traces libperun-annotate writes open in a third party's Trace Event
# importer: speedscope's own (the npm package, run in Node.js by
# tests/helpers/speedscope-read.mjs) takes the verbose array and the
# compact object forms as "Trace Event Format" and rebuilds the nesting
# work;nap and work;load with weights no shorter than the sleeps.
# (Chromium's chrome://tracing does not load in headless mode and
# Perfetto's UI is not available offline, so they are not tried here.)
. "$srcdir/tests/test-lib.sh"

. "$TEST_SRCDIR/tests/helpers/speedscope-lib.sh"
speedscope_require
ANN="$TEST_SRCDIR/tests/annotate"
LIBDIR="$TEST_BUILDDIR/sdk/.libs"

# weight <output> <stack>: the self weight speedscope gives the stack
weight() { awk -v s="$2" '$1 == s { print int($2) }' "$1"; }

test_expect_success 'setup: the annotated C and C++ programs' '
	cc -std=c11 -O2 -I"$TEST_SRCDIR/sdk/include" -o annotated "$ANN/annotated.c" \
		-L"$LIBDIR" -lperun-annotate -lpthread -Wl,-rpath,"$LIBDIR" &&
	c++ -std=c++11 -O2 -I"$TEST_SRCDIR/sdk/include" -o annotatedxx "$ANN/annotated.cc" \
		-L"$LIBDIR" -lperun-annotate -lpthread -Wl,-rpath,"$LIBDIR"
'

for form in "verbose array" "compact object"; do
	set -- $form
	test_expect_success "speedscope imports the $form form" "
		mkdir $1 && PERUN_ANNOTATE='log-dir=$1:log-event=$1:log-format=$2' ./annotated &&
		node \"\$READ\" \"\$bundle\" $1/* >out &&
		test_grep '^format Importing as Trace Event Format profile\$' out &&
		test \$(weight out work\\;nap) -ge 10000 &&
		test \$(weight out work\\;load) -ge 5000
	"
done

test_expect_success 'speedscope imports the C++ trace: the scope left by exceptions' '
	mkdir cc && PERUN_ANNOTATE="log-dir=cc" ./annotatedxx &&
	node "$READ" "$bundle" cc/* >out &&
	test_grep "^format Importing as Trace Event Format profile\$" out &&
	test $(weight out risky) -ge 4000
'

test_done
