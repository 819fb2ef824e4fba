#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun events: every event this machine knows with its PMU, description
# and whether it counts here; a pattern searches names, PMUs and
# descriptions; --format json; --all adds the PMUs this machine lacks.
. "$srcdir/tests/test-lib.sh"

test_expect_success 'the table lists the software events as usable' '
	perun events >out &&
	head -n 1 out | grep -q "^EVENT  *PMU  *USABLE  *DESCRIPTION$" &&
	for e in task-clock page-faults context-switches cpu-migrations; do
		grep -q "^$e  *software  *yes  " out || return 1
	done &&
	grep -q "^cycles  *hardware  *\(yes\|no\)  " out
'

test_expect_success 'a pattern keeps the events with it in name, PMU or description' '
	perun events FAULT >out &&
	tail -n +2 out >rows &&
	test -s rows &&
	! grep -vi fault rows &&
	grep -q "^page-faults " rows &&
	perun events software >out &&
	grep -q "^task-clock " out
'

test_expect_success '--format json: schema 1, one object per event' '
	perun events --format json page-faults >out.json &&
	python3 - out.json <<-\PY
	import json, sys
	doc = json.load(open(sys.argv[1]))
	assert doc["schema"] == 1, doc
	ev = {e["name"]: e for e in doc["events"]}
	pf = ev["page-faults"]
	assert pf["pmu"] == "software" and pf["usable"] is True, pf
	assert pf["description"] and pf["source"] == "libpfm4", pf
	PY
'

test_expect_success '--usable leaves out what does not count; --all adds absent PMUs' '
	perun events >all &&
	perun events --usable >usable &&
	! grep "  no  " usable &&
	perun events --all >everything &&
	test $(wc -l <everything) -gt $(wc -l <all) &&
	grep -q "::" everything
'

test_expect_success 'in an instance, the events its profiles counted most come first' '
	helper="$TEST_BUILDDIR/plugins/collect/counters/tests/counters-helper" &&
	test_make_git_project proj &&
	(
		cd proj && perun init >/dev/null &&
		perun collect -c "$helper" -a "pages 1" counters -e cpu-migrations >/dev/null &&
		perun collect -c "$helper" -a "pages 1" counters \
			-e cpu-migrations,minor-faults >/dev/null &&
		perun add "$(ls .perun/jobs/*.perf | head -n 1)" >/dev/null &&
		perun collect -c "$helper" -a "pages 1" counters -e cpu-migrations >/dev/null &&
		mkdir -p sub && cd sub &&
		perun events >../../table &&
		perun events --format json >../../out.json
	) &&
	sed -n "2p" table | grep -q "^cpu-migrations  " &&
	sed -n "3p" table | grep -q "^minor-faults  " &&
	python3 - out.json <<-\PY
	import json, sys
	ev = json.load(open(sys.argv[1]))["events"]
	assert [(e["name"], e["used"]) for e in ev[:2]] == [
	    ("cpu-migrations", 3), ("minor-faults", 1)], ev[:3]
	assert all(e["used"] == 0 for e in ev[2:]), [e for e in ev[2:] if e["used"]]
	PY
'

test_expect_success 'tracepoints where tracefs is mounted; a note where it is not' '
	tp=/sys/kernel/tracing &&
	if test -d $tp/events/sched; then
		perun events --format json sched_switch >out.json
	elif test "$(id -u)" = 0 && command -v unshare >/dev/null &&
		unshare -m sh -c "mount -t tracefs nodev $tp" 2>/dev/null; then
		perun events sched_switch >/dev/null 2>err &&
		test_grep "^perun: events: no tracepoints listed: tracefs is not mounted" err &&
		unshare -m sh -c "mount -t tracefs nodev $tp &&
			perun events --format json sched_switch" >out.json
	else
		echo "no tracefs and no way to mount one: skipped"; return 0
	fi &&
	python3 - out.json <<-\PY
	import json, sys
	ev = {e["name"]: e for e in json.load(open(sys.argv[1]))["events"]}
	e = ev["sched:sched_switch"]
	assert e["pmu"] == "tracepoint" and e["source"] == "tracefs" and e["usable"], e
	PY
'

test_expect_success 'bad usage: exit 2, one line' '
	test_exit_code 2 perun events --format xml 2>err &&
	test $(wc -l <err) = 1 &&
	test_grep "table or json" err &&
	test_exit_code 2 perun events a b 2>err
'

test_done
