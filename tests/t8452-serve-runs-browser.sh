#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun serve: the Runs page in headless Chromium.  A counters run is
# started from the form (collector, the event picker, an option, the
# command); its plot gains points while the program runs; it appears in
# the history, is reloaded into the form, opened by its permanent link,
# its profile and log downloaded, and deleted.  A session is created,
# found by search, renamed and deleted; a failed run shows its error
# log; a restarted server shows the same history.  No JavaScript error,
# no request leaving the machine; screenshots in tests/artifacts/.
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/tests/helpers/browser-lib.sh"
. "$TEST_SRCDIR/tests/helpers/serve-runs-lib.sh"
serve_require
browser_require
chartjs_require
counters_require

STEPS="$TEST_SRCDIR/tests/helpers/browser-steps.py"
SHOTS="$BROWSER_ARTIFACTS"

# steps PAGE STEP...: drive PAGE (a path of the server) with the token.
steps() {
	_page=$1
	shift
	case $_page in *\?*) _sep="&" ;; *) _sep="?" ;; esac
	serve_load || return 1
	python3 "$STEPS" --timeout 60 "$SERVE_BASE$_page${_sep}token=$SERVE_TOKEN" \
		"$@" >steps.out 2>steps.err
	_rc=$?
	cat steps.out
	if [ $_rc -ne 0 ] || ! grep -q "^errors 0$" steps.out; then
		cat steps.err >&2
		return 1
	fi
}

# evaluated EXPR: the JSON value of eval:EXPR from the last steps.
evaluated() {
	E="eval $1 " awk 'index($0, ENVIRON["E"]) == 1 { print substr($0, length(ENVIRON["E"]) + 1) }' steps.out
}

test_expect_success 'setup: an instance, programs to run, a server' '
	runs_project "steps.*" &&
	serve_start .
'

test_expect_success 'a counters run from the form: its plot grows while it runs' '
	cd proj && serve_load &&
	rm -f go &&
	steps /runs \
		"wait:document.querySelectorAll(\"#collector option\").length > 0" \
		"type:#session-name=browser session" "click:#session-create" \
		"wait:document.querySelector(\"#session-list li.current\")" \
		"select:#collector=counters" \
		"wait:document.querySelectorAll(\"#picker-list input\").length > 0" \
		"type:#picker-search=task-clock" \
		"wait:document.querySelectorAll(\"#picker-list input\").length >= 1" \
		"check:#picker-list input[data-event=\"task-clock\"]" \
		"type:.opt[data-name=\"interval-ms\"]=100" \
		"type:#command=./waiter.sh" "type:#env=RUN_MARK=browser" \
		"click:#run-submit" \
		"wait:runs.points >= 2" \
		"eval:runs.points" \
		"shot:$SHOTS/live-early.png" \
		"wait:runs.points >= 6" \
		"eval:runs.points" \
		"eval:document.getElementById(\"run-state\").textContent" \
		"shot:$SHOTS/live-later.png" \
		"run:touch go" \
		"wait:document.getElementById(\"run-state\").textContent === \"done\"" \
		"wait:document.querySelector(\"#history tbody tr td.status-done\")" \
		"eval:document.querySelectorAll(\"#history tbody tr\").length" \
		"shot:$SHOTS/done.png" &&
	early=$(evaluated runs.points | sed -n 1p) && later=$(evaluated runs.points | sed -n 2p) &&
	test "$early" -ge 2 && test "$later" -gt "$early" &&
	test "$(evaluated "document.getElementById(\"run-state\").textContent")" = "\"running\"" &&
	test "$(evaluated "document.querySelectorAll(\"#history tbody tr\").length")" = 1 &&
	req GET /api/runs >/dev/null &&
	jq -e ".runs | length == 1 and .[0].status == \"done\" and .[0].request.env.RUN_MARK == \"browser\"" resp &&
	jq -e ".runs[0].request.collector_options == {\"interval-ms\": 100, \"event\": \"task-clock\"}" resp &&
	jq -r ".runs[0].id" resp >run.id && jq -r ".runs[0].session" resp >session.id
'

test_expect_success 'the run: reloaded, linked, downloaded' '
	cd proj && serve_load &&
	id=$(cat run.id) &&
	steps "/runs?session=$(cat session.id)" \
		"wait:document.querySelector(\"#history .run-reload\")" \
		"type:#command=" \
		"click:#history .run-reload" \
		"wait:document.getElementById(\"command\").value === \"./waiter.sh\"" \
		"wait:runs.points >= 6" \
		"eval:runs.chosen.has(\"task-clock\")" \
		"eval:document.querySelector(\".opt[data-name=\\\"interval-ms\\\"]\").value" \
		"eval:document.getElementById(\"env\").value" \
		"eval:document.querySelector(\"#history .run-link\").getAttribute(\"href\")" \
		"eval:fetch(document.querySelector(\"#history .run-profile\").href).then((r) => r.json()).then((p) => p.collector_info.name)" \
		"eval:fetch(document.querySelector(\"#history .run-log\").href).then((r) => r.text()).then((t) => t.includes(\"Performance counter stats\"))" \
		"shot:$SHOTS/reloaded.png" \
		"goto:/runs?run=$id" \
		"wait:document.getElementById(\"command\").value === \"./waiter.sh\"" \
		"wait:runs.points >= 6" \
		"eval:location.search" \
		"shot:$SHOTS/permalink.png" &&
	test "$(evaluated "runs.chosen.has(\"task-clock\")")" = true &&
	test "$(evaluated "document.querySelector(\".opt[data-name=\\\"interval-ms\\\"]\").value")" = "\"100\"" &&
	test "$(evaluated "document.getElementById(\"env\").value")" = "\"RUN_MARK=browser\"" &&
	test "$(evaluated "document.querySelector(\"#history .run-link\").getAttribute(\"href\")")" = "\"/runs?run=$id\"" &&
	grep -q "collector_info.name) \"counters\"$" steps.out &&
	grep -q "Performance counter stats\")) true$" steps.out &&
	test "$(evaluated location.search)" = "\"?run=$id\""
'

test_expect_success 'a failed run shows its error log in the history' '
	cd proj && serve_load &&
	steps "/runs?session=$(cat session.id)" \
		"wait:document.querySelector(\"#session-list li.current\")" \
		"select:#collector=time" \
		"type:#command=./fails.sh" \
		"click:#run-submit" \
		"wait:document.querySelector(\"#history pre.errlog\")" \
		"eval:document.querySelector(\"#history pre.errlog\").textContent.includes(\"status 3\")" \
		"shot:$SHOTS/failed.png" &&
	test "$(evaluated "document.querySelector(\"#history pre.errlog\").textContent.includes(\"status 3\")")" = true
'

test_expect_success 'a restarted server shows the same history' '
	cd proj && serve_load &&
	serve_stop && serve_start . &&
	steps "/runs?session=$(cat session.id)" \
		"wait:document.querySelectorAll(\"#history tbody tr\").length === 2" \
		"eval:[...document.querySelectorAll(\"#history tbody tr\")].map((r) => r.dataset.id).includes(\"$(cat run.id)\")" \
		"eval:document.querySelectorAll(\"#history pre.errlog\").length" \
		"shot:$SHOTS/restarted.png" &&
	grep -q "includes(\"$(cat run.id)\") true$" steps.out &&
	test "$(evaluated "document.querySelectorAll(\"#history pre.errlog\").length")" = 1
'

test_expect_success 'the run is deleted from the history, with its profile' '
	cd proj && serve_load &&
	req GET "/api/runs/$(cat run.id)" >/dev/null && profile=$(jq -r .profile resp) &&
	test -f "$profile" &&
	steps "/runs?session=$(cat session.id)" \
		"wait:document.querySelector(\"#history tr[data-id=\\\"$(cat run.id)\\\"] .run-delete\")" \
		"click:#history tr[data-id=\"$(cat run.id)\"] .run-delete" \
		"click:#history tr[data-id=\"$(cat run.id)\"] .run-delete" \
		"wait:document.querySelectorAll(\"#history tbody tr\").length === 1" &&
	test ! -e "$profile" &&
	test "$(req GET "/api/runs/$(cat run.id)")" = 404
'

test_expect_success 'a session: created, found by search, renamed, deleted' '
	cd proj && serve_load &&
	steps /runs \
		"wait:document.querySelectorAll(\"#session-list li\").length === 1" \
		"type:#session-name=findme please" "click:#session-create" \
		"wait:document.querySelectorAll(\"#session-list li\").length === 2" \
		"type:#session-search=FINDME" \
		"wait:document.querySelectorAll(\"#session-list li\").length === 1" \
		"eval:document.querySelector(\"#session-list .session-name\").textContent" \
		"click:#session-list .session-rename" \
		"type:#session-list .session-newname=findme renamed" \
		"click:#session-list .session-save" \
		"wait:document.querySelector(\"#session-list .session-name\") && document.querySelector(\"#session-list .session-name\").textContent === \"findme renamed\"" \
		"shot:$SHOTS/sessions.png" \
		"click:#session-list .session-delete" \
		"click:#session-list .session-delete" \
		"wait:document.querySelectorAll(\"#session-list li\").length === 0" \
		"type:#session-search=" \
		"wait:document.querySelectorAll(\"#session-list li\").length === 1" &&
	test "$(evaluated "document.querySelector(\"#session-list .session-name\").textContent")" = "\"findme please\"" &&
	req GET /api/sessions >/dev/null &&
	jq -e ".sessions | length == 1 and .[0].name == \"browser session\"" resp
'

if test -e "$PERUN_PLUGIN_PATH/collect/kperf.so" &&
	(cd proj && perun collect -c dd -a "if=/dev/zero of=/dev/null bs=1k count=300000" \
		kperf >/dev/null 2>&1); then
test_expect_success 'a kperf run shows its top functions while it runs' '
	cd proj && serve_load &&
	rm -f go &&
	steps /runs \
		"wait:document.querySelector(\"#session-list li\")" \
		"click:#session-list li .session-name" \
		"wait:document.querySelector(\"#session-list li.current\")" \
		"select:#collector=kperf" \
		"type:.opt[data-name=\"top-every-ms\"]=200" \
		"type:#command=./waiter.sh" \
		"click:#run-submit" \
		"wait:document.querySelectorAll(\"#top tbody tr\").length >= 1" \
		"eval:document.getElementById(\"run-state\").textContent" \
		"shot:$SHOTS/kperf-top.png" \
		"run:touch go" \
		"wait:document.getElementById(\"run-state\").textContent === \"done\"" &&
	test "$(evaluated "document.getElementById(\"run-state\").textContent")" = "\"running\""
'
else
	say "kperf cannot sample here: its live top functions are not tested"
fi

test_expect_success 'cleanup: the server stops' '
	cd proj && serve_stop
'

test_done
