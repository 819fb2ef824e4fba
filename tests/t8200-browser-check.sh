#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The headless-Chromium harness the view tests rely on must see what it is
# meant to see: element counts, JavaScript exceptions, console errors and
# requests leaving the machine, in HTML and in SVG; and it keeps screenshots.
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/tests/helpers/browser-lib.sh"
browser_require

test_expect_success 'a clean page: counts, eval and a screenshot' '
	cat >ok.html <<-\EOH &&
	<!DOCTYPE html><html><body><div class="plot">a</div><div class="plot">b</div>
	<canvas></canvas><script>document.title = "made by script";</script></body></html>
	EOH
	browser_check ok.html clean --count div.plot --count canvas --count svg \
		--eval document.title &&
	test "$(browser_count div.plot)" = 2 &&
	test "$(browser_count canvas)" = 1 &&
	test "$(browser_count svg)" = 0 &&
	test "$(browser_eval document.title)" = "\"made by script\"" &&
	test_grep "^errors 0$" browser.out &&
	test -s "$BROWSER_ARTIFACTS/clean.png" &&
	python3 -c "import sys; sys.exit(open(sys.argv[1], \"rb\").read(8) != b\"\\x89PNG\\r\\n\\x1a\\n\")" \
		"$BROWSER_ARTIFACTS/clean.png"
'

test_expect_success 'an uncaught exception fails the check and is named' '
	echo "<html><body><script>notDefinedAnywhere();</script></body></html>" >exc.html &&
	test_must_fail browser_check exc.html exc 2>err &&
	test_grep "ReferenceError: notDefinedAnywhere is not defined" err
'

test_expect_success 'console.error fails the check' '
	echo "<html><body><script>console.error(\"broken chart\")</script></body></html>" >cons.html &&
	test_must_fail browser_check cons.html cons 2>err &&
	test_grep "console.error: broken chart" err
'

test_expect_success 'a page that needs the network fails the check' '
	echo "<html><body><script src=\"https://cdn.example.com/chart.js\"></script></body></html>" >cdn.html &&
	test_must_fail browser_check cdn.html cdn 2>err &&
	test_grep "network request (the page must work offline): https://cdn.example.com/chart.js" err
'

# A page served on the loopback interface (perun serve) may load what
# its own server serves; another origin is still a request leaving.
test_expect_success 'a page served on loopback: its own origin allowed, others not; --wait' '
	mkdir site &&
	cat >site/page.html <<-\EOH &&
	<html><head><link rel="icon" href="data:,"></head><body><script src="/own.js"></script></body></html>
	EOH
	echo "setTimeout(() => { document.body.dataset.ready = \"yes\"; }, 300);" >site/own.js &&
	cat >site/cdn.html <<-\EOH &&
	<html><head><link rel="icon" href="data:,"></head><body><script src="http://127.0.0.2:9/x.js"></script></body></html>
	EOH
	(cd site && exec python3 -m http.server 0 --bind 127.0.0.1 >../http.out 2>&1) &
	i=0 && until grep -q "port" http.out; do
		i=$((i + 1)) && test $i -lt 100 && sleep 0.1 || return 1
	done &&
	port=$(sed -n "s/.* port \([0-9]*\) .*/\1/p" http.out) &&
	browser_check "http://127.0.0.1:$port/page.html" served --wait document.body.dataset.ready \
		--eval document.body.dataset.ready &&
	test "$(browser_eval document.body.dataset.ready)" = "\"yes\"" &&
	test_must_fail browser_check "http://127.0.0.1:$port/cdn.html" served-cdn 2>err;
	rc=$?;
	kill $! && test $rc = 0 &&
	test_grep "network request (the page must work offline): http://127.0.0.2:9/x.js" err
'

test_expect_success 'SVG files: elements counted, script errors seen' '
	cat >ok.svg <<-\EOS &&
	<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><path d="M0 0L9 9"/><path d="M1 1L5 5"/></svg>
	EOS
	browser_check ok.svg svg --count path &&
	test "$(browser_count path)" = 2 &&
	cat >bad.svg <<-\EOS &&
	<svg xmlns="http://www.w3.org/2000/svg"><script>nope();</script></svg>
	EOS
	test_must_fail browser_check bad.svg badsvg 2>err &&
	test_grep "nope is not defined" err
'

test_expect_success 'a missing file or a bad selector is a usage error' '
	test_exit_code 2 python3 "$BROWSER_CHECK" missing.html 2>err &&
	test_grep "no such file: missing.html" err &&
	test_exit_code 2 python3 "$BROWSER_CHECK" --count "div[" ok.html 2>err &&
	test_grep "bad selector" err
'

test_expect_success 'no Chromium: the skip code' '
	test_exit_code 77 env PERUN_CHROMIUM=/nonexistent/chromium python3 "$BROWSER_CHECK" ok.html 2>err &&
	test_grep "chromium not found" err
'

test_done
