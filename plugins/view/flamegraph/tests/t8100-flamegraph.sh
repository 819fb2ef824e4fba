#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun show <profile> flamegraph: kperf, memory and trace profiles of Python
# Perun drawn as SVG, read back by an independent reader (flame-check.py:
# stacks from the profile's JSON, frames from the SVG with xml.etree) and
# opened in headless Chromium; options and error paths.
. "$srcdir/tests/test-lib.sh"
test_fixtures

command -v python3 >/dev/null || test_skip_all "python3 is needed to read the SVG independently"
CHECK="$TEST_SRCDIR/plugins/view/flamegraph/tests/flame-check.py"
. "$TEST_SRCDIR/tests/helpers/browser-lib.sh"
KPERF=$FIXTURES/kperf/kperf-baseline.perf
MEMORY=$FIXTURES/memory/memory-basic.perf
MEMORY_OLD=$FIXTURES/memory/memory-basic.perf
TRACE=$FIXTURES/trace/trace-baseline.perf

# flame_ok <profile> <svg> [flame-check options]: the SVG agrees with the
# profile; "frames N" goes to <svg>.frames.
flame_ok() {
	prof=$1 svg=$2
	shift 2
	python3 "$CHECK" "$prof" --svg "$svg" "$@" >"$svg.check" || { cat "$svg.check"; return 1; }
	sed -n 's/^frames //p' "$svg.check" >"$svg.frames"
}

# The browser checks need Chromium; the rest of the file does not.
have_browser=
if browser_available; then
	have_browser=yes
	rm -rf "$BROWSER_ARTIFACTS" && mkdir -p "$BROWSER_ARTIFACTS"
else
	say "no headless Chromium (Debian: chromium): the browser checks are skipped"
fi

for kind in kperf memory memory_old trace; do
	case $kind in
	kperf) prof=$KPERF ;;
	memory) prof=$MEMORY ;;
	memory_old) prof=$MEMORY_OLD ;;
	trace) prof=$TRACE ;;
	esac
	test_expect_success "$kind profile: every frame is as wide as its stacks" "
		perun show '$prof' flamegraph -o $kind.svg >out &&
		flame_ok '$prof' $kind.svg &&
		test \$(cat $kind.svg.frames) -gt 3
	"
	if [ -n "$have_browser" ]; then
		test_expect_success "$kind profile: opens in Chromium without errors, all frames there" "
			browser_check $kind.svg flamegraph-$kind --count g.f &&
			test \"\$(browser_count g.f)\" = \"\$(cat $kind.svg.frames)\"
		"
	fi
done

test_expect_success 'the title and units come from the header; memory frames are Perun text' '
	test_grep "<text class=\"title\" x=\"600.0\" y=\"24\">time consumption of prog </text>" kperf.svg &&
	test_grep "<title>all (2,078 sample, 100.00%)</title>" kperf.svg &&
	test_grep "<title>list_push()~src/list.c~23 (" memory.svg
'

test_expect_shared 'Python Perun'"'"'s profiles: title, units and memory frames' '
	KPERF=$TESTDATA/diff_profiles/kperf-baseline.perf MEMORY=$TESTDATA/query_profiles/memory-basic.perf MEMORY_OLD=$TESTDATA/full_profiles/prof-3-memory-2017-05-15-15-43-42.perf TRACE=$TESTDATA/degradation_profiles/tracer_baseline.perf &&
	perun show "$KPERF" flamegraph -o s-kperf.svg &&
	perun show "$MEMORY" flamegraph -o s-memory.svg &&
	perun show "$TRACE" flamegraph -o s-trace.svg &&
	test_grep "<text class=\"title\" x=\"600.0\" y=\"24\">time consumption of ls </text>" s-kperf.svg &&
	test_grep "<title>all (2,223 sample, 100.00%)</title>" s-kperf.svg &&
	test_grep "<title>factorial()~/home/jirka/Git/memory-repo/test.c~23 (" s-memory.svg &&
	test_grep "<title>_Z4SwapRiS_ (5,691,596 us, 37.41%)</title>" s-trace.svg
'

test_expect_shared 'trace profile: a call weighs its exclusive time, as the collector recorded it' '
	KPERF=$TESTDATA/diff_profiles/kperf-baseline.perf MEMORY=$TESTDATA/query_profiles/memory-basic.perf MEMORY_OLD=$TESTDATA/full_profiles/prof-3-memory-2017-05-15-15-43-42.perf TRACE=$TESTDATA/degradation_profiles/tracer_baseline.perf &&
	python3 "$CHECK" "$TRACE" --stacks >stacks && sed -i "/^total /d" stacks &&
	python3 - "$TRACE" stacks <<-\EOF
	import json, sys
	from collections import defaultdict
	prof = json.load(open(sys.argv[1]))
	recorded = {prof["resource_type_map"][k]["uid"]: sum(v["exclusive"])
	            for k, v in prof["resources"].items() if "exclusive" in v}
	ours = defaultdict(float)
	for line in open(sys.argv[2]):
	    stack, weight = line.rsplit(" ", 1)
	    ours[stack.split(";")[-1]] += float(weight)
	assert recorded, "no exclusive times in the profile"
	for uid, excl in recorded.items():
	    assert ours[uid] == excl, (uid, ours[uid], excl)
	EOF
'

test_expect_success 'long names in several scripts are cut between characters' '
	python3 - "$KPERF" utf8.perf <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	for pers in d["resource_type_map"].values():
	    for i, frame in enumerate(pers["trace"]):
	        frame["func"] = "\u00e9\u65e5\U0001f525" * (10 + i) + frame["func"]
	json.dump(d, open(sys.argv[2], "w"))
	EOF
	for w in 300 400 500 700 1200; do
		perun show utf8.perf flamegraph -o utf8.svg -w $w &&
		flame_ok utf8.perf utf8.svg --width $w || return 1
	done &&
	test_grep -q "\.\.</text>" utf8.svg
'

test_expect_success 'width, frame height, minimum and max-trace' '
	perun show "$KPERF" flamegraph -o small.svg --width 400 --height 10 --minimum 2 --max-trace 4 &&
	flame_ok "$KPERF" small.svg --width 400 --minimum 2 --max-trace 4 &&
	test_grep "<svg version=\"1.1\" class=\"perun-flame\" width=\"400\" height=\"146\"" small.svg &&
	perun show "$KPERF" flamegraph -o all.svg --minimum 0 &&
	flame_ok "$KPERF" all.svg --minimum 0 &&
	test $(cat all.svg.frames) -ge $(cat kperf.svg.frames) &&
	test $(cat small.svg.frames) -lt $(cat kperf.svg.frames)
'

test_expect_success 'the default file is flame.svg, -f is Python Perun'"'"'s name, - is stdout' '
	perun show "$MEMORY" flamegraph >out &&
	flame_ok "$MEMORY" flame.svg &&
	perun show "$MEMORY" flamegraph -f other.svg --title "a & b" &&
	test_grep "<text class=\"title\" x=\"600.0\" y=\"24\">a &amp; b</text>" other.svg &&
	perun show "$MEMORY" flamegraph -o - >stdout.svg &&
	test_cmp flame.svg stdout.svg
'

if [ -n "$have_browser" ]; then
	test_expect_success 'zoom on click, reset, and search in Chromium' '
		expr="(function () { var shown = function () { return [].filter.call(document.querySelectorAll(\"g.f\"), function (g) { return g.style.display != \"none\"; }).length; }; var f = [].filter.call(document.querySelectorAll(\"g.f\"), function (g) { return g.querySelector(\"title\").textContent.indexOf(\"compute \") == 0; })[0]; f.dispatchEvent(new MouseEvent(\"click\")); var zoom = [f.querySelector(\"rect\").getAttribute(\"width\"), shown()]; var matches = document.documentElement.perunFlame.search_for(\"^kernel\$\"); var matched = document.querySelector(\".matched\").textContent; document.querySelector(\".unzoom\").dispatchEvent(new MouseEvent(\"click\")); return [zoom, matches, matched, shown()]; })()" &&
		browser_check kperf.svg flamegraph-zoom --eval "$expr" &&
		browser_eval "$expr" >result &&
		grep -c "<title>kernel (" kperf.svg >schedules &&
		python3 - result "$(cat kperf.svg.frames)" "$(cat schedules)" <<-\EOF
		import json, sys
		zoom, matches, matched, reset = json.load(open(sys.argv[1]))
		frames = int(sys.argv[2])
		assert zoom[0] == "1180.00", zoom          # the clicked frame fills the width
		assert 5 < zoom[1] < frames, zoom          # its stack and subtree stay
		assert matches == int(sys.argv[3]), matches  # every "kernel" frame
		assert matched.startswith("Matched: "), matched
		assert reset == frames, (reset, frames)
		EOF
	'
fi

test_expect_success 'a profile without call stacks is refused, nothing written' '
	test_exit_code 2 perun show "$FIXTURES/mixed/points-models.perf" flamegraph -o x.svg 2>err &&
	echo "perun: view '"'"'flamegraph'"'"': the profile has no call stacks (resources with a '"'"'trace'"'"', or calls with a '"'"'timestamp'"'"' as the trace collector records)" >expect &&
	test_cmp expect err &&
	test ! -e x.svg
'

test_expect_success 'bad options are named, exit 2, nothing written' '
	for opts in "--width 5" "--height 0" "--minimum -1" "--max-trace -3" "--width x" \
		"--nosuch 1" "-o a.svg -f b.svg" "extra-word"; do
		test_exit_code 2 perun show "$KPERF" flamegraph $opts 2>err || return 1
		test_grep "^perun: " err >/dev/null || return 1
		test $(wc -l <err) = 1 || { cat err; return 1; }
	done &&
	test_exit_code 2 perun show "$KPERF" flamegraph --width 5 2>err &&
	test_grep "width 5: not between 30 and 1000000" err &&
	test ! -e a.svg && test ! -e b.svg
'

test_expect_success 'an unwritable output file is named' '
	test_must_fail perun show "$KPERF" flamegraph -o no/such/dir/f.svg 2>err &&
	test_grep "no/such/dir/f.svg" err &&
	test $(wc -l <err) = 1
'

test_done
