#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The git vcs plugin against real repositories, compared with git itself.
. "$srcdir/tests/test-lib.sh"

drv="$TEST_BUILDDIR/plugins/vcs/git/tests/git-test"
# Discovery must not escape the trash directory into a surrounding checkout.
GIT_CEILING_DIRECTORIES="$TRASH_DIRECTORY"
export GIT_CEILING_DIRECTORIES
DATE_FMT='format-local:%Y-%m-%d %H:%M:%S'

# commit_at <unix time> <message>: an empty commit at a fixed date.
commit_at() {
	GIT_COMMITTER_DATE="@$1 +0000" GIT_AUTHOR_DATE="@$1 +0000" \
		git commit -q --allow-empty -m "$2"
}

# Our walk/info line format, written by git.
git_lines() {
	git log --date="$DATE_FMT" --format='%H%x09%cd%x09%an%x09%ae%x09%P' "$@"
}

# What info prints: the line above, then the raw message.
# git_commit_id <rev>: the commit a revision names (":/text" takes no suffix).
git_commit_id() {
	case $1 in
	:/*) git rev-parse --verify "$1" ;;
	*) git rev-parse --verify "$1^{commit}" ;;
	esac
}

git_info() {
	id=$(git_commit_id "$1") &&
	git_lines -1 --no-walk "$id" &&
	git cat-file commit "$id" | sed '1,/^$/d'
}

# A history with branches, merges, equal timestamps, clock skew and tags.
test_expect_success 'setup a repository with history' '
	git init -q repo && cd repo &&
	T=1700000000 &&
	echo one >prog.c && echo keep >other.c && mkdir sub &&
	echo s >sub/file && git add . && commit_at $T "root commit" &&
	git checkout -q -b feature &&
	echo f1 >feature.c && git add feature.c && commit_at $T "feature one" &&
	commit_at $T "feature two" &&
	git checkout -q master &&
	echo two >prog.c && git add prog.c && commit_at $T "master two" &&
	commit_at $((T - 100)) "skewed into the past" &&
	GIT_AUTHOR_NAME="Other Author" GIT_AUTHOR_EMAIL="other@example.org" \
		commit_at $((T + 10)) "by another author" &&
	GIT_COMMITTER_DATE="@$((T + 20)) +0000" GIT_AUTHOR_DATE="@$((T + 20)) +0000" \
		git merge -q --no-edit feature &&
	git tag -a -m "release one" v1.0 &&
	git tag light HEAD~1 &&
	git checkout -q -b side HEAD~2 &&
	commit_at $((T + 30)) "side one" &&
	echo three >prog.c && git add prog.c &&
	GIT_COMMITTER_DATE="@$((T + 40)) +0000" GIT_AUTHOR_DATE="@$((T + 40)) +0000" \
		git commit -q -F - <<-\EOF &&
	side two: a longer message

	with a body over
	several lines.
	EOF
	git checkout -q master &&
	GIT_COMMITTER_DATE="@$((T + 50)) +0000" GIT_AUTHOR_DATE="@$((T + 50)) +0000" \
		git merge -q --no-edit -X theirs side &&
	for i in 1 2 3; do commit_at $((T + 60 + i)) "tip $i" || return 1; done &&
	test $(git rev-list --count HEAD) -ge 12 &&
	# Scratch files of the tests below stay out of git status.
	printf "%s\n" expect actual err out before after "stashes*" target "*-ids" \
		>.git/info/exclude
'

test_expect_success 'descriptor is a valid vcs plugin' '
	"$drv" describe >out &&
	test_grep "^git 1\.0 " out
'

test_expect_success 'rev_parse agrees with git rev-parse' '
	cd repo &&
	: >expect && : >actual &&
	for rev in HEAD HEAD~1 HEAD~3 HEAD~3^2 HEAD~3^2~1 master feature side \
		light v1.0 $(git rev-parse --short HEAD~2) $(git rev-parse HEAD~4) \
		"HEAD@{0}" ":/feature one"; do
		git_commit_id "$rev" >>expect &&
		"$drv" . rev-parse "$rev" >>actual || return 1
	done &&
	test_cmp expect actual
'

test_expect_success 'a NULL revision means HEAD' '
	cd repo &&
	git rev-parse HEAD >expect &&
	"$drv" . rev-parse - >actual &&
	test_cmp expect actual
'

test_expect_success 'the repository is discovered from a subdirectory' '
	cd repo &&
	git rev-parse HEAD~2 >expect &&
	"$drv" sub rev-parse HEAD~2 >actual &&
	test_cmp expect actual
'

test_expect_success 'an unknown revision is an error naming it' '
	cd repo &&
	test_exit_code 1 "$drv" . rev-parse no-such-rev 2>err &&
	echo "error 3: '"'"'no-such-rev'"'"' is not a revision in $TRASH_DIRECTORY/repo" >expect &&
	test_cmp expect err &&
	test_exit_code 1 "$drv" . info HEAD~100 2>err &&
	test_grep "^error 3: .HEAD~100. is not a revision" err &&
	test_exit_code 1 "$drv" . walk "bad..spec..." 2>err &&
	test_grep "^error 3: " err
'

test_expect_success 'a revision that is not a commit is an error' '
	cd repo &&
	test_exit_code 1 "$drv" . rev-parse HEAD:prog.c 2>err &&
	test_grep "^error 2: .HEAD:prog.c. is not a commit in " err
'

test_expect_success 'a directory outside any repository is an error naming it' '
	mkdir plain &&
	test_exit_code 1 "$drv" plain head 2>err &&
	test_grep "^error 3: .plain. is not in a git repository" err &&
	test_exit_code 1 "$drv" no/such/dir head 2>err &&
	test_grep "^error 3: .no/such/dir. is not in a git repository" err
'

test_expect_success 'info agrees with git log, in local time' '
	cd repo &&
	: >expect && : >actual &&
	for rev in HEAD HEAD^ HEAD~3 "HEAD~3^2" ":/side two" ":/another author" \
		$(git rev-list --max-parents=0 HEAD); do
		git_info "$rev" >>expect &&
		TZ=XYZ-5:30 git_info "$rev" >>expect &&
		"$drv" . info "$rev" >>actual &&
		TZ=XYZ-5:30 "$drv" . info "$rev" >>actual || return 1
	done &&
	test_cmp expect actual &&
	test_grep "Other Author	other@example.org" actual &&
	test_grep "^several lines\.$" actual
'

test_expect_success 'walk follows git rev-list order' '
	cd repo &&
	: >expect && : >actual &&
	for rev in HEAD feature side v1.0 HEAD~3; do
		git_lines "$rev" >>expect &&
		"$drv" . walk "$rev" >>actual || return 1
	done &&
	test_cmp expect actual &&
	git rev-list HEAD >expect-ids &&
	"$drv" . walk HEAD | cut -f1 >actual-ids &&
	test_cmp expect-ids actual-ids
'

test_expect_success 'walk stops when the callback says so' '
	cd repo &&
	git_lines -3 HEAD >expect &&
	"$drv" . walk-n HEAD:3 >actual &&
	test_cmp expect actual &&
	git_lines -1 side >expect &&
	"$drv" . walk-n side:1 >actual &&
	test_cmp expect actual
'

test_expect_success 'major head is the branch, or the id when detached' '
	cd repo &&
	"$drv" . head >actual &&
	echo master >expect &&
	test_cmp expect actual &&
	git checkout -q feature && "$drv" . head >actual &&
	echo feature >expect &&
	test_cmp expect actual &&
	git checkout -q --detach HEAD~1 && "$drv" . head >actual &&
	git rev-parse HEAD >expect &&
	test_cmp expect actual &&
	git checkout -q master
'

test_expect_success 'an empty repository has a head but no revisions' '
	git init -q -b trunk empty &&
	echo trunk >expect &&
	"$drv" empty head >actual &&
	test_cmp expect actual &&
	test_exit_code 1 "$drv" empty rev-parse HEAD 2>err &&
	test_grep "^error 3: .HEAD. is not a revision" err &&
	"$drv" empty dirty >actual && echo clean >expect && test_cmp expect actual
'

# is_dirty must say "dirty" exactly when git sees tracked changes.
check_dirty() {
	if test -n "$(git status --porcelain --untracked-files=no)"
	then echo dirty; else echo clean; fi >expect &&
	"$drv" . dirty >actual &&
	test_cmp expect actual
}

test_expect_success 'is_dirty ignores untracked files like GitPython' '
	cd repo &&
	check_dirty && grep clean actual &&
	echo new >untracked.txt && check_dirty && grep clean actual &&
	rm untracked.txt
'

test_expect_success 'is_dirty sees work tree, index and deletion changes' '
	cd repo &&
	echo change >>other.c && check_dirty && grep dirty actual &&
	git add other.c && check_dirty && grep dirty actual &&
	git reset -q --hard &&
	rm other.c && check_dirty && grep dirty actual &&
	git checkout -q other.c &&
	echo added >added.c && git add added.c && check_dirty && grep dirty actual &&
	git rm -q --cached added.c && rm added.c &&
	check_dirty && grep clean actual
'

# A snapshot of everything save/restore must give back exactly.
snapshot() {
	git rev-parse --abbrev-ref HEAD &&
	git rev-parse HEAD &&
	git status --porcelain &&
	git diff --cached &&
	git diff &&
	cat prog.c other.c
}

make_mess() {
	echo staged >>prog.c && git add prog.c &&
	echo unstaged >>prog.c &&
	echo only-unstaged >>other.c &&
	echo brand-new >new.c && git add new.c &&
	echo not-tracked >untracked.txt &&
	git rm -q sub/file
}

test_expect_success 'save, checkout and restore give back a dirty branch exactly' '
	cd repo &&
	make_mess &&
	snapshot >before &&
	git stash list >stashes-before &&
	git rev-parse HEAD~5 >target &&
	"$drv" . save checkout HEAD~5 head dirty restore head >actual &&
	{ cat target && echo clean && echo master; } >expect &&
	test_cmp expect actual &&
	snapshot >after &&
	test_cmp before after &&
	git stash list >stashes-after &&
	test_cmp stashes-before stashes-after &&
	test "$(cat untracked.txt)" = not-tracked
'

test_expect_success 'save and restore keep a detached head detached' '
	cd repo &&
	git stash -q && git checkout -q --detach HEAD~2 && git stash pop -q --index &&
	snapshot >before &&
	"$drv" . save checkout side restore head >actual &&
	git rev-parse HEAD >expect &&
	test_cmp expect actual &&
	snapshot >after &&
	test_cmp before after &&
	git stash -q && git checkout -q master && git stash pop -q --index
'

test_expect_success 'save and restore on a clean tree stash nothing' '
	cd repo &&
	git stash -q && test -n "$(git stash list)" &&
	git stash list >stashes-before &&
	"$drv" . save checkout feature head restore head >actual &&
	printf "feature\nmaster\n" >expect &&
	test_cmp expect actual &&
	git stash list >stashes-after &&
	test_cmp stashes-before stashes-after &&
	git stash pop -q --index
'

test_expect_success 'restore finds its own stash under a newer one' '
	cd repo &&
	snapshot >before &&
	git stash list >stashes-before &&
	"$drv" . save sh "echo other >>other.c && git stash -q" restore &&
	snapshot >after &&
	test_cmp before after &&
	git stash list >stashes-after &&
	test $(wc -l <stashes-after) = $(($(wc -l <stashes-before) + 1)) &&
	git stash drop -q &&
	git stash list >stashes-after &&
	test_cmp stashes-before stashes-after
'

test_expect_success 'restore without save, and saving twice, are errors' '
	cd repo &&
	test_exit_code 1 "$drv" . restore 2>err &&
	test_grep "^error 2: no saved state of $TRASH_DIRECTORY/repo to restore" err &&
	snapshot >before &&
	test_exit_code 1 "$drv" . save save 2>err &&
	test_grep "^error 2: the state of .* is already saved" err &&
	git stash pop -q --index &&
	snapshot >after &&
	test_cmp before after
'

test_expect_success 'restore reports a stash that was dropped meanwhile' '
	git init -q dropped && cd dropped &&
	echo a >f && git add f && git commit -q -m a &&
	echo b >f &&
	test_exit_code 1 "$drv" . save sh "git stash drop -q" restore 2>err &&
	test_grep "^error 1: the saved changes of $TRASH_DIRECTORY/dropped (stash [0-9a-f]*) are gone" err
'

test_expect_success 'a conflicting restore keeps the changes in the stash' '
	git init -q conflict && cd conflict &&
	echo a >f && git add f && git commit -q -m a &&
	echo mine >f &&
	test_exit_code 1 "$drv" . save sh "echo theirs >f && git commit -qam b" restore 2>err &&
	test_grep "^error 1: the saved changes of $TRASH_DIRECTORY/conflict conflict with its head; they are kept in stash [0-9a-f]*$" err &&
	test "$(git status --porcelain --untracked-files=no)" = "UU f" &&
	git stash show -p | test_grep "^+mine" &&
	test "$(git log -1 --format=%s)" = b
'

test_expect_success 'clean the work tree for the checkout tests' '
	cd repo &&
	git reset -q --hard && rm -f untracked.txt &&
	test -z "$(git status --porcelain)"
'

test_expect_success 'checkout detaches at a revision, and attaches to a branch' '
	cd repo &&
	git rev-parse HEAD~2 >expect &&
	"$drv" . checkout HEAD~2 head >actual &&
	test_cmp expect actual &&
	git rev-parse HEAD >actual &&
	test_cmp expect actual &&
	test_must_fail git symbolic-ref -q HEAD &&
	"$drv" . checkout side head >actual &&
	echo side >expect &&
	test_cmp expect actual &&
	test "$(git symbolic-ref HEAD)" = refs/heads/side &&
	git diff --quiet side &&
	"$drv" . checkout HEAD head >actual &&
	test_cmp expect actual &&
	test "$(git symbolic-ref HEAD)" = refs/heads/side &&
	"$drv" . checkout master
'

test_expect_success 'checkout refuses to clobber local changes' '
	cd repo &&
	git checkout -q master &&
	test_must_fail git diff --quiet HEAD~5 HEAD -- prog.c &&
	echo local >>prog.c &&
	snapshot >before &&
	test_exit_code 1 "$drv" . checkout HEAD~5 2>err &&
	test_grep "^error 2: cannot check out .HEAD~5. in $TRASH_DIRECTORY/repo: local changes to .prog.c. would be overwritten$" err &&
	snapshot >after &&
	test_cmp before after &&
	git checkout -q prog.c
'

test_expect_success 'checkout refuses to overwrite an untracked file' '
	cd repo &&
	git checkout -q --detach "HEAD~3^2" &&
	test_must_fail git cat-file -e HEAD:feature.c &&
	echo mine >feature.c &&
	test_exit_code 1 "$drv" . checkout master 2>err &&
	test_grep "untracked file .feature.c. would be overwritten" err &&
	test "$(cat feature.c)" = mine &&
	rm feature.c && git checkout -q master
'

test_expect_success 'checkout carries local changes that do not conflict' '
	cd repo &&
	echo local >>other.c &&
	git diff --quiet HEAD~1 HEAD -- other.c &&
	"$drv" . checkout HEAD~1 &&
	git diff --name-only >actual &&
	echo other.c >expect &&
	test_cmp expect actual &&
	git checkout -q other.c && git checkout -q master
'

test_expect_success 'init creates a repository' '
	"$drv" init fresh/nested &&
	test "$(git -C fresh/nested rev-parse --is-inside-work-tree)" = true &&
	test "$(git -C fresh/nested rev-parse --show-toplevel)" = "$TRASH_DIRECTORY/fresh/nested"
'

test_expect_success 'init leaves an existing repository alone' '
	git -C repo rev-parse --abbrev-ref HEAD >expect &&
	(cd repo/.git && find . -type f | sort | xargs sha1sum) >before &&
	"$drv" init repo initial-branch=other bare &&
	(cd repo/.git && find . -type f | sort | xargs sha1sum) >after &&
	test_cmp before after &&
	git -C repo rev-parse --abbrev-ref HEAD >actual &&
	test_cmp expect actual
'

test_expect_success 'init honours bare, initial-branch and separate-git-dir' '
	"$drv" init bare.git bare &&
	test "$(git -C bare.git rev-parse --is-bare-repository)" = true &&
	"$drv" init work initial-branch=trunk separate_git_dir=meta.git &&
	test -f work/.git &&
	test "$(git -C work rev-parse --git-dir)" = "$TRASH_DIRECTORY/meta.git" &&
	test "$(git -C work symbolic-ref HEAD)" = refs/heads/trunk &&
	"$drv" work head >actual && echo trunk >expect && test_cmp expect actual
'

test_expect_success 'init rejects unknown or bad parameters and creates nothing' '
	test_exit_code 1 "$drv" init bad1 color=blue 2>err &&
	test_grep "^error 2: unknown git init parameter .color=blue.$" err &&
	test_exit_code 1 "$drv" init bad2 bare=maybe 2>err &&
	test_grep "^error 2: invalid value in git init parameter .bare=maybe.$" err &&
	test_exit_code 1 "$drv" init bad3 bare separate-git-dir=x 2>err &&
	test_grep "cannot be combined" err &&
	test_must_fail test -e bad1 &&
	test_must_fail test -e bad2 &&
	test_must_fail test -e bad3
'

test_expect_success 'a failed init reports why and cleans up' '
	echo file >blocker &&
	test_exit_code 1 "$drv" init blocker/repo 2>err &&
	test_grep "^error 1: cannot create git repository at .blocker/repo." err &&
	test -f blocker
'

test_done
