#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun push, fetch and pull over git's smart HTTP (git-http-backend behind
# Basic auth): credentials come from git's credential helpers; a wrong or
# missing one gets one line; four machines pushing at once through
# receive-pack lose nothing.
. "$srcdir/tests/test-lib.sh"

BACKEND=/usr/lib/git-core/git-http-backend
test -x "$BACKEND" || test_skip_all "git-http-backend is needed for an HTTP remote"
command -v python3 >/dev/null || test_skip_all "python3 is needed for the HTTP server"

mkdir srv && git init -q --bare srv/r.git
python3 "$TEST_SRCDIR/tests/helpers/git-http-server.py" "$TRASH_DIRECTORY/srv" u secret port &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in 1 2 3 4 5 6 7 8 9 10; do test -s port && break; sleep 0.2; done
test -s port || test_skip_all "the HTTP server did not start"
URL="http://127.0.0.1:$(cat port)/r.git"

helper() {
	git config --global credential.helper "!f() { echo username=u; echo password=$1; }; f"
}

# add_profile <name> <amount>: register a time profile at HEAD as <name>.
add_profile() {
	test_time_profile "$2" "$(git rev-parse HEAD)" >".perun/jobs/$1.perf" &&
	perun add ".perun/jobs/$1.perf" >/dev/null
}

test_expect_success 'push over HTTP with the credential helper'"'"'s password' '
	helper secret && test_make_git_project a &&
	(cd a && git remote add origin "$URL" && git push -q origin master &&
	 perun init >/dev/null && printf ".perun\n" >.git/info/exclude &&
	 add_profile one 1.0 && perun push >../out) &&
	test_grep "^push: sent (" out &&
	git --git-dir=srv/r.git rev-parse --verify -q refs/perun/profiles
'

test_expect_success 'pull over HTTP in a clone takes the profile in' '
	git clone -q "$URL" b && (cd b && perun init >/dev/null && perun pull >../out) &&
	test_grep "^pull: 1 profile taken in (1 new object)$" out
'

test_expect_success 'a wrong password: one line, store unchanged' '
	helper wrong && store_snapshot b >before &&
	(cd b && test_exit_code 3 perun pull 2>../err) &&
	echo "perun: cannot fetch from remote '"'"'origin'"'"': authentication failed" >expect &&
	test_cmp expect err && store_snapshot b >after && test_cmp before after
'

test_expect_success 'no credentials at all: one line saying so' '
	git config --global --unset credential.helper &&
	(cd b && test_exit_code 3 perun fetch 2>../err) &&
	test_grep "^perun: cannot fetch from remote .origin.: authentication required, and neither git.s credential helpers nor an ssh agent gave credentials$" err &&
	test $(wc -l <err) = 1
'

test_expect_success 'four machines pushing at once over HTTP lose nothing' '
	helper secret &&
	for i in 1 2 3 4; do
		git clone -q "$URL" h$i &&
		(cd h$i && perun init >/dev/null && printf ".perun\n" >.git/info/exclude &&
		 add_profile h$i-a "$i.1" && add_profile h$i-b "$i.2") || return 1
	done &&
	for i in 1 2 3 4; do
		(cd h$i && perun push >../h$i.out 2>&1; echo $? >../h$i.rc) &
	done && wait &&
	cat h?.rc | sort -u >rcs && echo 0 >expect && test_cmp expect rcs &&
	git --git-dir=srv/r.git ls-tree -r --name-only refs/perun/profiles | grep -c "^objects/" >count &&
	echo 9 >expect && test_cmp expect count
'

test_done
