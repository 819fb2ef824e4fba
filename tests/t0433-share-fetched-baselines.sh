#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun check takes the profiles perun fetch brought as baselines, without
# taking them into the store (status and log still call them remote only);
# a corrupt fetched ref or object gets one line naming it, a failing exit
# and a store left as it was.
. "$srcdir/tests/test-lib.sh"

# add_profile <name> <amount>: register a time profile at HEAD as <name>.
add_profile() {
	test_time_profile "$2" "$(git rev-parse HEAD)" >".perun/jobs/$1.perf" &&
	perun add ".perun/jobs/$1.perf" >/dev/null
}

# clone_fetch <dir> <remote>: a clone of remote.git with a store that has
# fetched <remote> and registered a slower profile at HEAD.
clone_fetch() {
	git clone -q remote.git "$1" &&
	(cd "$1" && perun init >/dev/null && printf ".perun\n" >.git/info/exclude &&
	 add_profile slower 9.0 && perun fetch "$2" >/dev/null)
}

test_expect_success 'setup: a remote with a profile of the parent version only' '
	git init -q --bare remote.git &&
	test_make_git_project a &&
	(cd a && git remote add origin ../remote.git && git push -q origin master &&
	 perun init >/dev/null && printf ".perun\n" >.git/info/exclude &&
	 git checkout -q HEAD~1 && add_profile one 1.0 && git checkout -q master &&
	 perun push >/dev/null) &&
	git --git-dir=remote.git ls-tree -r --name-only refs/perun/profiles >tree &&
	test $(grep -c "^objects/" tree) = 1
'

test_expect_success 'without a fetch check head has no baseline' '
	git clone -q remote.git b &&
	(cd b && perun init >/dev/null && printf ".perun\n" >.git/info/exclude &&
	 add_profile slower 9.0 &&
	 test_exit_code 4 perun check --fail-on degradation head >../out 2>../err) &&
	test_grep "no baseline profiles for" err
'

test_expect_success 'after a fetch the fetched profile is the baseline' '
	(cd b && perun fetch >/dev/null &&
	 test_exit_code 1 perun check --fail-on degradation head >../out) &&
	test_grep "Degradation" out &&
	(cd b && test_exit_code 1 perun check --fail-on degradation all >../out) &&
	test_grep "Degradation" out
'

test_expect_success 'the fetched profile stays remote only, the store has no copy' '
	obj=$(grep "^objects/" tree | sed "s|^objects/||") &&
	! test -e "b/.perun/objects/$obj" &&
	(cd b && git checkout -q HEAD~1 && perun status >../out && git checkout -q master) &&
	test_grep "^Shared: 0 on a remote too, 0 local only, 1 remote only (perun pull takes them)$" out &&
	(cd b && perun log --format json >../log.json) &&
	jq -c "[.minor_versions[].shared.remote_only]" log.json >counts &&
	echo "[0,1]" >expect && test_cmp expect counts
'

test_expect_success 'check --format json names the fetched baseline as a pair' '
	(cd b && test_exit_code 1 perun check --format json --fail-on degradation head >../out.json) &&
	jq -e ".pairs | length >= 1" out.json >/dev/null
'

test_expect_success 'check worktree takes HEAD'"'"'s fetched profile as the baseline' '
	git init -q --bare wt.git &&
	mkdir w && (cd w && git init -q &&
	 printf "#!/bin/sh\nsleep 0.02\n" >run.sh && chmod +x run.sh &&
	 git add run.sh && git commit -q -m fast && git push -q ../wt.git master &&
	 perun init >/dev/null && printf ".perun\n" >.git/info/exclude &&
	 printf "vcs:\n  type: git\n  url: ../\ncmds: [./run.sh]\ncollectors:\n  - name: time\n    params: {repeat: 5, warmup: 0}\n" >../matrix.yml &&
	 cp ../matrix.yml .perun/local.yml &&
	 perun run matrix >/dev/null && perun add 0@p >/dev/null && perun push ../wt.git >/dev/null) &&
	git clone -q wt.git x &&
	(cd x && perun init >/dev/null && printf ".perun\n" >.git/info/exclude &&
	 cp ../matrix.yml .perun/local.yml &&
	 printf "#!/bin/sh\nsleep 0.3\n" >run.sh && perun run matrix >/dev/null &&
	 test_exit_code 4 perun check worktree --fail-on degradation >../out 2>../err &&
	 perun fetch >/dev/null &&
	 test_exit_code 1 perun check worktree --fail-on degradation >../out) &&
	test_grep "Degradation" out &&
	(cd x && perun status >../out) &&
	test_grep "^Shared: 0 on a remote too, 0 local only, 1 remote only" out
'

test_expect_success 'a corrupt fetched object: one line naming it, store unchanged' '
	git clone -q --mirror remote.git bad.git &&
	obj=$(grep "^objects/" tree) &&
	test_forge_profiles bad.git "$obj" $(printf "not a profile" | git --git-dir=bad.git hash-object -w --stdin) &&
	clone_fetch c ../bad.git && store_snapshot c >before &&
	(cd c && test_exit_code 3 perun check --fail-on degradation head >../out 2>../err) &&
	test_grep "^perun: fetched ref refs/perun/remotes/___bad_git/profiles: corrupt object: " err &&
	test $(wc -l <err) = 1 &&
	store_snapshot c >after && test_cmp before after
'

test_expect_success 'a fetched object that does not hash to its name is refused' '
	git clone -q --mirror remote.git swap.git &&
	(cd a && git checkout -q HEAD~1 && add_profile two 2.0 && git checkout -q master &&
	 perun push ../swap.git >/dev/null) &&
	git --git-dir=swap.git ls-tree -r refs/perun/profiles | grep "	objects/" >objs &&
	one=$(sed -n 1p objs | cut -f2) && other=$(sed -n 2p objs | cut -d" " -f3 | cut -f1) &&
	test_forge_profiles swap.git "$one" "$other" &&
	clone_fetch d ../swap.git && store_snapshot d >before &&
	(cd d && test_exit_code 3 perun check head >../out 2>../err) &&
	test_grep "^perun: fetched ref refs/perun/remotes/___swap_git/profiles: corrupt object: profile object [0-9a-f]* does not match its SHA-1 (it hashes to [0-9a-f]*)$" err &&
	store_snapshot d >after && test_cmp before after
'

test_expect_success 'a fetched ref naming a missing commit: one line naming it' '
	clone_fetch e origin && store_snapshot e >before &&
	git -C e update-ref -d refs/perun/remotes/origin/profiles &&
	mkdir -p e/.git/refs/perun/remotes/origin &&
	echo 0123456789abcdef0123456789abcdef01234567 >e/.git/refs/perun/remotes/origin/profiles &&
	(cd e && test_exit_code 3 perun check head >../out 2>../err) &&
	test_grep "^perun: fetched ref refs/perun/remotes/origin/profiles is unreadable: " err &&
	test $(wc -l <err) = 1 &&
	store_snapshot e >after && test_cmp before after
'

test_done
