#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun serve: the JSON API of sessions and runs, with curl against a
# server on a free loopback port: every endpoint, the live events of a
# counters run as Server-Sent Events while the program runs, downloads,
# deletion, bad requests (400, 403, 404, 413) that leave the store as it
# was, and the same history after a restart.
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/tests/helpers/serve-runs-lib.sh"

serve_require
counters_require

test_expect_success 'setup: an instance, programs to run, a server' '
	runs_project "sse*" &&
	serve_start .
'

test_expect_success 'no token: 401; a wrong token: 403; no CSRF token: 403' '
	cd proj && serve_load &&
	test "$(curl -s -o resp -w "%{http_code}" "$SERVE_BASE/api/runs")" = 401 &&
	test "$(curl -s -o resp -w "%{http_code}" -H "Authorization: Bearer x$SERVE_TOKEN" \
		"$SERVE_BASE/api/sessions")" = 403 &&
	test "$(curl -s -o resp -w "%{http_code}" -X POST -d "{\"name\":\"x\"}" \
		-H "Authorization: Bearer $SERVE_TOKEN" "$SERVE_BASE/api/sessions")" = 403 &&
	test ! -d .perun/serve/sessions || test -z "$(ls .perun/serve/sessions)"
'

test_expect_success 'sessions: create, list, search, get, rename' '
	cd proj && serve_load &&
	test "$(req POST /api/sessions -d "{\"name\":\"api one\"}")" = 201 &&
	cp resp s1 && jq -e ".name == \"api one\"" s1 &&
	test "$(req POST /api/sessions -d "{\"name\":\"second\"}")" = 201 && cp resp s2 &&
	test "$(req GET /api/sessions)" = 200 && jq -e ".sessions | length == 2" resp &&
	test "$(req GET "/api/sessions?q=API")" = 200 &&
	jq -e ".sessions | length == 1 and .[0].name == \"api one\"" resp &&
	test "$(req PUT "/api/sessions/$(jq -r .id s2)" -d "{\"name\":\"renamed\"}")" = 200 &&
	test "$(req GET "/api/sessions/$(jq -r .id s2)")" = 200 &&
	jq -e ".name == \"renamed\" and .runs == []" resp
'

test_expect_success 'sessions: bad requests' '
	cd proj && serve_load &&
	test "$(req POST /api/sessions -d "{\"name\":\"a/b\"}")" = 400 &&
	jq -e ".error | test(\"session name\")" resp &&
	test "$(req POST /api/sessions -d "{\"name\":\"..\"}")" = 400 &&
	test "$(req POST /api/sessions -d "not json")" = 400 &&
	test "$(req POST /api/sessions -d "{\"title\":\"x\"}")" = 400 &&
	test "$(req GET /api/sessions/nothex)" = 400 &&
	test "$(req GET /api/sessions/0123456789abcdef)" = 404 &&
	test "$(req PUT /api/sessions/0123456789abcdef -d "{\"name\":\"x\"}")" = 404 &&
	test "$(req DELETE /api/sessions/0123456789abcdef)" = 404 &&
	test "$(req GET /api/sessions)" = 200 && jq -e ".sessions | length == 2" resp
'

test_expect_success 'runs: bad requests leave no run' '
	cd proj && serve_load &&
	sid=$(jq -r .id s1) &&
	test "$(req POST /api/runs -d "{\"session\":\"$sid\",\"collector\":\"time\",\"command\":\"./nope\"}")" = 400 &&
	jq -e ".error == \"command ./nope: no such program\" or (.error | test(\"nope.: no such program\"))" resp &&
	test "$(req POST /api/runs -d "{\"session\":\"$sid\",\"collector\":\"..\",\"command\":\"true\"}")" = 400 &&
	test "$(req POST /api/runs -d "{\"session\":\"0123456789abcdef\",\"collector\":\"time\",\"command\":\"true\"}")" = 404 &&
	test "$(req POST /api/runs -d "[]")" = 400 &&
	test "$(req POST /api/runs -d "{")" = 400 &&
	head -c 2000000 /dev/zero | tr "\0" " " >big &&
	test "$(req POST /api/runs --data-binary @big)" = 413 &&
	test "$(req GET /api/runs/0123456789abcdef)" = 404 &&
	test "$(req GET /api/runs/0123456789abcdef/events)" = 404 &&
	test "$(req GET /api/runs/0123456789abcdef/log)" = 404 &&
	test "$(req GET "/api/runs?session=0123456789abcdef")" = 404 &&
	test "$(req GET /api/runs)" = 200 && jq -e ".runs == []" resp &&
	test -z "$(ls .perun/serve/runs)"
'

test_expect_success 'a counters run: its samples stream while the program runs' '
	cd proj && serve_load &&
	rm -f go &&
	test "$(req POST /api/runs -d "{\"session\":\"$(jq -r .id s1)\",\"collector\":\"counters\",\"collector_options\":{\"interval-ms\":100,\"event\":\"task-clock\"},\"command\":\"./waiter.sh\"}")" = 201 &&
	cp resp run1 && id=$(jq -r .id run1) &&
	{ curl -sN --max-time 120 -H "Authorization: Bearer $SERVE_TOKEN" \
		"$SERVE_BASE/api/runs/$id/events" >sse & echo $! >sse.pid; } &&
	wait_for sh -c "test \$(grep -c sample sse) -ge 3" &&
	test "$(req GET "/api/runs/$id")" = 200 && jq -e ".status == \"running\"" resp &&
	! grep -q "^event: end" sse &&
	grep "^data: " sse | head -n 1 | sed "s/^data: //" >first &&
	jq -e ".n == 1 and .sample.event == \"task-clock\" and .sample.t > 0" first &&
	grep "^id: 1$" sse &&
	touch go &&
	wait_for grep -q "^event: end" sse &&
	wait_for sh -c "! kill -0 $(cat sse.pid)" &&
	grep -A1 "^event: end" sse | sed -n "s/^data: //p" >end &&
	jq -e ".status == \"done\" and .id == \"$id\"" end
'

test_expect_success 'the events resume after N; an ended run replays them' '
	cd proj && serve_load &&
	id=$(jq -r .id run1) &&
	total=$(grep -c "^id: " sse) &&
	curl -sN --max-time 60 -H "Authorization: Bearer $SERVE_TOKEN" \
		"$SERVE_BASE/api/runs/$id/events?after=2" >sse2 &&
	test "$(grep -c "^id: " sse2)" = $((total - 2)) &&
	grep -q "^id: 3$" sse2 && ! grep -q "^id: 2$" sse2 &&
	grep -q "^event: end" sse2 &&
	test "$(req GET "/api/runs/$id/events?after=x")" = 400
'

test_expect_success 'run, list, log and profile downloads' '
	cd proj && serve_load &&
	id=$(jq -r .id run1) &&
	test "$(req GET "/api/runs/$id")" = 200 &&
	jq -e ".status == \"done\" and .exit_code == 0 and .request.command == \"./waiter.sh\"" resp &&
	profile=$(jq -r .profile resp) && test -f "$profile" &&
	test "$(req GET "/api/runs?session=$(jq -r .id s1)")" = 200 &&
	jq -e ".runs | length == 1 and .[0].id == \"$id\"" resp &&
	test "$(req GET "/api/runs/$id/log")" = 200 &&
	test_grep "Performance counter stats" resp &&
	test "$(req GET "/api/runs/$id/profile")" = 200 &&
	jq -e ".collector_info.name == \"counters\"" resp &&
	cmp resp "$profile"
'

test_expect_success 'a failed run shows its error' '
	cd proj && serve_load &&
	test "$(req POST /api/runs -d "{\"session\":\"$(jq -r .id s2)\",\"collector\":\"time\",\"command\":\"./fails.sh\"}")" = 201 &&
	id=$(jq -r .id resp) && echo "$id" >failed.id &&
	wait_for sh -c "curl -s -H \"Authorization: Bearer $SERVE_TOKEN\" $SERVE_BASE/api/runs/$id | jq -e \".status == \\\"failed\\\"\"" &&
	test "$(req GET "/api/runs/$id")" = 200 &&
	jq -e ".exit_code != 0 and (.error | test(\"status 3\"))" resp &&
	test "$(req GET "/api/runs/$id/profile")" = 404
'

test_expect_success 'attached to a running process: --pid, no program to start' '
	cd proj && serve_load &&
	{ sleep 30 & } && pid=$! &&
	test "$(req POST /api/runs -d "{\"session\":\"$(jq -r .id s2)\",\"collector\":\"counters\",\"collector_options\":{\"pid\":\"$pid\",\"duration\":\"0.3\",\"event\":[\"task-clock\"]},\"command\":\"sleeper\"}")" = 201 &&
	id=$(jq -r .id resp) &&
	wait_for sh -c "curl -s -H \"Authorization: Bearer $SERVE_TOKEN\" $SERVE_BASE/api/runs/$id | jq -e \".status == \\\"done\\\"\"" ;
	rc=$?; kill $pid; wait $pid;
	test $rc = 0 &&
	test "$(req GET "/api/runs/$id/profile")" = 200 &&
	jq -e ".collector_info.name == \"counters\" and .header.cmd == \"sleeper\"" resp
'

test_expect_success 'the event list of the picker: perun events, most used first' '
	cd proj && serve_load &&
	test "$(req GET /api/counters/events)" = 200 &&
	jq -e ".events | map(.name) | index(\"task-clock\") != null" resp &&
	jq -e ".events[0].name == \"task-clock\" and .events[0].used >= 1" resp
'

test_expect_success 'a restart shows the same sessions and runs' '
	cd proj && serve_load &&
	req GET /api/runs >/dev/null && jq -S ".runs" resp >before &&
	req GET /api/sessions >/dev/null && jq -S ".sessions" resp >sbefore &&
	serve_stop && serve_start . &&
	req GET /api/runs >/dev/null && jq -S ".runs" resp >after &&
	req GET /api/sessions >/dev/null && jq -S ".sessions" resp >safter &&
	test_cmp before after && test_cmp sbefore safter
'

test_expect_success 'delete a run: its files and pending profile go' '
	cd proj && serve_load &&
	id=$(jq -r .id run1) &&
	test "$(req GET "/api/runs/$id")" = 200 && profile=$(jq -r .profile resp) &&
	test "$(req DELETE "/api/runs/$id")" = 200 &&
	test ! -e "$profile" && test ! -e ".perun/serve/runs/$id.log" &&
	test "$(req GET "/api/runs/$id")" = 404 &&
	test "$(req DELETE "/api/runs/$id")" = 404
'

test_expect_success 'delete a session: its runs go' '
	cd proj && serve_load &&
	sid=$(jq -r .id s2) &&
	test "$(req DELETE "/api/sessions/$sid")" = 200 &&
	test "$(req GET "/api/sessions/$sid")" = 404 &&
	test "$(req GET "/api/runs/$(cat failed.id)")" = 404 &&
	test "$(req GET /api/sessions)" = 200 && jq -e ".sessions | length == 1" resp
'

test_expect_success 'read-only: a queued run is shown, not run' '
	cd proj && serve_load &&
	sid=$(jq -r .id s1) && id=0123456789abcdef &&
	printf "{\"id\":\"%s\",\"session\":\"%s\",\"created\":\"2026-01-01T00:00:00.000Z\",\"status\":\"queued\",\"request\":{\"session\":\"%s\",\"collector\":\"time\",\"collector_options\":{},\"postprocessors\":[],\"command\":\"true\",\"args\":\"\",\"workload\":\"\",\"env\":{}}}" \
		$id "$sid" "$sid" >.perun/serve/runs/$id.json &&
	cp .perun/serve/runs/$id.json queued.json &&
	serve_stop && serve_start . --read-only &&
	test "$(req GET /api/runs/$id)" = 200 && jq -e ".status == \"queued\"" resp &&
	sleep 1 &&
	test "$(req GET /api/runs/$id)" = 200 && jq -e ".status == \"queued\"" resp &&
	cmp queued.json .perun/serve/runs/$id.json &&
	test ! -e .perun/serve/runs/$id.log
'

test_expect_success 'a queued run left by a server runs after a restart' '
	cd proj && serve_load &&
	serve_stop && serve_start . &&
	wait_for sh -c "jq -e \".status == \\\"done\\\"\" .perun/serve/runs/0123456789abcdef.json" &&
	test "$(req GET /api/runs/0123456789abcdef)" = 200 &&
	jq -e ".status == \"done\" and .profile" resp
'

test_expect_success 'read-only: runs and sessions cannot change' '
	cd proj && serve_load &&
	serve_stop && serve_start . --read-only &&
	test "$(req POST /api/sessions -d "{\"name\":\"x\"}")" = 403 &&
	test "$(req DELETE "/api/sessions/$(jq -r .id s1)")" = 403 &&
	test "$(req GET /api/sessions)" = 200 && jq -e ".sessions | length == 1" resp
'

test_expect_success 'cleanup: the server stops' '
	cd proj && serve_stop
'

test_done
