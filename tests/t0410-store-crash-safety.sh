#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Concurrent and killed perun processes never corrupt the store.
. "$srcdir/tests/test-lib.sh"

command -v python3 >/dev/null || test_skip_all "python3 is needed"
test_fixtures

make_pending_many() {
	python3 - "$FIXTURES/time/time-basic.perf" "$1" "$2" "$3" <<-'PY'
	import json, sys, os
	d = json.load(open(sys.argv[1]))
	d["origin"] = sys.argv[2]
	for i in range(int(sys.argv[3])):
	    d["header"]["workload"] = f"w{i}"
	    json.dump(d, open(os.path.join(sys.argv[4], f"p{i:03d}.perf"), "w"))
	PY
}

test_expect_success 'set up' '
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null) &&
	mkdir src
'

test_expect_success 'eight concurrent adds register every profile once' '
	head=$(git -C proj rev-parse HEAD) &&
	make_pending_many $head 40 src &&
	cp src/*.perf proj/.perun/jobs/ &&
	(cd proj &&
	 for k in 0 1 2 3 4 5 6 7; do
		files=$(for i in 0 1 2 3 4; do printf "p0%02d.perf " $((k * 5 + i)); done)
		perun add $files >/dev/null 2>&1 &
	 done; wait) &&
	(cd proj && perun status --format json >../st.json) &&
	python3 -c "
import json; d = json.load(open(\"st.json\"))
names = sorted(p[\"source\"] for p in d[\"tracked\"])
assert names == [\"p%03d.perf\" % i for i in range(40)], names
assert d[\"pending\"] == []
"
'

test_expect_success 'killing add at random moments leaves a readable, consistent store' '
	head=$(git -C proj rev-parse HEAD) &&
	rm -f src/* && make_pending_many $head 30 src &&
	for round in 1 2 3 4 5 6 7 8 9 10; do
		cp src/*.perf proj/.perun/jobs/ &&
		(cd proj && perun add $(cd ../src && ls) >/dev/null 2>&1 & pid=$!;
		 sleep 0.00$round; kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null; true) &&
		(cd proj && perun status --format json >../st.json) || return 1
		# Each profile is registered, or still pending, never lost.
		python3 -c "
import json; d = json.load(open(\"st.json\"))
have = {p[\"source\"] for p in d[\"tracked\"]} | {p[\"source\"] for p in d[\"pending\"]}
assert all(\"p%03d.perf\" % i in have for i in range(30)), sorted(have)
" || return 1
		(cd proj && perun add $(cd .perun/jobs && ls *.perf 2>/dev/null) >/dev/null 2>&1; true)
	done &&
	# Every entry of the index points to a sound object (re-added files
	# have new times, so they are new entries, as in Python Perun).
	python3 "$TEST_SRCDIR/tests/helpers/pidx.py" verify proj/.perun $head >out &&
	test_grep "^ok [0-9]* objects$" out
'

# One durable commit per command: add of 40 profiles (40 object
# directories) syncs the data once and the directories' entries once, not
# each directory.
if command -v strace >/dev/null && strace -f -qq -o /dev/null true 2>/dev/null; then
	test_expect_success 'add of 40 profiles: two syncfs, no fsync of each directory' '
		git init -q syncs &&
		(cd syncs && perun init >/dev/null && git commit -q --allow-empty -m v1 &&
		 head=$(git rev-parse HEAD) && i=0 &&
		 while [ $i -lt 40 ]; do
			test_time_profile $i.5 "$head" >.perun/jobs/p$i.perf || return 1
			i=$((i + 1))
		 done &&
		 # LeakSanitizer cannot run under ptrace: off for this one run
		 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -qq -o ../syncs.log -e trace=fsync,fdatasync,syncfs \
			perun add .perun/jobs/p*.perf >/dev/null &&
		 test "$(find .perun/objects -type f | wc -l)" -ge 40) &&
		test "$(grep -c "syncfs(" syncs.log)" = 2 &&
		! grep "fsync(" syncs.log
	'
	test_expect_success 'the 40 profiles added are all in the index, shown by their tag' '
		(cd syncs && i=0 &&
		 while [ $i -lt 40 ]; do
			perun show $i@i tableof resources >/dev/null || return 1
			i=$((i + 1))
		 done)
	'
else
	say "strace cannot run here: the syncs of add are not counted"
fi

test_done
