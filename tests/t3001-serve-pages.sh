#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun serve's pages in headless Chromium: the project page (history,
# filters, the degradation marked and its changes), the profile page
# (resources paged, sorted and filtered; the views that fit, a flame
# graph for a memory profile, in a sandboxed frame) and the compare
# page, each without a JavaScript or console error and without a request
# leaving the machine (only the server itself is asked).  Screenshots
# are kept in tests/artifacts/t3001-serve-pages/.
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/tests/helpers/browser-lib.sh"
. "$TEST_SRCDIR/tests/helpers/serve-lib.sh"

serve_require
browser_require
chartjs_require
command -v cc >/dev/null || test_skip_all "a C compiler is needed for the memory profile"

READY="document.body.dataset.ready"

# tag_at REV COLLECTOR: the tag (N@i) of the version profile of COLLECTOR.
tag_at() {
	api "/api/commits/$1/profiles" >/dev/null &&
	jq -r ".tracked[] | select(.collector == \"$2\") | .id" body
}

test_expect_success 'setup: time profiles of two versions, checked, and a memory profile' '
	mkdir proj && cd proj && git init -q &&
	printf "#!/bin/sh\nsleep 0.01\n" >prog && chmod +x prog &&
	cat >alloc.c <<-\EOC &&
	#include <stdlib.h>
	static void *leaf(int n) { return malloc(n); }
	static void *mid(int n) { return leaf(n); }
	int main(void)
	{
		for (int i = 0; i < 50; i++)
			free(mid(100 + i));
		return leaf(1000) == NULL;
	}
	EOC
	cc -g -O0 -o alloc alloc.c &&
	printf "alloc\n" >.gitignore &&
	git add prog alloc.c .gitignore && git commit -q -m "fast version" &&
	perun init >/dev/null &&
	perun collect -c ./prog -w in time --repeat 5 --warmup 0 >/dev/null 2>&1 &&
	perun collect -c ./alloc memory >/dev/null 2>&1 &&
	perun add 0@p 1@p >/dev/null &&
	printf "#!/bin/sh\nsleep 0.4\n" >prog &&
	git commit -q -am "slow version" &&
	perun collect -c ./prog -w in time --repeat 5 --warmup 0 >/dev/null 2>&1 &&
	perun add 0@p >/dev/null &&
	perun check head >/dev/null &&
	perun status --format json | jq -e "[.changes[] | select(.result == \"Degradation\")] | length > 0" &&
	perun log --format json | jq -e "[.minor_versions[].profiles.all] == [1, 2]"
'

test_expect_success 'start the server' '
	serve_start proj
'

test_expect_success 'project page: the history, the degradation marked, the filters' '
	serve_load &&
	browser_check "$SERVE_BASE/?token=$SERVE_TOKEN" project --wait "$READY" \
		--count "#history tbody tr" --count "tr.degraded" --count "#history li" \
		--eval "$READY" \
		--eval "(() => { const s = document.getElementById(\"f-collector\"); s.value = \"memory\"; s.dispatchEvent(new Event(\"input\")); return document.querySelectorAll(\"#history tbody tr\").length; })()" \
		--eval "(() => { const s = document.getElementById(\"f-collector\"); s.value = \"\"; s.dispatchEvent(new Event(\"input\")); const d = document.getElementById(\"f-degraded\"); d.checked = true; d.dispatchEvent(new Event(\"input\")); return document.querySelectorAll(\"#history tbody tr\").length; })()" \
		--eval "new Promise((ok) => { document.querySelector(\"a.check\").click(); const t = setInterval(() => { const c = document.querySelectorAll(\"#changes tr.degraded\").length; if (c) { clearInterval(t); ok(c >= 1); } }, 50); })" &&
	test "$(browser_count "#history tbody tr")" = 2 &&
	test "$(browser_count "tr.degraded")" = 1 &&
	test "$(browser_count "#history li")" = 3 &&
	test "$(browser_eval "$READY")" = "\"1\"" &&
	browser_eval "(() => { const s = document.getElementById(\"f-collector\"); s.value = \"memory\"; s.dispatchEvent(new Event(\"input\")); return document.querySelectorAll(\"#history tbody tr\").length; })()" >memory-rows &&
	test "$(cat memory-rows)" = 1 &&
	test "$(grep -c "^eval .* 1$" browser.out)" = 2 &&
	test "$(grep -c "^eval .* true$" browser.out)" = 1 &&
	test_grep "^errors 0$" browser.out &&
	test -s "$BROWSER_ARTIFACTS/project.png"
'

test_expect_success 'project page: a profile added meanwhile shows without a reload' '
	serve_load || return 1
	(sleep 10 && cd proj && perun collect -c ./prog -w later time --repeat 1 --warmup 0 &&
	 perun add 0@p) >live.out 2>&1 &
	browser_check "$SERVE_BASE/?token=$SERVE_TOKEN" project-live --wait "$READY" --timeout 90 \
		--eval "new Promise((ok) => { const t = setInterval(() => { if (document.querySelectorAll(\"#history li\").length === 4) { clearInterval(t); ok(Number(document.body.dataset.reloads)); } }, 100); })" &&
	wait &&
	test_grep "^eval .* [1-9][0-9]*$" browser.out &&
	test_grep "^errors 0$" browser.out &&
	api /api/commits/HEAD/profiles >/dev/null &&
	later=$(jq -r ".tracked[] | select(.workload == \"later\") | .id" body) &&
	(cd proj && perun rm "$later" >/dev/null)
'

test_expect_success 'profile page: header, resources sorted and filtered, the views that fit' '
	serve_load &&
	browser_check "$SERVE_BASE/profile?p=0@i&token=$SERVE_TOKEN" profile-time --wait "$READY" \
		--count "#resources tbody tr" --count "iframe.view" --count "li.view-skipped" \
		--count "button[data-view=bars]" --count "button[data-view=flow]" \
		--count "li.view-skipped[data-view=flamegraph]" \
		--eval "document.getElementById(\"header\").textContent.includes(\"./prog\")" \
		--eval "new Promise((ok) => { document.querySelector(\"th[data-key=amount]\").click(); setTimeout(() => document.querySelector(\"th[data-key=amount]\").click(), 300); setTimeout(() => { const v = [...document.querySelectorAll(\"#resources tbody tr\")].map((r) => Number(r.children[[...document.querySelectorAll(\"#resources th\")].findIndex((h) => h.dataset.key === \"amount\")].textContent)); ok(v.every((x, i) => i === 0 || v[i - 1] >= x) && v.length > 1); }, 900); })" \
		--eval "new Promise((ok) => { const q = document.getElementById(\"q\"); q.value = \"max-rss\"; q.dispatchEvent(new Event(\"input\")); setTimeout(() => ok([...document.querySelectorAll(\"#resources tbody tr\")].every((r) => r.textContent.includes(\"max-rss\")) && document.getElementById(\"page\").textContent.includes(\"filtered\")), 1200); })" &&
	test "$(browser_count "#resources tbody tr")" -gt 4 &&
	test "$(browser_count "iframe.view")" = 1 &&
	test "$(browser_count "button[data-view=bars]")" = 1 &&
	test "$(browser_count "button[data-view=flow]")" = 1 &&
	test "$(browser_count "li.view-skipped[data-view=flamegraph]")" = 1 &&
	test "$(grep -c "^eval .* true$" browser.out)" = 3 &&
	test_grep "^errors 0$" browser.out
'

test_expect_success 'profile page of the memory profile: its flame graph' '
	serve_load &&
	tag=$(tag_at HEAD~1 memory) && test -n "$tag" &&
	browser_check "$SERVE_BASE/profile?p=HEAD~1%5E$tag&token=$SERVE_TOKEN" profile-memory --wait "$READY" \
		--count "button[data-view=flamegraph]" --count "iframe.view[data-view=flamegraph]" \
		--eval "(() => { const f = document.querySelector(\"iframe.view\"); return f.sandbox.value === \"allow-scripts\" && f.contentDocument === null && f.srcdoc.includes(\"<svg\") && f.srcdoc.includes(\"mid()\"); })()" &&
	test "$(browser_count "button[data-view=flamegraph]")" = 1 &&
	test "$(browser_count "iframe.view[data-view=flamegraph]")" = 1 &&
	test_grep "^eval .* true$" browser.out &&
	test_grep "^errors 0$" browser.out
'

test_expect_success 'compare page: the showdiff views of two versions profiles' '
	serve_load &&
	tag=$(tag_at HEAD~1 time) && test -n "$tag" &&
	browser_check "$SERVE_BASE/compare?baseline=HEAD~1%5E$tag&target=0@i&token=$SERVE_TOKEN" compare \
		--wait "$READY" --count "#pair tr" --count "button[data-view=report]" \
		--count "button[data-view=table]" --count "iframe.view[data-view=report]" \
		--eval "new Promise((ok) => { document.querySelector(\"button[data-view=table]\").click(); const t = setInterval(() => { const p = document.querySelector(\"pre.view[data-view=table]\"); if (p) { clearInterval(t); ok(p.textContent.includes(\"Difference summary\")); } }, 50); })" &&
	test "$(browser_count "#pair tr")" = 3 &&
	test "$(browser_count "button[data-view=report]")" = 1 &&
	test "$(browser_count "iframe.view[data-view=report]")" = 1 &&
	test_grep "^eval .* true$" browser.out &&
	test_grep "^errors 0$" browser.out
'

test_expect_success 'a profile that is not there: the page says so, no script error' '
	serve_load &&
	test_must_fail browser_check "$SERVE_BASE/profile?p=9@i&token=$SERVE_TOKEN" profile-missing \
		--wait "$READY" --eval "$READY" --eval "document.querySelector(\".error\").textContent" &&
	test_grep "^eval $READY \"error\"$" browser.out &&
	test_grep "no profile 9@i" browser.out &&
	grep "^error: " browser.out >errors &&
	test_grep "status of 404" errors && test "$(wc -l <errors)" = 1
'

test_expect_success 'stop the server' '
	serve_stop
'

test_done
