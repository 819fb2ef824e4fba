#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun push, fetch and pull through bare repositories on local paths
# (named remotes, file:// URLs and plain paths): only the profiles travel,
# merged as a union; concurrent pushers lose nothing; a killed push leaves
# the remote readable; bad remotes get one line and leave the store alone.
. "$srcdir/tests/test-lib.sh"

# add_profile <name> <amount>: register a time profile at HEAD as <name>.
add_profile() {
	test_time_profile "$2" "$(git rev-parse HEAD)" >".perun/jobs/$1.perf" &&
	perun add ".perun/jobs/$1.perf" >/dev/null
}

# profiles: "minor checksum name" of every tracked profile, read from the
# indexes of the store with tests/helpers/pidx.py.
profiles() {
	python3 - <<-\PY
	import glob, os, sys
	sys.path.insert(0, os.path.join(os.environ["TEST_SRCDIR"], "tests", "helpers"))
	from pidx import read_index
	rows = []
	for path in glob.glob(".perun/objects/*/*"):
	    if open(path, "rb").read(4) != b"pidx":
	        continue
	    minor = path.split("/")[-2] + path.split("/")[-1]
	    for mtime, sha, name, extra in read_index(path)[1]:
	        rows.append(f"{minor} {sha} {name}")
	print("\n".join(sorted(rows)))
	PY
}

command -v python3 >/dev/null || test_skip_all "python3 is needed to read the indexes"

test_expect_success 'setup: a project on a bare remote, with profiles at two versions' '
	git init -q --bare remote.git &&
	test_make_git_project a &&
	(cd a && git remote add origin ../remote.git && git push -q origin master &&
	 perun init >/dev/null && printf ".perun\n" >.git/info/exclude &&
	 git checkout -q HEAD~1 && add_profile one 1.0 &&
	 git checkout -q master && add_profile two 2.0 && add_profile three 3.0 &&
	 profiles >../a.profiles) &&
	test $(wc -l <a.profiles) = 3
'

test_expect_success 'push sends the profiles under refs/perun/, no branch or note' '
	(cd a && perun push >../out) &&
	git --git-dir=remote.git for-each-ref --format="%(refname)" >refs &&
	printf "refs/heads/master\nrefs/perun/profiles\n" >expect && test_cmp expect refs &&
	git --git-dir=remote.git ls-tree -r --name-only refs/perun/profiles >tree &&
	test $(grep -c "^objects/" tree) = 3 && test $(grep -c "^index/" tree) = 2 &&
	test_grep "^perun-store$" tree &&
	git --git-dir=remote.git fsck --no-progress
'

test_expect_success 'a second push has nothing to send' '
	(cd a && perun push >../out) && test_grep "^push: up to date$" out
'

test_expect_success 'fetch in a clone brings them without changing the store' '
	git clone -q remote.git b && (cd b && perun init >/dev/null &&
	printf ".perun\n" >.git/info/exclude) &&
	store_snapshot b >before &&
	(cd b && perun fetch >../out) && test_grep "^fetch: the remote.s profiles are updated" out &&
	store_snapshot b >after && test_cmp before after &&
	git -C b rev-parse --verify -q refs/perun/remotes/origin/profiles
'

test_expect_success 'status and log tell fetched profiles from local ones' '
	(cd b && perun status >../out && perun log --format json >../log.json) &&
	test_grep "^Shared: 0 on a remote too, 0 local only, 2 remote only (perun pull takes them)$" out &&
	test $(grep -c "^  remote only: \[time\] time (.*) t[wh][or]e*\.perf [0-9a-f]\{12\}$" out) = 2 &&
	jq -c "[.minor_versions[].shared.remote_only]" log.json >counts &&
	echo "[2,1]" >expect && test_cmp expect counts &&
	(cd b && perun config --local set format.shortlog "%checksum:6% %shared%" >/dev/null &&
	 perun log --short >../out && perun config --local set format.shortlog \
	 "%checksum:6% (%stats%) %desc% %changes%" >/dev/null) &&
	test_grep "^[0-9a-f]\{8\} 0 both, 0 local, 2 remote$" out
'

test_expect_success 'pull takes them in: the same profiles, byte for byte' '
	(cd b && perun pull >../out && profiles >../b.profiles) &&
	test_grep "^pull: 3 profiles taken in (3 new objects)$" out &&
	test_cmp a.profiles b.profiles &&
	for o in $(cut -d" " -f2 b.profiles); do
		p=$(echo $o | sed "s|^..|&/|") &&
		cmp a/.perun/objects/$p b/.perun/objects/$p || return 1
	done &&
	(cd b && perun pull >../out) && test_grep "^pull: up to date$" out
'

test_expect_success 'after the pull both sides have them; a local one is local only' '
	(cd b && perun status --format json >../st.json && perun log >../out) &&
	jq -r "[.tracked[].shared] | join(\" \")" st.json >marks &&
	echo "both both" >expect && test_cmp expect marks &&
	test_grep "^Shared: 2 on a remote too, 0 local only, 0 remote only$" out &&
	(cd b && add_profile local-only 1.5 && perun status >../out) &&
	test_grep "^Shared: 2 on a remote too, 1 local only (perun push sends them), 0 remote only$" out
'

test_expect_success 'check uses pulled profiles as baselines' '
	(cd b && git checkout -q HEAD~1 && perun status --short >../out && git checkout -q master) &&
	test_grep "^1 tracked profiles (1 time)" out &&
	(cd b && add_profile slower 9.0 &&
	 test_exit_code 1 perun check --fail-on degradation head >../out) &&
	test_grep "Degradation" out
'

test_expect_success 'a plain path and a file:// URL work as remotes too' '
	git clone -q remote.git c && (cd c && perun init >/dev/null &&
	perun pull "$TRASH_DIRECTORY/remote.git" >../out && profiles >../c.profiles) &&
	test_cmp a.profiles c.profiles &&
	git clone -q remote.git d && (cd d && perun init >/dev/null &&
	perun pull "file://$TRASH_DIRECTORY/remote.git" >/dev/null && profiles >../d.profiles) &&
	test_cmp a.profiles d.profiles
'

test_expect_success 'share.remote of the config names the default remote' '
	(cd d && git remote add mirror ../remote.git && perun config --local set share.remote mirror &&
	 perun fetch >/dev/null &&
	 git rev-parse --verify -q refs/perun/remotes/mirror/profiles)
'

test_expect_success 'two machines pushing different profiles: both end up on the remote' '
	(cd a && add_profile four-a 4.0) &&
	(cd b && add_profile four-b 5.0 && perun push >/dev/null) &&
	(cd a && perun push >../out && profiles >../a.profiles) &&
	test_grep "^push: 3 profiles taken in (3 new objects)$" out &&
	(cd b && perun pull >/dev/null && profiles >../b.profiles) &&
	test $(wc -l <a.profiles) = 7 && test_cmp a.profiles b.profiles
'

test_expect_success 'a store made anew in the clone takes every profile in again' '
	(cd b && rm -rf .perun && perun init >/dev/null && perun pull >../out &&
	 profiles >../b.profiles) &&
	test_grep "^pull: 7 profiles taken in (7 new objects)$" out &&
	test_cmp a.profiles b.profiles
'

test_expect_success 'a profile removed locally is not removed from the remote' '
	(cd b && perun rm -m HEAD~1 0@i >/dev/null && perun push >/dev/null) &&
	git --git-dir=remote.git ls-tree -r --name-only refs/perun/profiles >tree &&
	test $(grep -c "^objects/" tree) = 7 &&
	git clone -q remote.git b2 && (cd b2 && perun init >/dev/null && perun pull >/dev/null &&
	profiles >../b2.profiles) && test_cmp a.profiles b2.profiles
'

test_expect_success 'four processes pushing at once: every profile once on the remote' '
	git init -q --bare race.git &&
	git -C a push -q ../race.git master &&
	for i in 1 2 3 4; do
		git clone -q race.git r$i &&
		(cd r$i && perun init >/dev/null && printf ".perun\n" >.git/info/exclude &&
		 for k in 1 2 3; do add_profile "r$i-$k" "$i.$k" || exit 1; done) || return 1
	done &&
	for i in 1 2 3 4; do
		(cd r$i && perun push >../push$i.out 2>../push$i.err; echo $? >../push$i.rc) &
	done && wait &&
	cat push*.rc | sort -u >rcs && echo 0 >expect && test_cmp expect rcs &&
	git clone -q race.git r5 && (cd r5 && perun init >/dev/null && perun pull >../out &&
	profiles >../r5.profiles) &&
	test_grep "^pull: 12 profiles taken in" out &&
	test $(cut -d" " -f3 r5.profiles | sort -u | wc -l) = 12 &&
	test $(wc -l <r5.profiles) = 12
'

test_expect_success 'four CI jobs: shards of one matrix collected and pushed at once' '
	git init -q --bare ci.git && git -C a push -q ../ci.git master &&
	for i in 1 2 3 4; do
		git clone -q ci.git ci$i &&
		(cd ci$i && perun init >/dev/null && printf ".perun\n" >.git/info/exclude &&
		 cat >.perun/local.yml <<-EOC
		vcs:
		  type: git
		  url: ../
		cmds: [/bin/true]
		workloads: [a, b, c, d, e]
		collectors:
		  - name: time
		    params: {repeat: 1, warmup: 0}
		profiles:
		  register_after_run: true
		EOC
		) || return 1
	done &&
	for i in 1 2 3 4; do
		(cd ci$i && perun run -m HEAD~1 -m HEAD --shard $i/4 matrix >../ci$i.run &&
		 perun push >../ci$i.push 2>&1; echo $? >../ci$i.rc) &
	done && wait &&
	cat ci*.rc | sort -u >rcs && echo 0 >expect && test_cmp expect rcs &&
	git clone -q ci.git ci5 && (cd ci5 && perun init >/dev/null && perun pull >../out &&
	perun check all >../check.out && profiles >../ci5.profiles) &&
	test_grep "^pull: 10 profiles taken in (10 new objects)$" out &&
	test $(wc -l <ci5.profiles) = 10 &&
	test $(cut -d" " -f1 ci5.profiles | sort | uniq -c | awk "{print \$1}" | sort -u) = 5 &&
	for c in $(git -C ci5 rev-list HEAD); do
		python3 "$TEST_SRCDIR/tests/helpers/pidx.py" read ci5/.perun/objects/$(echo $c | cut -c1-2)/$(echo $c | cut -c3-) |
			tail -n +2 | cut -d" " -f4 || return 1
	done | sort >workloads &&
	printf "a\na\nb\nb\nc\nc\nd\nd\ne\ne\n" >expect && test_cmp expect workloads
'

test_expect_success 'a push killed at random moments leaves the remote readable' '
	git init -q --bare killed.git && git -C a push -q ../killed.git master &&
	git clone -q killed.git k && (cd k && perun init >/dev/null &&
	printf ".perun\n" >.git/info/exclude) &&
	for round in 1 2 3 4 5 6; do
		(cd k && add_profile "done-$round" "1$round.0" && perun push >/dev/null &&
		 add_profile "killed-$round" "2$round.0") || return 1
		(cd k && exec perun push >/dev/null 2>&1) & pid=$!
		sleep 0.0$(( $(od -An -N1 -tu1 /dev/urandom) % 10 ))
		kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
		git --git-dir=killed.git fsck --no-progress 2>fsck.err || { cat fsck.err; return 1; }
	done &&
	rm -f k/.perun/lock &&
	git clone -q killed.git k2 && (cd k2 && perun init >/dev/null && perun pull >/dev/null &&
	profiles >../k2.profiles) &&
	for round in 1 2 3 4 5 6; do
		test_grep " done-$round.perf$" k2.profiles || return 1
	done &&
	(cd k && perun push >/dev/null) && (cd k2 && perun pull >/dev/null) &&
	test $(grep -c " killed-" k2.profiles) -le 6
'

test_expect_success 'a ref lock left on the remote by a killed push goes stale' '
	mkdir -p killed.git/refs/perun && : >killed.git/refs/perun/profiles.lock &&
	touch -d "1 minute ago" killed.git/refs/perun/profiles.lock &&
	(cd k && add_profile after-lock 31.0 && perun push >../out) &&
	! test -e killed.git/refs/perun/profiles.lock &&
	git --git-dir=killed.git ls-tree -r refs/perun/profiles >tree &&
	test $(grep -c "	objects/" tree) = $(cd k && profiles | wc -l)
'

test_expect_success 'ref locks a killed perun left in the project are removed' '
	(cd k && : >.git/refs/perun/profiles.lock &&
	 mkdir -p .git/refs/perun/remotes/origin &&
	 : >.git/refs/perun/remotes/origin/profiles.lock &&
	 add_profile after-local-locks 32.0 && perun push >/dev/null && perun pull >/dev/null &&
	 ! test -e .git/refs/perun/profiles.lock &&
	 ! test -e .git/refs/perun/remotes/origin/profiles.lock &&
	 profiles >../k.profiles) &&
	test_grep " after-local-locks.perf$" k.profiles
'

test_expect_success 'a remote that does not exist or cannot be reached: one line, store unchanged' '
	store_snapshot a >before &&
	(cd a && test_exit_code 2 perun push nope 2>../err) &&
	test_grep "^perun: no git remote .nope. (add it with: git remote add nope <url>)$" err &&
	(cd a && test_exit_code 3 perun fetch "$TRASH_DIRECTORY/missing.git" 2>../err) &&
	test_grep "^perun: cannot fetch from remote .*missing.git.: " err &&
	test $(wc -l <err) = 1 &&
	(cd a && test_exit_code 3 perun pull "file:///nonexistent/x.git" 2>../err) &&
	test $(wc -l <err) = 1 &&
	(cd a && test_exit_code 3 perun fetch http://127.0.0.1:9/x.git 2>../err) &&
	test_grep "^perun: cannot fetch from remote .http://127.0.0.1:9/x.git.: failed to connect" err &&
	(cd a && test_exit_code 3 perun push ssh://git@127.0.0.1:9/x.git 2>../err) &&
	test_grep "^perun: cannot fetch from remote .ssh://git@127.0.0.1:9/x.git.: failed to connect" err &&
	store_snapshot a >after && test_cmp before after
'

test_expect_success 'a remote that refuses the push: one line, store unchanged' '
	git clone -q remote.git worktree-remote &&
	(cd a && add_profile five 6.0) && store_snapshot a >before &&
	(cd a && test_exit_code 3 perun push ../worktree-remote 2>../err) &&
	test_grep "^perun: cannot push to remote .\.\./worktree-remote.: " err &&
	test $(wc -l <err) = 1 &&
	store_snapshot a >after && test_cmp before after
'

# Permissions bind no one under root.
if [ "$(id -u)" != 0 ]; then
test_expect_success 'a remote without write permission: one line, store unchanged' '
	git clone -q --mirror remote.git ro.git && chmod -R a-w ro.git &&
	store_snapshot a >before &&
	(cd a && test_exit_code 3 perun push ../ro.git 2>../err);
	rc=$?; chmod -R u+w ro.git; test $rc = 0 &&
	test_grep "^perun: cannot push to remote .\.\./ro\.git.: " err && test $(wc -l <err) = 1 &&
	store_snapshot a >after && test_cmp before after
'
fi

# text_blob <repo> <text>: the id of a blob of text written to repo.
text_blob() {
	printf "%s" "$2" | git --git-dir="$1" hash-object -w --stdin
}

test_expect_success 'a remote with a newer store format is refused' '
	git clone -q --mirror remote.git newer.git &&
	test_forge_profiles newer.git perun-store $(text_blob newer.git "perun-share 2") &&
	git clone -q remote.git e && (cd e && perun init >/dev/null) &&
	store_snapshot e >before &&
	(cd e && test_exit_code 3 perun pull ../newer.git 2>../err) &&
	test_grep "^perun: remote .\.\./newer\.git. holds profiles in store format 2, newer than format 1 of this perun: upgrade perun to use it$" err &&
	store_snapshot e >after && test_cmp before after &&
	! git -C e rev-parse --verify -q refs/perun/remotes/___newer_git/profiles
'

test_expect_success 'a corrupt profile object on the remote is refused, nothing taken' '
	git clone -q --mirror remote.git bad.git &&
	obj=$(git --git-dir=bad.git ls-tree -r --name-only refs/perun/profiles | grep "^objects/" | tail -1) &&
	test_forge_profiles bad.git "$obj" $(text_blob bad.git "not a profile") &&
	git clone -q remote.git f && (cd f && perun init >/dev/null) &&
	store_snapshot f >before &&
	(cd f && test_exit_code 3 perun pull ../bad.git 2>../err) &&
	test_grep "^perun: remote .\.\./bad\.git.: corrupt object, nothing was taken: " err &&
	test $(wc -l <err) = 1 &&
	store_snapshot f >after && test_cmp before after
'

test_expect_success 'a remote object that does not hash to its name is refused' '
	git clone -q --mirror remote.git swap.git &&
	git --git-dir=swap.git ls-tree -r refs/perun/profiles | grep "	objects/" >objs &&
	one=$(sed -n 1p objs | cut -f2) && other=$(sed -n 2p objs | cut -d" " -f3 | cut -f1) &&
	test_forge_profiles swap.git "$one" "$other" &&
	git clone -q remote.git g && (cd g && perun init >/dev/null) &&
	store_snapshot g >before &&
	(cd g && test_exit_code 3 perun pull ../swap.git 2>../err) &&
	test_grep "^perun: remote .\.\./swap\.git.: corrupt object, nothing was taken: profile object [0-9a-f]* does not match its SHA-1 (it hashes to [0-9a-f]*)$" err &&
	store_snapshot g >after && test_cmp before after
'

test_expect_success 'a remote index naming an object it lacks is refused' '
	git clone -q --mirror remote.git short.git &&
	obj=$(git --git-dir=short.git ls-tree -r --name-only refs/perun/profiles | grep "^objects/" | tail -1) &&
	GIT_INDEX_FILE="$TRASH_DIRECTORY/rm.idx" && export GIT_INDEX_FILE &&
	git --git-dir=short.git read-tree refs/perun/profiles &&
	git --git-dir=short.git rm -q --cached "$obj" &&
	commit=$(echo forged | git --git-dir=short.git commit-tree $(git --git-dir=short.git write-tree) -p refs/perun/profiles) &&
	git --git-dir=short.git update-ref refs/perun/profiles $commit && unset GIT_INDEX_FILE &&
	git clone -q remote.git h && (cd h && perun init >/dev/null) &&
	store_snapshot h >before &&
	(cd h && test_exit_code 3 perun pull ../short.git 2>../err) &&
	test_grep "^perun: remote .\.\./short\.git. lacks profile object [0-9a-f]* of [0-9a-f]*; nothing was taken$" err &&
	store_snapshot h >after && test_cmp before after
'

test_done
