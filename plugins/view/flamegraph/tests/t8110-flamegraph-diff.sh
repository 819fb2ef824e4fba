#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun showdiff <baseline> <target> flamegraph: one self-contained HTML
# page with the baseline, target, differential and negated differential
# flame graphs, each read back independently and opened in headless
# Chromium; error paths.
. "$srcdir/tests/test-lib.sh"
test_fixtures

command -v python3 >/dev/null || test_skip_all "python3 is needed to read the page independently"
CHECK="$TEST_SRCDIR/plugins/view/flamegraph/tests/flame-check.py"
. "$TEST_SRCDIR/tests/helpers/browser-lib.sh"
BASE=$FIXTURES/kperf/kperf-baseline.perf
TARGET=$FIXTURES/kperf/kperf-target.perf

# split_svgs <page>: the page's <svg> elements as <page>.1.svg, .2.svg, ...
split_svgs() {
	python3 - "$1" <<-\EOF
	import re, sys
	page = open(sys.argv[1]).read()
	svgs = re.findall(r"<svg .*?</svg>", page, re.S)
	for i, svg in enumerate(svgs, 1):
	    open(f"{sys.argv[1]}.{i}.svg", "w").write(svg)
	print(len(svgs))
	EOF
}

test_expect_success 'showdiff writes one page named after both profiles' '
	perun showdiff "$BASE" "$TARGET" flamegraph >out &&
	test -f flamegraph-diff-of-kperf-baseline-and-kperf-target.html &&
	mv flamegraph-diff-of-kperf-baseline-and-kperf-target.html diff.html &&
	test "$(split_svgs diff.html)" = 4 &&
	! grep -E "(src|href)=\"(https?:)?//" diff.html
'

test_expect_success 'baseline and target graphs: every frame as wide as its stacks' '
	python3 "$CHECK" "$BASE" --svg diff.html.1.svg >base.check &&
	python3 "$CHECK" "$TARGET" --svg diff.html.2.svg >target.check &&
	sed -n "s/^frames //p" base.check target.check >frames &&
	test $(sed -n 1p frames) -gt 5 && test $(sed -n 2p frames) -gt 5
'

test_expect_success 'differential graph: target widths, red where frames grew, blue where they shrank' '
	python3 "$CHECK" "$TARGET" --svg diff.html.3.svg --diff-baseline "$BASE" >diff.check &&
	grep -c "fill=\"rgb(255," diff.html.3.svg >red &&
	grep -c ",255)\"" diff.html.3.svg >blue &&
	test $(cat red) -gt 0 && test $(cat blue) -gt 0 &&
	test_grep "baseline .* scaled, [+-]" diff.html.3.svg >/dev/null
'

test_expect_success 'negated graph: baseline widths, blue where the target lost' '
	python3 "$CHECK" "$BASE" --svg diff.html.4.svg --diff-baseline "$TARGET" --negated >neg.check &&
	grep -c ",255)\"" diff.html.4.svg >blue && test $(cat blue) -gt 0 &&
	test_grep "target .* scaled, [+-]" diff.html.4.svg >/dev/null &&
	test_must_fail python3 "$CHECK" "$BASE" --svg diff.html.4.svg --diff-baseline "$TARGET" >wrong
'

test_expect_success 'the differential check itself fails on swapped profiles' '
	test_must_fail python3 "$CHECK" "$TARGET" --svg diff.html.3.svg --diff-baseline "$TARGET" >swapped &&
	test_grep "^error: frame .* but it changed by" swapped >/dev/null
'

if browser_available; then
	rm -rf "$BROWSER_ARTIFACTS" && mkdir -p "$BROWSER_ARTIFACTS"
	test_expect_success 'the page opens in Chromium: no errors, four graphs, every frame' '
		search="[].map.call(document.querySelectorAll(\"svg.perun-flame\"), function (s) { return s.perunFlame.search_for(\"kernel\"); }).join()" &&
		browser_check diff.html flamegraph-diff --count svg.perun-flame --count g.f --eval "$search" &&
		test "$(browser_count svg.perun-flame)" = 4 &&
		test "$(browser_count g.f)" = $(($(sed -n "s/^frames //p" base.check target.check diff.check neg.check | paste -sd+))) &&
		n=$(grep -c "<title>[^<]*kernel[^<]* (" diff.html.1.svg) &&
		m=$(grep -c "<title>[^<]*kernel[^<]* (" diff.html.2.svg) &&
		test "$(browser_eval "$search")" = "\"$n,$m,$m,$n\""
	'
else
	say "no headless Chromium (Debian: chromium): the browser check is skipped"
fi

test_expect_success 'showdiff options: -o, width, frame height' '
	perun showdiff "$BASE" "$TARGET" flamegraph -o small.html -w 500 -h 12 &&
	split_svgs small.html >/dev/null &&
	python3 "$CHECK" "$TARGET" --svg small.html.3.svg --width 500 --diff-baseline "$BASE" >small.check
'

test_expect_success 'showdiff on stored profiles by tag' '
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null && mkdir -p .perun/jobs &&
	 cp "$BASE" .perun/jobs/base.perf && touch -d "2020-01-01" .perun/jobs/base.perf &&
	 cp "$TARGET" .perun/jobs/target.perf &&
	 perun showdiff 1@p 0@p flamegraph -o ../tags.html) &&
	split_svgs tags.html >/dev/null &&
	python3 "$CHECK" "$BASE" --svg tags.html.1.svg >/dev/null &&
	python3 "$CHECK" "$TARGET" --svg tags.html.2.svg >/dev/null
'

test_expect_success 'profiles without origin, header workload or machine' '
	python3 - "$BASE" bare.perf <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	for key in ("origin", "machine"):
	    d.pop(key, None)
	json.dump(d, open(sys.argv[2], "w"))
	EOF
	perun showdiff bare.perf "$TARGET" flamegraph -o bare.html &&
	split_svgs bare.html >/dev/null &&
	python3 "$CHECK" "$BASE" --svg bare.html.1.svg >/dev/null
'

test_expect_success 'a baseline or target without call stacks is named' '
	NOSTACKS=$FIXTURES/mixed/points-models.perf &&
	test_exit_code 2 perun showdiff "$NOSTACKS" "$TARGET" flamegraph -o x.html 2>err &&
	test_grep "^perun: view '"'"'flamegraph'"'"': baseline: the profile has no call stacks" err &&
	test_exit_code 2 perun showdiff "$BASE" "$NOSTACKS" flamegraph -o x.html 2>err &&
	test_grep "^perun: view '"'"'flamegraph'"'"': target: the profile has no call stacks" err &&
	test ! -e x.html
'

test_expect_success 'missing profiles, bad options and unwritable output fail with one line' '
	test_must_fail perun showdiff nope.perf "$TARGET" flamegraph 2>err &&
	test_grep "nope.perf" err && test $(wc -l <err) = 1 &&
	test_exit_code 2 perun showdiff "$BASE" "$TARGET" flamegraph --height 0 2>err &&
	test_grep "height 0" err &&
	test_must_fail perun showdiff "$BASE" "$TARGET" flamegraph -o no/dir/x.html 2>err &&
	test_grep "no/dir/x.html" err && test $(wc -l <err) = 1 &&
	! ls flamegraph-diff-of-* 2>/dev/null
'

test_done
