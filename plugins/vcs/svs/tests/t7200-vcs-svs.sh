#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The svs (single version system) vcs plugin.
. "$srcdir/tests/test-lib.sh"

drv="$TEST_BUILDDIR/plugins/vcs/svs/tests/svs-test"
# The one version's id is the SHA-1 of this phrase (see README.md).
svs_id=$(printf %s "perun single version system" | sha1sum | cut -d" " -f1)

test_expect_success 'descriptor is a valid vcs plugin' '
	"$drv" describe >out &&
	test_grep "^svs 1\.0 " out
'

test_expect_success 'init creates the directory, and accepts an existing one' '
	"$drv" init project/nested &&
	test -d project/nested &&
	"$drv" init project &&
	test_must_fail test -e project/.git
'

test_expect_success 'init takes no parameters' '
	test_exit_code 1 "$drv" init other bare 2>err &&
	test_grep "^error 2: unknown svs init parameter .bare.$" err &&
	test_must_fail test -e other
'

test_expect_success 'open fails on a missing path, naming it' '
	test_exit_code 1 "$drv" no/such head 2>err &&
	test_grep "^error 3: cannot open .no/such.: " err
'

test_expect_success 'HEAD, master, the id and its prefixes name the one version' '
	for rev in HEAD master - $svs_id $(echo $svs_id | cut -c1-4) \
		$(echo $svs_id | cut -c1-12 | tr a-f A-F); do
		echo $svs_id >>expect &&
		"$drv" project rev-parse "$rev" >>actual || return 1
	done &&
	test_cmp expect actual
'

test_expect_success 'anything else is not a revision' '
	for rev in HEAD~1 "$(echo $svs_id | cut -c1-3)" 0000000000 "${svs_id}0" \
		feature ""; do
		test_exit_code 1 "$drv" project rev-parse "$rev" 2>err &&
		test_grep "^error 3: .$rev. is not a revision in project " err ||
		return 1
	done
'

test_expect_success 'the head is master and it is never dirty' '
	echo change >project/file &&
	"$drv" project head dirty >actual &&
	printf "master\nclean\n" >expect &&
	test_cmp expect actual
'

# What info prints for the version of directory $1 as user $2.
svs_info() {
	printf "%s\t%s\t%s\t%s\t\nSingleton version" "$svs_id" \
		"$(date -d "@$(stat -c %Z "$1")" "+%Y-%m-%d %H:%M:%S")" \
		"$2" "$2@$(uname -n)"
}

test_expect_success 'info: the user, user@host, the ctime of the path in local time' '
	svs_info project alice >expect &&
	LOGNAME=alice "$drv" project info HEAD >actual &&
	test_cmp expect actual &&
	TZ=XYZ-5:30 svs_info project alice >expect &&
	TZ=XYZ-5:30 LOGNAME=alice "$drv" project info master >actual &&
	test_cmp expect actual
'

test_expect_success 'info falls back from the environment to the password database' '
	svs_info project "$(id -un)" >expect &&
	(unset LOGNAME USER LNAME USERNAME && "$drv" project info -) >actual &&
	test_cmp expect actual &&
	svs_info project bob >expect &&
	(unset LOGNAME && USER=bob "$drv" project info -) >actual &&
	test_cmp expect actual
'

test_expect_success 'walk yields the one version and stops' '
	{ svs_info project carol | head -1; } >expect &&
	LOGNAME=carol "$drv" project walk HEAD >actual &&
	test_cmp expect actual &&
	LOGNAME=carol "$drv" project walk-n HEAD:1 >actual &&
	test_cmp expect actual &&
	test_exit_code 1 "$drv" project walk HEAD~1 2>err &&
	test_grep "^error 3: .HEAD~1. is not a revision" err
'

test_expect_success 'save, checkout and restore change nothing' '
	ls -la project >before &&
	"$drv" project save checkout HEAD checkout $svs_id restore dirty >actual &&
	echo clean >expect &&
	test_cmp expect actual &&
	ls -la project >after &&
	test_cmp before after &&
	test_exit_code 1 "$drv" project checkout HEAD~2 2>err &&
	test_grep "^error 3: .HEAD~2. is not a revision" err
'

test_done
