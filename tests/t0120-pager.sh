#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Long output is paged on a terminal as general.paging says (Python
# Perun's values: always, only-log, only-status, never; ours: auto, the
# default, pages log, status, check, show and showdiff as git does), never when
# stdout is no terminal or --no-pager is given.  script(1) gives perun a
# terminal; the pager is a command that records what it was given.
. "$srcdir/tests/test-lib.sh"

command -v script >/dev/null || test_skip_all "script(1) is not installed"

# on_tty <perun args...>: run perun with a terminal as stdout.
on_tty() {
	script -qec "perun $*" /dev/null >/dev/null 2>&1
}

test_expect_success 'setup: an instance with one version, two profiles' '
	git init -q proj && (cd proj && git commit -q --allow-empty -m v1 &&
	perun init >/dev/null) &&
	test_time_profile 1.0 >a.perf && test_time_profile 3.0 >b.perf
'

test_expect_success 'log is paged on a terminal by default (auto)' '
	(cd proj && rm -f ../paged && PAGER="cat >../paged" on_tty log &&
	 test_grep "^Minor Version " ../paged)
'

test_expect_success 'status, show and check are paged by default too' '
	(cd proj && rm -f ../paged &&
	 PAGER="cat >../paged" on_tty status && test_grep "^On major version" ../paged &&
	 rm ../paged && PAGER="cat >../paged" on_tty show ../a.perf tableof resources &&
	 test_grep "main" ../paged &&
	 rm ../paged && PAGER="cat >../paged" on_tty check head && test -e ../paged)
'

test_expect_success 'status, show and check are not paged with only-log' '
	(cd proj && perun config --local set general.paging only-log && rm -f ../paged &&
	 PAGER="cat >../paged" on_tty status && test ! -e ../paged &&
	 PAGER="cat >../paged" on_tty show ../a.perf tableof resources &&
	 test ! -e ../paged &&
	 PAGER="cat >../paged" on_tty check head && test ! -e ../paged)
'

test_expect_success '--no-pager and a stdout that is no terminal page nothing' '
	(cd proj && rm -f ../paged &&
	 PAGER="cat >../paged" on_tty --no-pager log && test ! -e ../paged &&
	 PAGER="cat >../paged" perun log >out && test ! -e ../paged &&
	 test_grep "^Minor Version " out)
'

test_expect_success 'always pages status and check; PERUN_PAGER wins over PAGER' '
	(cd proj && perun config --local set general.paging always &&
	 rm -f ../paged ../other &&
	 PAGER="cat >../paged" on_tty status && test_grep "^On major version" ../paged &&
	 rm -f ../paged &&
	 PAGER="cat >../paged" on_tty check head && test_grep "^\[Checking version" ../paged &&
	 PERUN_PAGER="cat >../other" PAGER="cat >../paged" on_tty log &&
	 test_grep "^Minor Version " ../other)
'

test_expect_success 'always pages show and check profiles, not with --no-pager' '
	(cd proj && rm -f ../paged &&
	 PAGER="cat >../paged" on_tty show ../a.perf tableof resources &&
	 test_grep "^ *amount  *snapshots  *type  *uid" ../paged &&
	 rm -f ../paged &&
	 PAGER="cat >../paged" on_tty showdiff ../a.perf ../b.perf table &&
	 test -s ../paged &&
	 rm -f ../paged &&
	 PAGER="cat >../paged" on_tty check profiles ../a.perf ../b.perf &&
	 test_grep "^\[Checking two compatible profiles\]" ../paged &&
	 rm -f ../paged &&
	 PAGER="cat >../paged" on_tty --no-pager show ../a.perf tableof resources &&
	 test ! -e ../paged &&
	 PAGER="cat >../paged" perun show ../a.perf tableof resources >out &&
	 test ! -e ../paged && test_grep "main" out)
'

test_expect_success 'never pages nothing' '
	(cd proj && perun config --local set general.paging never && rm -f ../paged &&
	 PAGER="cat >../paged" on_tty log && test ! -e ../paged)
'

test_done
