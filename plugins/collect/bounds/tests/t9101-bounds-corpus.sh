#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun collect bounds over a corpus of small functions whose bounds are
# written by hand in the source (tests/data/corpus.c): constant,
# parameter-bounded, triangular, nested, halving and doubling loops, early
# exits, two counters, amortised inner loops and unbounded ones.  Every
# local and total bound and class must be the one written there.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null 2>&1 || test_skip_all "jq is not installed"
corpus="$srcdir/plugins/collect/bounds/tests/data/corpus.c"

test_expect_success 'setup: a perun instance and the corpus' '
	perun init --vcs-type svs proj >/dev/null &&
	cp "$corpus" proj/corpus.c
'

test_expect_success 'the corpus has at least 40 functions, each with its bounds' '
	test $(grep -c "/\* T: " proj/corpus.c) -ge 40 &&
	test $(grep -c "/\* L: " proj/corpus.c) -ge 40
'

test_expect_success 'every bound and class is the one written by hand' '
	cd proj &&
	perun collect -c corpus bounds -s corpus.c >out 2>err &&
	test_cmp /dev/null err &&
	grep -n "/\* [LT]: " corpus.c |
	sed -E "s#^([0-9]+):.*/\* ([LT]): (.*) [|] (O[(].*[)]) \*/.*\$#\1	\2	\3	\4#" |
	sort >expect &&
	p=$(ls .perun/jobs/bounds-*.perf) &&
	jq -r ".resource_type_map[] | [.uid.line,
		(if .type == \"total bound\" then \"T\" else \"L\" end), .bound, .class] | @tsv" \
		"$p" | sort >actual &&
	test_cmp expect actual
'

test_expect_success 'every O(∞) says why, no other bound does' '
	cd proj &&
	p=$(ls .perun/jobs/bounds-*.perf) &&
	test $(jq "[.resource_type_map[] | select(.class == \"O(∞)\" and (.reason | length) > 0)] | length" "$p") = \
		$(jq "[.resource_type_map[] | select(.class == \"O(∞)\")] | length" "$p") &&
	test $(jq "[.resource_type_map[] | select(.class != \"O(∞)\" and .reason)] | length" "$p") = 0 &&
	jq -r ".resource_type_map[] | select(.uid.function == \"c37_unsigned_wraps\" and .type == \"local bound\") | .reason" "$p" >actual &&
	echo "an unsigned counter might wrap below zero" >expect &&
	test_cmp expect actual
'

test_done
