# SPDX-License-Identifier: GPL-3.0-or-later
# browser-lib.sh - open rendered pages in headless Chromium from shell tests.
#
#   . "$TEST_SRCDIR/tests/helpers/browser-lib.sh"   (after test-lib.sh)
#   browser_require                 skip the whole file without Chromium
#   chartjs_require                 skip it without Chart.js ($PERUN_CHARTJS,
#                                   set by make check from configure)
#   browser_check FILE SHOT [--count SEL]... [--eval EXPR]...
#       loads FILE offline, writes its output to browser.out in the current
#       directory and a screenshot to $BROWSER_ARTIFACTS/SHOT.png (kept in
#       the build tree after the test passes); fails on any JavaScript,
#       console or network error, showing them
#   browser_count SEL               the count of SEL from the last check
#   browser_eval EXPR               the JSON value of EXPR from the last check
#   browser_same_json WANT GOT      WANT (a JSON file) equals GOT (a file
#                                   of browser_eval output), numbers to 1e-9
#
# tests/helpers/browser-check.py does the work over the DevTools protocol
# (python3's standard library only) and leaves the page untouched.

BROWSER_CHECK="$TEST_SRCDIR/tests/helpers/browser-check.py"
BROWSER_ARTIFACTS="$TEST_BUILDDIR/tests/artifacts/$TEST_NAME"
export BROWSER_ARTIFACTS

browser_available() {
	command -v python3 >/dev/null 2>&1 || return 1
	if [ -n "${PERUN_CHROMIUM:-}" ]; then
		command -v "$PERUN_CHROMIUM" >/dev/null 2>&1
		return
	fi
	for b in chromium chromium-browser google-chrome chrome; do
		command -v "$b" >/dev/null 2>&1 && return 0
	done
	return 1
}

browser_require() {
	browser_available ||
		test_skip_all "headless Chromium or python3 not found (Debian: apt-get install chromium python3)"
	rm -rf "$BROWSER_ARTIFACTS"
	mkdir -p "$BROWSER_ARTIFACTS"
}

chartjs_require() {
	test -r "${PERUN_CHARTJS:-/usr/share/javascript/chart.js/chart.min.js}" ||
		test_skip_all "Chart.js not found at ${PERUN_CHARTJS:-the default path} (Debian: libjs-chart.js)"
}

browser_check() {
	_bc_file=$1
	_bc_shot=$2
	shift 2
	python3 "$BROWSER_CHECK" --screenshot "$BROWSER_ARTIFACTS/$_bc_shot.png" \
		"$@" "$_bc_file" >browser.out 2>browser.err
	_bc_rc=$?
	if [ $_bc_rc -ne 0 ]; then
		echo "browser_check: $_bc_file: exit $_bc_rc" >&2
		cat browser.out browser.err >&2
		return 1
	fi
}

browser_count() {
	sed -n "s/^count $(printf '%s' "$1" | sed 's/[][\.*^$/]/\\&/g') \([0-9]*\)$/\1/p" browser.out
}

browser_eval() {
	awk -v e="eval $1 " 'index($0, e) == 1 { print substr($0, length(e) + 1) }' browser.out
}

browser_same_json() {
	python3 - "$1" "$2" <<-\EOP
	import json, math, sys
	want = json.load(open(sys.argv[1]))
	got = json.loads(json.load(open(sys.argv[2])))
	def same(a, b):
	    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
	        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
	    if isinstance(a, list) and isinstance(b, list):
	        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
	    return a == b
	if not same(want, got):
	    sys.exit(f"want {want}\n got {got}")
	EOP
}
