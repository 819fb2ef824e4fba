#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The @name@ version control backend through perun init --vcs-type, status
# and log: the one fixed version, and what it refuses.
. "$srcdir/tests/test-lib.sh"

id=0123456789abcdef0123456789abcdef01234567

test_expect_success 'perun init --vcs-type @name@ creates the project and instance' '
	perun init --vcs-type @name@ proj >out &&
	test_grep "^Initialized empty Perun instance in .*/proj/\.perun$" out &&
	test -d proj/.perun/objects &&
	test_grep "^  type: @name@$" proj/.perun/local.yml
'

test_expect_success 'perun status: the branch and the one version' '
	(cd proj && perun status) >out &&
	test_grep "^On major version main (minor version: $id)$" out &&
	test_grep "^Author: @name@ <@name@@localhost> 2026-01-01 00:00:00$" out
'

test_expect_success 'perun log: the one version' '
	(cd proj && perun log) >out &&
	test_grep "^Minor Version $id$" out &&
	test_grep "The one version of @name@" out
'

test_expect_success 'init refuses parameters, naming them (exit 2)' '
	test_exit_code 2 perun init --vcs-type @name@ --vcs-flag bare other 2>err &&
	test_grep "unknown @name@ init parameter .bare." err &&
	test_must_fail test -e other/.perun
'

test_expect_success 'another revision is not found' '
	(cd proj && test_must_fail perun log HEAD~1) 2>err &&
	test_grep "HEAD~1. is not a revision in " err
'

test_done
