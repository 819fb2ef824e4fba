#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The runs and sessions of perun serve (core/serve_runs.c) without HTTP,
# through tests/helpers/serve-runs-driver: sessions made, searched,
# renamed and deleted; runs queued and executed one at a time by perun
# collect, their counters samples streamed while the program runs, their
# profile pending in the store; failures with their error log; deletion
# with the files; and everything back after a restart or a crash.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null || test_skip_all "jq is needed to read the answers"
command -v mkfifo >/dev/null || test_skip_all "mkfifo is needed to talk to the driver"
. "$TEST_SRCDIR/tests/helpers/serve-runs-lib.sh"
counters_require

driver="$TEST_BUILDDIR/tests/helpers/serve-runs-driver"
perun_exe="$TEST_BUILDDIR/perun"

# The driver reads commands from the fifo proj/in, answers in proj/out;
# a sleeping writer keeps the fifo open between commands.
drv_start() {
	rm -f in && mkfifo in && : >out &&
	{ "$driver" "$perun_exe" "$PWD" <in >out 2>drv.err & echo $! >drv.pid; } &&
	{ sleep 100000 >in & echo $! >hold.pid; }
}

# ask <command>: the answer, waiting for it (up to a minute).
ask() {
	n=$(wc -l <out)
	echo "$*" >in
	i=0
	while [ "$(wc -l <out)" -le "$n" ]; do
		i=$((i + 1))
		[ $i -gt 1200 ] && { echo "no answer to: $*" >&2; return 1; }
		sleep 0.05
	done
	sed -n "$((n + 1))p" out
}

drv_alive() {
	kill -0 "$(cat drv.pid)" 2>/dev/null
}

drv_stop() {
	kill "$(cat hold.pid)" &&
	i=0 &&
	while drv_alive; do
		i=$((i + 1))
		[ $i -gt 1200 ] && return 1
		sleep 0.05
	done
}

drv_crash() {
	kill -9 "$(cat drv.pid)" && kill "$(cat hold.pid)" &&
	while drv_alive; do sleep 0.05; done
}

test_expect_success 'setup: an instance, programs to run, the driver' '
	test_make_git_project proj &&
	cd proj && perun init >/dev/null &&
	printf "in\nout\ngo\n*.pid\ndrv.err\n*.sh\n" >>.git/info/exclude &&
	cat >waiter.sh <<-EOS &&
	#!/bin/sh
	# Busy until the file go exists, so counters count something.
	while [ ! -e go ]; do i=0; while [ \$i -lt 3000 ]; do i=\$((i+1)); done; done
	echo waiter done
	EOS
	printf "#!/bin/sh\necho boom >&2\nexit 3\n" >fails.sh &&
	printf "#!/bin/sh\nexit 0\n" >gone.sh &&
	chmod +x waiter.sh fails.sh gone.sh &&
	drv_start
'

test_expect_success 'sessions: created, listed, searched, renamed' '
	cd proj &&
	ask session-create bench A >s1 && jq -e ".name == \"bench A\" and .runs == 0" s1 &&
	ask session-create other >s2 &&
	ask sessions >all && test "$(jq length all)" = 2 &&
	ask sessions BENCH >found && jq -e "length == 1 and .[0].name == \"bench A\"" found &&
	ask session-rename "$(jq -r .id s2) renamed one" >r &&
	jq -e ".name == \"renamed one\"" r &&
	ask session-get "$(jq -r .id s2)" >g && jq -e ".name == \"renamed one\"" g &&
	test -f ".perun/serve/sessions/$(jq -r .id s1).json"
'

test_expect_success 'sessions: bad names and unknown ids refused' '
	cd proj &&
	for name in "a/b" "x..y" ".." ; do
		ask session-create "$name" >e &&
		jq -e ".code == 2 and (.error | test(\"session name\"))" e || return 1
	done &&
	ask session-rename "$(jq -r .id s1) ../up" >e && jq -e ".code == 2" e &&
	ask session-get 0123456789abcdef >e &&
	jq -e ".code == 3 and (.error | test(\"no such session\"))" e &&
	ask session-get ../../etc >e && jq -e ".code == 2" e &&
	ask sessions >all && test "$(jq length all)" = 2
'

test_expect_success 'run requests: bad ones refused with the field named' '
	cd proj &&
	sid=$(jq -r .id s1) &&
	check() {
		ask submit "$1" >e &&
		jq -e ".code == 2 and (.error | test(\"$2\"))" e
	} &&
	check "[1]" "not a JSON object" &&
	check "{\"session\":\"$sid\",\"collector\":\"time\",\"command\":\"true\",\"x\":1}" \
		"unknown field .x." &&
	check "{\"session\":\"$sid\",\"command\":\"true\"}" "collector" &&
	check "{\"session\":\"$sid\",\"collector\":\"../time\",\"command\":\"true\"}" "collector" &&
	check "{\"session\":\"$sid\",\"collector\":\"time\"}" "command" &&
	check "{\"session\":\"$sid\",\"collector\":\"time\",\"command\":\"./nope\"}" \
		"nope.: no such program" &&
	check "{\"session\":\"$sid\",\"collector\":\"time\",\"command\":\"true\",\"collector_options\":{\"-x\":1}}" \
		"collector option .-x.: not a name" &&
	check "{\"session\":\"$sid\",\"collector\":\"time\",\"command\":\"true\",\"env\":{\"A B\":\"1\"}}" \
		"environment variable .A B." &&
	check "{\"session\":\"$sid\",\"collector\":\"time\",\"command\":\"true\",\"postprocessors\":3}" \
		"postprocessors" &&
	check "{\"session\":\"nosuch\",\"collector\":\"time\",\"command\":\"true\"}" "session" &&
	ask submit "{\"session\":\"0123456789abcdef\",\"collector\":\"time\",\"command\":\"true\"}" >e &&
	jq -e ".code == 3" e &&
	ask runs >runs && jq -e "length == 0" runs
'

test_expect_success 'a counters run streams samples while the program runs' '
	cd proj &&
	rm -f go &&
	sid=$(jq -r .id s1) &&
	ask submit "{\"session\":\"$sid\",\"collector\":\"counters\",\"collector_options\":{\"interval-ms\":100,\"event\":[\"task-clock\"]},\"postprocessors\":[{\"name\":\"moving-average\",\"options\":{\"per-key\":\"interval\"}}],\"command\":\"./waiter.sh\",\"env\":{\"RUN_MARK\":\"m1\"}}" >run1 &&
	jq -e ".status == \"queued\" and .request.collector_options[\"interval-ms\"] == 100" run1 &&
	id=$(jq -r .id run1) &&
	ask events "$id 0 30000" >ev &&
	jq -e ".ended == false and (.events | length) >= 1" ev &&
	jq -e "[.events[] | .sample | select(.)] | length >= 1" ev &&
	jq -e ".events[0].sample.event == \"task-clock\" and .events[0].n == 1" ev &&
	ask run "$id" >r && jq -e ".status == \"running\" and .started" r &&
	after=$(jq ".events | length" ev) &&
	ask events "$id $after 30000" >ev2 &&
	jq -e ".ended == false and .events[0].n == $after + 1" ev2 &&
	touch go &&
	ask wait "$id" >all &&
	jq -e ".ended == true" all
'

test_expect_success 'the run is done; its profile is pending, postprocessed' '
	cd proj &&
	id=$(jq -r .id run1) &&
	ask run "$id" >r &&
	jq -e ".status == \"done\" and .exit_code == 0 and .ended" r &&
	jq -e ".profiles | length == 2" r &&
	profile=$(jq -r .profile r) &&
	test -f "$profile" &&
	case $profile in "$PWD"/.perun/jobs/*) ;; *) false ;; esac &&
	perun status >st && test_grep "counters" st &&
	jq -e ".postprocessors | length == 1" "$profile" &&
	ask file "$id log" >f && log=$(jq -r . f) &&
	test_grep "Performance counter stats" "$log" &&
	test_grep "Postprocessed " "$log" &&
	ask file "$id profile" >f && test "$(jq -r . f)" = "$profile" &&
	ask events "$id 0 0" >ev && jq -e ".ended == true" ev &&
	test "$(jq ".events | length" ev)" = "$(wc -l <"$log")"
'

test_expect_success 'runs are listed per session; search finds a command' '
	cd proj &&
	ask runs "$(jq -r .id s1)" >l && jq -e "length == 1" l &&
	ask runs "$(jq -r .id s2)" >l && jq -e "length == 0" l &&
	ask sessions waiter >found && jq -e "length == 1 and .[0].runs == 1" found
'

test_expect_success 'a failed run keeps its exit code and its error' '
	cd proj &&
	ask submit "{\"session\":\"$(jq -r .id s2)\",\"collector\":\"time\",\"command\":\"./fails.sh\"}" >f1 &&
	id=$(jq -r .id f1) &&
	ask wait "$id" >all && jq -e ".ended" all &&
	ask run "$id" >r &&
	jq -e ".status == \"failed\" and .exit_code != 0 and (.error | test(\"status 3\"))" r &&
	ask file "$id profile" >e && jq -e ".code == 3" e
'

test_expect_success 'a program gone before its run: a clear error, the queue goes on' '
	cd proj &&
	rm -f go &&
	sid=$(jq -r .id s2) &&
	ask submit "{\"session\":\"$sid\",\"collector\":\"time\",\"command\":\"./waiter.sh\"}" >w &&
	ask submit "{\"session\":\"$sid\",\"collector\":\"time\",\"command\":\"./gone.sh\"}" >g &&
	ask submit "{\"session\":\"$sid\",\"collector\":\"time\",\"collector_options\":{\"repeat\":1},\"command\":\"true\"}" >t &&
	ask run "$(jq -r .id g)" >r && jq -e ".status == \"queued\"" r &&
	rm gone.sh && touch go &&
	ask wait "$(jq -r .id t)" >all &&
	ask run "$(jq -r .id g)" >r &&
	jq -e ".status == \"failed\" and (.error | test(\"gone.sh\"))" r &&
	ask run "$(jq -r .id t)" >r && jq -e ".status == \"done\"" r &&
	drv_alive
'

test_expect_success 'deleting a run removes its files and its pending profile' '
	cd proj &&
	id=$(jq -r .id t) &&
	ask run "$id" >r && profile=$(jq -r .profile r) && test -f "$profile" &&
	ask delete "$id" >d && jq -e ". == true" d &&
	test ! -e "$profile" &&
	test ! -e ".perun/serve/runs/$id.json" && test ! -e ".perun/serve/runs/$id.log" &&
	ask run "$id" >e && jq -e ".code == 3" e &&
	ask delete "$id" >e && jq -e ".code == 3" e
'

test_expect_success 'a restart shows the same history' '
	cd proj &&
	ask runs >before &&
	drv_stop &&
	drv_start &&
	ask runs >after &&
	test_cmp before after
'

test_expect_success 'a crash while a run goes: failed, server stopped, on restart' '
	cd proj &&
	rm -f go &&
	ask submit "{\"session\":\"$(jq -r .id s1)\",\"collector\":\"time\",\"command\":\"./waiter.sh\"}" >c &&
	id=$(jq -r .id c) &&
	i=0 && while ! jq -e ".status == \"running\"" ".perun/serve/runs/$id.json" >/dev/null; do
		i=$((i + 1)); test $i -lt 1200 || return 1; sleep 0.05; done &&
	drv_crash &&
	touch go &&
	jq -e ".status == \"running\"" ".perun/serve/runs/$id.json" &&
	drv_start &&
	ask run "$id" >r &&
	jq -e ".status == \"failed\" and .error == \"server stopped\"" r
'

test_expect_success 'deleting a session deletes its runs' '
	cd proj &&
	sid=$(jq -r .id s1) &&
	ask runs "$sid" >l && n=$(jq length l) && test "$n" -ge 2 &&
	ask session-delete "$sid" >d && jq -e ". == true" d &&
	test ! -e ".perun/serve/sessions/$sid.json" &&
	for id in $(jq -r ".[].id" l); do
		test ! -e ".perun/serve/runs/$id.json" || return 1
	done &&
	ask runs "$sid" >e && jq -e ".code == 3" e &&
	ask sessions >all && jq -e "length == 1" all
'

# kperf where it can sample here: its top functions so far as events.
if test -e "$PERUN_PLUGIN_PATH/collect/kperf.so" &&
	(cd proj && perun collect -c dd -a "if=/dev/zero of=/dev/null bs=1k count=300000" \
		kperf >/dev/null 2>&1); then
test_expect_success 'a kperf run streams its top functions while it runs' '
	cd proj &&
	rm -f go &&
	ask submit "{\"session\":\"$(jq -r .id s2)\",\"collector\":\"kperf\",\"collector_options\":{\"top-every-ms\":200},\"command\":\"./waiter.sh\"}" >k &&
	id=$(jq -r .id k) &&
	ask events "$id 0 30000" >ev &&
	i=0 && while ! jq -e "[.events[] | select(.top)] | length >= 2" ev >/dev/null; do
		i=$((i + 1)); test $i -lt 100 || return 1
		ask events "$id $(jq ".events | length" ev) 30000" >more &&
		jq -s "{events: (.[0].events + .[1].events), ended: .[1].ended}" ev more >ev2 &&
		mv ev2 ev || return 1
	done &&
	jq -e ".ended == false" ev &&
	jq -e "[.events[] | select(.top)][1] | .top.samples > 0 and (.top.top | length) >= 1 and .top.top[0].name != null" ev &&
	touch go &&
	ask wait "$id" >all && jq -e ".ended" all &&
	ask run "$id" >r && jq -e ".status == \"done\"" r
'

test_expect_success 'kperf --top-every-ms below 100: the run fails saying so' '
	cd proj &&
	ask submit "{\"session\":\"$(jq -r .id s2)\",\"collector\":\"kperf\",\"collector_options\":{\"top-every-ms\":5},\"command\":\"true\"}" >k &&
	ask wait "$(jq -r .id k)" >all &&
	ask run "$(jq -r .id k)" >r &&
	jq -e ".status == \"failed\" and (.error | test(\"top-every-ms. must be 100 or more\"))" r
'
else
	say "kperf cannot sample here: its live top functions are not tested"
fi

test_expect_success 'counters lines as samples; other lines are none' '
	cd proj &&
	ask sample "       0.101               1.44 msec task-clock" >s &&
	jq -e ".t == 0.101 and .value == 1.44 and .unit == \"msec\"" s &&
	ask sample "      2.000            123456  instructions   (50.00%)" >s &&
	jq -e ".event == \"instructions\" and .value == 123456 and .running_pct == 50" s &&
	for line in "waiter done" "1 2 3" "0.5 x task-clock" "0.5 12 cycles (x)"; do
		ask sample "$line" >s && jq -e ". == null" s || return 1
	done
'

test_expect_success 'cleanup: the driver stops' '
	cd proj && drv_stop
'

test_done
