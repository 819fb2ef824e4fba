#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun serve: every endpoint of the JSON API over curl against a real
# project (two versions, a time profile each, the second one slower so
# that perun check finds a degradation), with the same answers as the
# CLI; the access and CSRF tokens, --read-only, and bad requests (paths,
# methods, bodies, names, options), each a JSON error that neither stops
# the server nor touches the store; SIGTERM and SIGINT end it with 0.
. "$srcdir/tests/test-lib.sh"
. "$TEST_SRCDIR/tests/helpers/serve-lib.sh"

serve_require

mkdir -p tmp
TMPDIR=$TRASH_DIRECTORY/tmp
export TMPDIR

test_expect_success 'setup: two versions with a time profile each, checked' '
	mkdir proj && cd proj && git init -q &&
	printf "#!/bin/sh\nsleep 0.01\n" >prog && chmod +x prog &&
	git add prog && git commit -q -m "fast version" &&
	perun init >/dev/null &&
	perun collect -c ./prog -w in time --repeat 5 --warmup 0 >/dev/null 2>&1 &&
	perun add 0@p >/dev/null &&
	printf "#!/bin/sh\nsleep 0.1\n" >prog &&
	git commit -q -am "slow version" &&
	perun collect -c ./prog -w in time --repeat 5 --warmup 0 >/dev/null 2>&1 &&
	perun collect -c ./prog -w other time --repeat 2 --warmup 0 >/dev/null 2>&1 &&
	perun add 0@p 1@p >/dev/null &&
	perun check head >/dev/null &&
	perun collect -c ./prog -w waiting time --repeat 1 --warmup 0 >/dev/null 2>&1 &&
	perun status --format json >../status.json &&
	jq -e "[.pending[].workload] == [\"waiting\"]" ../status.json &&
	jq -e "[.changes[] | select(.result == \"Degradation\")] | length > 0" ../status.json
'

test_expect_success 'it prints its URL with a token and serves' '
	serve_start proj &&
	grep -Eq "^perun serve: http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]{48}$" serve.out &&
	test "$(api /api/info)" = 200 &&
	jq -e ".root == \"$(pwd)/proj\" and .read_only == false and .vcs == \"git\"" body &&
	test "$(jq -r .head body)" = "$(git -C proj rev-parse HEAD)"
'

test_expect_success 'the token: missing 401, wrong 403, as query, Bearer or cookie' '
	serve_load &&
	test "$(api_raw "$SERVE_BASE/api/info")" = 401 &&
	jq -e ".error | test(\"token is missing\")" body &&
	test "$(api_raw "$SERVE_BASE/api/info?token=0123")" = 403 &&
	test "$(api_raw -H "Authorization: Bearer nope" "$SERVE_BASE/api/info")" = 403 &&
	test "$(api_raw -b "perun_token=nope" "$SERVE_BASE/api/info")" = 403 &&
	test "$(api_raw "$SERVE_BASE/api/info?token=$SERVE_TOKEN")" = 200 &&
	test "$(api_raw -c jar "$SERVE_BASE/profile?p=0@i&token=$SERVE_TOKEN")" = 303 &&
	grep -q "perun_token.*$SERVE_TOKEN" jar &&
	test "$(api_raw -b jar "$SERVE_BASE/api/info")" = 200 &&
	test "$(api_raw -b jar "$SERVE_BASE/")" = 200 &&
	grep -q "<title>Perun: project</title>" body &&
	test "$(api_raw "$SERVE_BASE/")" = 401
'

test_expect_success 'a page opened with the token drops it, keeping its query' '
	serve_load &&
	curl -s -D head -o /dev/null "$SERVE_BASE/compare?baseline=HEAD~1%5E0@i&token=$SERVE_TOKEN&target=0@i" &&
	tr -d "\r" <head >h &&
	grep -q "^HTTP/1.1 303" h &&
	grep -q "^Location: /compare?baseline=HEAD~1^0@i&target=0@i$" h &&
	grep -q "^Set-Cookie: perun_token=$SERVE_TOKEN; Path=/; HttpOnly; SameSite=Strict$" h &&
	curl -s -D head -o /dev/null -H "Authorization: Bearer $SERVE_TOKEN" "$SERVE_BASE/api/info" &&
	tr -d "\r" <head >h &&
	grep -q "^Content-Security-Policy: default-src .self.;" h &&
	grep -q "^X-Content-Type-Options: nosniff$" h &&
	grep -q "^Referrer-Policy: no-referrer$" h
'

test_expect_success '/api/log is perun log --format json; profiles=1 adds each version profiles' '
	serve_load &&
	test "$(api /api/log)" = 200 &&
	(cd proj && perun log --format json) >cli.json &&
	jq -S . cli.json >want && jq -S . body >got && test_cmp want got &&
	test "$(api "/api/log?profiles=1")" = 200 &&
	jq -e "[.minor_versions[].tracked | length] == [2, 1]" body &&
	jq -e ".minor_versions[0].changes.degradations > 0" body &&
	test "$(api "/api/log?rev=HEAD~1")" = 200 &&
	jq -e "[.minor_versions[].desc] == [\"fast version\n\"]" body &&
	test "$(api "/api/log?rev=nope")" = 404 && jq -e ".error" body &&
	test "$(api "/api/log?profiles=2")" = 400 && jq -e ".error | test(\"profiles\")" body
'

test_expect_success '/api/commits/REV/profiles, /check and /api/pending are what perun status shows' '
	serve_load &&
	test "$(api /api/commits/HEAD/profiles)" = 200 &&
	jq -S .tracked status.json >want && jq -S .tracked body >got && test_cmp want got &&
	jq -S .changes status.json >want && jq -S .changes body >got && test_cmp want got &&
	test "$(api /api/commits/$(git -C proj rev-parse --short HEAD)/check)" = 200 &&
	jq -S .changes body >got && test_cmp want got &&
	test "$(jq -r .minor_version body)" = "$(git -C proj rev-parse HEAD)" &&
	test "$(api /api/commits/HEAD~1/check)" = 200 && jq -e ".changes == []" body &&
	test "$(api /api/pending)" = 200 &&
	jq -S .pending status.json >want && jq -S .pending body >got && test_cmp want got &&
	test "$(api /api/commits/nope/profiles)" = 404 &&
	test "$(api /api/commits/-x/check)" = 400
'

test_expect_success '/api/profile: one profile by the selectors of the CLI' '
	serve_load &&
	test "$(api "/api/profile?p=0@i")" = 200 &&
	test "$(jq -r .profile.checksum body)" = "$(jq -r ".tracked[0].checksum" status.json)" &&
	jq -e ".header.type == \"time\" and .collector_info.name == \"time\"" body &&
	jq -e "(.keys | index(\"amount\")) != null and .resources > 0" body &&
	sha=$(jq -r .profile.checksum body) &&
	test "$(api "/api/profile?p=$sha")" = 200 &&
	test "$(jq -r .profile.checksum body)" = "$sha" &&
	test "$(api "/api/profile?p=0@i&minor=HEAD~1")" = 200 &&
	test "$(jq -r .header.workload body)" = in &&
	test "$(api "/api/profile?p=HEAD~1%5E0@i")" = 200 &&
	test "$(api "/api/profile?p=0@i-1@i")" = 400 && jq -e ".error | test(\"names 2 profiles\")" body &&
	test "$(api "/api/profile?p=7@i")" = 404 &&
	test "$(api "/api/profile?p=%2Fetc%2Fpasswd")" = 404 &&
	test "$(api "/api/profile?p=../../.perun/config")" = 404 &&
	test "$(api "/api/profile")" = 400 && jq -e ".error | test(\"missing\")" body &&
	test "$(api "/api/profile?p=0@i&minor=nope")" = 404
'

test_expect_success '/api/profile/resources: paged pages make the whole, sorted, filtered' '
	serve_load &&
	test "$(api "/api/profile/resources?p=0@i&limit=1000")" = 200 &&
	total=$(jq .total body) && test "$total" -gt 4 &&
	jq -c ".rows[]" body >all &&
	: >paged && offset=0 &&
	while [ $offset -lt $total ]; do
		test "$(api "/api/profile/resources?p=0@i&offset=$offset&limit=3")" = 200 &&
		jq -c ".rows[]" body >>paged && offset=$((offset + 3)) || return 1
	done &&
	test_cmp all paged &&
	test "$(api "/api/profile/resources?p=0@i&sort=amount&order=desc&limit=1000")" = 200 &&
	jq -e "[.rows[].amount] as \$a | \$a == (\$a | sort | reverse)" body &&
	test "$(api "/api/profile/resources?p=0@i&sort=amount&limit=1000")" = 200 &&
	jq -e "[.rows[].amount] as \$a | \$a == (\$a | sort)" body &&
	test "$(api "/api/profile/resources?p=0@i&where=subtype=real&limit=1000")" = 200 &&
	jq -e ".matched > 0 and .matched < .total and all(.rows[]; .subtype == \"real\")" body &&
	test "$(api "/api/profile/resources?p=0@i&q=MAX-RSS&limit=1000")" = 200 &&
	jq -e ".matched > 0 and all(.rows[]; .subtype == \"max-rss\")" body &&
	test "$(api "/api/profile/resources?p=0@i&q=no-such-text")" = 200 && jq -e ".matched == 0" body
'

test_expect_success 'resources: bad paging and sorting parameters are 400' '
	serve_load &&
	for q in limit=0 limit=1001 offset=-1 offset=abc "order=up" "where=subtype"; do
		test "$(api "/api/profile/resources?p=0@i&$q")" = 400 &&
		jq -e ".error" body >/dev/null || { echo "$q"; return 1; }
	done
'

test_expect_success '/api/profile/views says which views fit; they render as perun show does' '
	serve_load &&
	test "$(api "/api/profile/views")" = 200 &&
	jq -e "[.views[].name] | index(\"bars\") != null" body &&
	jq -e "all(.views[]; has(\"fits\") | not)" body &&
	test "$(api "/api/profile/views?p=0@i")" = 200 &&
	jq -e ".views[] | select(.name == \"bars\") | .fits" body &&
	jq -e ".views[] | select(.name == \"flamegraph\") | .fits == false and (.error | test(\"call stacks\"))" body &&
	test "$(api "/api/profile/views/bars?p=0@i")" = 200 &&
	grep -q "<canvas" body && grep -q "stacked by uid" body &&
	test "$(api "/api/profile/views/flow?p=0@i&opt.by=subtype")" = 200 &&
	grep -q "for each subtype" body &&
	test "$(api "/api/profile/views/flamegraph?p=0@i")" = 400 &&
	jq -e ".error | test(\"view .flamegraph.: the profile has no call stacks\")" body
'

test_expect_success 'views: unknown views and options, file options: errors' '
	serve_load &&
	test "$(api "/api/profile/views/nope?p=0@i")" = 404 &&
	test "$(api "/api/profile/views/report?p=0@i")" = 404 &&
	test "$(api "/api/profile/views/bars?p=0@i&opt.nope=1")" = 400 &&
	jq -e ".error | test(\"no option .nope.\")" body &&
	test "$(api "/api/profile/views/bars?p=0@i&opt.filename=x.html")" = 400 &&
	jq -e ".error | test(\"writes files\")" body &&
	test "$(api "/api/profile/views/bars?p=0@i&opt.of=nokey")" = 400 &&
	test "$(api "/api/profile/views/bars?p=5@i")" = 404 &&
	test "$(api "/api/profile/views/bars")" = 400
'

test_expect_success 'views leave no file behind, in the project or the temporary directory' '
	serve_load &&
	test "$(api "/api/profile/views/scatter?p=0@i&opt.per=order")" = 200 &&
	grep -q "<canvas" body &&
	git -C proj status --porcelain --ignored >st && test_grep "^?? .perun/$" st &&
	test "$(wc -l <st)" = 1 &&
	test -z "$(ls -A "$TMPDIR")"
'

test_expect_success '/api/compare/views: the showdiff views of any two profiles' '
	serve_load &&
	q="baseline=HEAD~1%5E0@i&target=0@i" &&
	test "$(api "/api/compare/views?$q")" = 200 &&
	jq -e ".views[] | select(.name == \"report\") | .fits" body &&
	jq -e ".views[] | select(.name == \"table\") | .fits" body &&
	test "$(api "/api/compare/views/report?$q")" = 200 &&
	grep -q "Difference report" body &&
	test "$(api "/api/compare/views/table?$q")" = 200 &&
	(cd proj && perun showdiff HEAD~1^0@i 0@i table) >want &&
	test_cmp want body &&
	test "$(api "/api/compare/views/flamegraph?$q")" = 400 &&
	test "$(api "/api/compare/views/bars?$q")" = 404 &&
	test "$(api "/api/compare/views/report?baseline=0@i")" = 400 &&
	jq -e ".error | test(\"target\")" body
'

test_expect_success '/api/plugins: every plugin with its declared options' '
	serve_load &&
	test "$(api /api/plugins)" = 200 &&
	(cd proj && perun plugins inspect time --format json) >want.json &&
	jq -S ".plugins[] | select(.name == \"time\" and .kind == \"collect\")" body >got &&
	jq -S . want.json >want && test_cmp want got &&
	test "$(api "/api/plugins?kind=postprocess")" = 200 &&
	jq -e "(.plugins | length) > 0 and all(.plugins[]; .kind == \"postprocess\")" body &&
	test "$(api "/api/plugins?kind=bogus")" = 400
'

test_expect_success 'the pages and their assets are served; unknown ones are 404' '
	serve_load &&
	for p in / /profile /compare /assets/perun.js /assets/perun.css; do
		test "$(api "$p")" = 200 || { echo "$p"; return 1; }
	done &&
	test "$(api /assets/nope.js)" = 404 &&
	test "$(api /assets/project.html)" = 404 &&
	test "$(api /nope)" = 404 && jq -e ".error | test(\"no such page\")" body &&
	test "$(api /api/nope)" = 404
'

test_expect_success 'bad paths: dot segments, escapes and odd bytes are 400' '
	serve_load &&
	store_snapshot proj >before &&
	test "$(api /api/../api/info --path-as-is)" = 400 &&
	jq -e ".error | test(\"component\")" body &&
	test "$(api /assets/%2e%2e/%2e%2e/.perun/config --path-as-is)" = 400 &&
	test "$(api /api/./info --path-as-is)" = 400 &&
	test "$(api "/api/commits/a%01b/check")" = 400 &&
	jq -e ".error | test(\"byte\")" body &&
	test "$(api "/assets/%C3%A9.js")" = 400 &&
	test "$(api "/assets/a%5Cb.js")" = 400
'

test_expect_success 'state-changing requests need the CSRF token; bodies are JSON of 1 MiB at most' '
	serve_load &&
	test "$(api /api/csrf)" = 200 && csrf=$(jq -r .csrf body) &&
	test ${#csrf} = 48 &&
	test "$(api /api/info -X POST)" = 403 && jq -e ".error | test(\"CSRF\")" body &&
	test "$(api /api/info -X POST -H "X-CSRF-Token: nope")" = 403 &&
	test "$(api /api/info -X DELETE -H "X-CSRF-Token: $csrf")" = 405 &&
	test "$(api /api/info -X POST -H "X-CSRF-Token: $csrf" --data-binary "{\"a\": 1}")" = 405 &&
	test "$(api /api/nope -X PUT -H "X-CSRF-Token: $csrf")" = 404 &&
	test "$(api /api/info -X POST -H "X-CSRF-Token: $csrf" --data-binary "not json")" = 400 &&
	jq -e ".error | test(\"not JSON\")" body &&
	head -c 1100000 /dev/zero | tr "\0" " " >big &&
	test "$(api /api/info -X POST -H "X-CSRF-Token: $csrf" --data-binary @big)" = 413 &&
	jq -e ".error | test(\"larger than\")" body &&
	test "$(api /api/info -X PATCH)" = 405
'

test_expect_success 'after the bad requests it still serves, and the store is as it was' '
	serve_load &&
	test "$(api /api/info)" = 200 &&
	store_snapshot proj >after && test_cmp before after
'

test_expect_success 'the log follows the store: a profile added or removed while it runs' '
	serve_load &&
	test "$(api "/api/log?profiles=1")" = 200 && cp body log1 &&
	test "$(api "/api/log?profiles=1")" = 200 && test_cmp log1 body &&
	(cd proj && perun collect -c ./prog -w third time --repeat 1 --warmup 0 >/dev/null 2>&1 &&
	 perun add 0@p >/dev/null) &&
	test "$(api "/api/log?profiles=1")" = 200 &&
	jq -e "[.minor_versions[].tracked | length] == [3, 1]" body &&
	jq -e "[.minor_versions[0].tracked[].workload] | index(\"third\") != null" body &&
	test "$(api "/api/log")" = 200 && jq -e ".minor_versions[0].profiles.all == 3" body &&
	tag=$(api "/api/commits/HEAD/profiles" >/dev/null && jq -r ".tracked[] | select(.workload == \"third\") | .id" body) &&
	(cd proj && perun rm "$tag" >/dev/null) &&
	test "$(api "/api/log?profiles=1")" = 200 &&
	jq -e "[.minor_versions[].tracked | length] == [2, 1]" body
'

# wait_events N: until ./events holds N events (10 s at most).
wait_events() {
	i=0
	until [ "$(grep -c "^event: store$" events)" -ge "$1" ]; do
		i=$((i + 1)) && test $i -lt 100 || return 1
		sleep 0.1
	done
}

test_expect_success '/api/events streams an event at once and one when the store changes' '
	serve_load || return 1
	curl -s -N -H "Authorization: Bearer $SERVE_TOKEN" "$SERVE_BASE/api/events" >events &
	pid=$!
	wait_events 1 &&
	(cd proj && perun collect -c ./prog -w evented time --repeat 1 --warmup 0 >/dev/null 2>&1) &&
	wait_events 2 && kill $pid &&
	test "$(grep -c "^data: {\"head\": \"$(git -C proj rev-parse HEAD)\"}$" events)" = 2 &&
	curl -s -D head -o /dev/null -m 1 -H "Authorization: Bearer $SERVE_TOKEN" "$SERVE_BASE/api/events";
	tr -d "\r" <head | grep -q "^Content-Type: text/event-stream$"
'

test_expect_success 'a new commit and a changed configuration show while it runs' '
	serve_load &&
	git -C proj commit -q --allow-empty -m "third version" &&
	test "$(api /api/info)" = 200 &&
	test "$(jq -r .head body)" = "$(git -C proj rev-parse HEAD)" &&
	test "$(api "/api/log?profiles=1")" = 200 &&
	jq -e "[.minor_versions[].tracked | length] == [0, 2, 1]" body &&
	(cd proj && git reset -q --hard HEAD~1 &&
	 perun config --local set format.sort_profiles_by workload >/dev/null &&
	 perun status --format json) >st.json &&
	test "$(api "/api/commits/HEAD/profiles")" = 200 &&
	jq -S .tracked st.json >want && jq -S .tracked body >got && test_cmp want got &&
	jq -e "[.tracked[].workload] == ([.tracked[].workload] | sort | reverse)" body &&
	(cd proj && perun config --local set format.sort_profiles_by time >/dev/null)
'

test_expect_success 'SIGTERM ends it with 0' '
	serve_stop TERM &&
	test_grep "stopped (SIGTERM)" serve.err
'

test_expect_success '--read-only refuses state-changing requests with 403; SIGINT ends it' '
	serve_start proj --read-only &&
	grep -q "^perun serve (read-only): http" serve.out &&
	test "$(api /api/info)" = 200 && jq -e ".read_only" body &&
	test "$(api /api/csrf)" = 200 && csrf=$(jq -r .csrf body) &&
	test "$(api /api/info -X POST -H "X-CSRF-Token: $csrf")" = 403 &&
	jq -e ".error | test(\"read-only\")" body &&
	test "$(api /api/nope -X DELETE -H "X-CSRF-Token: $csrf")" = 403 &&
	serve_stop INT && test_grep "stopped (SIGINT)" serve.err
'

test_expect_success 'bad --listen values and a busy port: one line, exit 2 or 3' '
	serve_start proj && port=${SERVE_BASE##*:} &&
	cd proj &&
	test_exit_code 2 perun serve --listen 127.0.0.1:99999 2>err &&
	test_grep "port .99999. is not 0..65535" err &&
	test_exit_code 2 perun serve --listen 127.0.0.1: 2>err &&
	test_grep "port .. is not 0..65535" err &&
	test_exit_code 2 perun serve --listen "[::1:80" 2>err &&
	test_grep "not ADDR:PORT" err &&
	test_exit_code 3 perun serve --listen 127.0.0.1:$port 2>err &&
	test_grep "cannot listen: Address already in use" err &&
	(cd .. && serve_stop) &&
	test_exit_code 2 perun serve extra 2>err && test_grep "usage: perun serve" err
'

test_expect_success 'a repository without commits: no head, the log is 404' '
	mkdir fresh && (cd fresh && git init -q && perun init >/dev/null) &&
	serve_start fresh &&
	test "$(api /api/info)" = 200 && jq -e ".head == null" body &&
	test "$(api /api/log)" = 404 && jq -e ".error" body &&
	test "$(api /)" = 200 &&
	serve_stop
'

test_expect_success 'outside an instance it does not start' '
	mkdir -p empty && cd empty &&
	test_must_fail perun serve --listen 127.0.0.1:0 2>err &&
	test_grep "not a perun instance" err
'

test_done
