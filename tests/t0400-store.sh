#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# add, rm, status and log on a real git repository; the store's format.
. "$srcdir/tests/test-lib.sh"

command -v python3 >/dev/null || test_skip_all "python3 is needed to read the store independently"
test_fixtures

# A profile file as collected at the current HEAD of the repository.
make_pending() {
	python3 - "$FIXTURES/time/time-basic.perf" "$1" "$2" "$3" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	d["origin"] = sys.argv[3]
	d["header"]["cmd"] = sys.argv[4]
	json.dump(d, open(sys.argv[2], "w"), indent=2)
	PY
}

test_expect_success 'set up a git project with a perun instance' '
	test_make_git_project proj &&
	(cd proj && perun init >out && test_grep "Initialized" out)
'

test_expect_success 'status of a fresh instance' '
	(cd proj && perun status >../out) &&
	test_grep "^On major version master (minor version: $(git -C proj rev-parse HEAD))" out &&
	test_grep "(no tracked profiles)" out &&
	test_grep "(no untracked profiles)" out
'

test_expect_success 'pending profiles are listed newest first as N@p' '
	head=$(git -C proj rev-parse HEAD) &&
	make_pending proj/.perun/jobs/older.perf $head cmd-a &&
	touch -d "2020-01-01 10:00:00" proj/.perun/jobs/older.perf &&
	make_pending proj/.perun/jobs/newer.perf $head cmd-b &&
	touch -d "2021-01-01 10:00:00" proj/.perun/jobs/newer.perf &&
	(cd proj && perun status --format json >../st.json) &&
	python3 -c "
import json; d = json.load(open(\"st.json\"))
assert [p[\"source\"] for p in d[\"pending\"]] == [\"newer.perf\", \"older.perf\"], d
assert d[\"pending\"][0][\"id\"] == \"0@p\" and d[\"pending\"][0][\"cmd\"] == \"cmd-b\"
"
'

test_expect_success 'the pending index is a pidx v2 file Python Perun can read' '
	python3 "$TEST_SRCDIR/tests/helpers/pidx.py" read proj/.perun/jobs/.index >idx &&
	test_grep "^version 2 entries 2$" idx &&
	test_grep "^newer.perf time cmd-b world time filter normalizer$" idx
'

test_expect_success 'add registers at HEAD and removes the files' '
	(cd proj && perun add 0@p 1@p >../out) &&
	test_grep "Registration succeeded for 2 profiles" out &&
	! test -e proj/.perun/jobs/newer.perf &&
	(cd proj && perun status --short >../out) &&
	test_grep "^2 tracked profiles (2 time)" out
'

test_expect_success 'objects are zlib "profile <type> <len>\\0<json>" named by their SHA-1' '
	head=$(git -C proj rev-parse HEAD) &&
	python3 "$TEST_SRCDIR/tests/helpers/pidx.py" verify proj/.perun $head >out &&
	test_grep "^ok 2 objects$" out
'

test_expect_success 'show reads tracked profiles by tag and by <rev>^<tag>' '
	(cd proj && perun show 0@i tableof resources >../a && perun show "HEAD^0@i" tableof resources >../b) &&
	test_cmp a b && test_grep real a
'

test_expect_success 'a profile from another version is refused, and --force adds it' '
	make_pending proj/.perun/jobs/other.perf 0123456789012345678901234567890123456789 x &&
	before=$(store_snapshot proj) &&
	(cd proj && test_must_fail perun add other.perf 2>../err) &&
	test_grep "was collected at 0123456789012345678901234567890123456789" err &&
	test "$before" = "$(store_snapshot proj)" &&
	(cd proj && perun add --force --keep-profile other.perf) &&
	test -e proj/.perun/jobs/other.perf
'

test_expect_success 'log shows the profile counts of each version' '
	(cd proj && perun log >../out && perun log --short >../short && perun log --format json >../log.json) &&
	test_grep "^3 tracked profiles (3 time)" out &&
	test_grep "^(no tracked profiles)" out &&
	test_grep "^checksum (a|m|x|t profiles) *desc *changes" short &&
	test_grep "(3|0|0|3 profiles) second version" short &&
	test_grep "first version" short &&
	python3 -c "
import json; d = json.load(open(\"log.json\"))
assert [v[\"profiles\"][\"all\"] for v in d[\"minor_versions\"]] == [3, 0]
"
'

test_expect_success 'rm deregisters by tag and deletes pending files' '
	(cd proj && perun rm 0@i >../out && perun rm 0@p >>../out) &&
	test_grep "deregistered" out && test_grep "deleted other.perf" out &&
	(cd proj && perun status --short >../out) &&
	test_grep "^2 tracked profiles" out &&
	test_grep "(no untracked profiles)" out
'

test_expect_success 'bad selectors fail with one line and leave the store alone' '
	before=$(store_snapshot proj) &&
	(cd proj && test_must_fail perun rm 9@i 2>../err) &&
	test_grep "no profile 9@i: there are 2 tracked profiles" err &&
	(cd proj && test_exit_code 2 perun add nosuch.perf 2>../err) &&
	test_grep "no profile matches .nosuch.perf." err &&
	(cd proj && test_must_fail perun show 0@i nosuchview 2>../err) &&
	test_grep "no view plugin named .nosuchview." err &&
	(cd proj && test_exit_code 2 perun status --bogus 2>../err) &&
	test_grep "unknown option .--bogus." err &&
	test "$before" = "$(store_snapshot proj)"
'

test_expect_success 'a corrupt index is refused by name, and nothing changes' '
	head=$(git -C proj rev-parse HEAD) &&
	idx=proj/.perun/objects/$(echo $head | cut -c1-2)/$(echo $head | cut -c3-) &&
	cp $idx index.good &&
	printf "pidx\002\000\000\000\011\000\000\000garbage" >$idx &&
	before=$(store_snapshot proj) &&
	(cd proj && test_must_fail perun status 2>../err) &&
	test_grep "malformed index .*: header says 9 entries, found 0" err &&
	test $(wc -l <err) -eq 1 &&
	(cd proj && test_must_fail perun rm 0@i 2>../err) &&
	test "$before" = "$(store_snapshot proj)" &&
	cp index.good $idx
'

test_expect_success 'a corrupt object is refused by name' '
	head=$(git -C proj rev-parse HEAD) &&
	(cd proj && perun status --format json) >st.json &&
	sha=$(python3 -c "import json; print(json.load(open(\"st.json\"))[\"tracked\"][0][\"checksum\"])") &&
	obj=proj/.perun/objects/$(echo $sha | cut -c1-2)/$(echo $sha | cut -c3-) &&
	cp $obj obj.good && echo garbage >$obj &&
	(cd proj && test_must_fail perun show 0@i tableof resources 2>../err) &&
	test_grep "malformed profile object $sha: not zlib data" err &&
	cp obj.good $obj
'

test_expect_success 'a store written the way Python Perun writes it opens here' '
	head=$(git -C proj rev-parse HEAD~1) &&
	python3 "$TEST_SRCDIR/tests/helpers/pidx.py" write-v1 proj/.perun $head \
		"$FIXTURES/mixed/points-models.perf" "$FIXTURES/check/models-baseline.perf" &&
	(cd proj && perun log --format json >../log.json && perun show "HEAD~1^1@i" tableof resources >../out) &&
	python3 -c "
import json; d = json.load(open(\"log.json\"))
assert d[\"minor_versions\"][1][\"profiles\"] == {\"all\": 2, \"memory\": 0, \"mixed\": 2, \"time\": 0}, d
" &&
	test_grep "structure-unit-size" out
'

test_expect_success 'perun outside an instance says so' '
	mkdir -p nowhere && (cd nowhere && test_exit_code 2 perun status 2>../err) &&
	test_grep "not a perun instance" err
'

test_done
