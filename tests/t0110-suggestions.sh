#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A mistyped command, subcommand, option or plugin name gets the closest
# ones suggested, as git does; a word near nothing gets no suggestion.
. "$srcdir/tests/test-lib.sh"

# expect_error <message> <perun args...>: exit 2 and the first line of
# stderr is "perun: <message>".
expect_error() {
	msg=$1
	shift
	test_exit_code 2 perun "$@" >/dev/null 2>err &&
	echo "perun: $msg" >expect &&
	head -n 1 err >actual &&
	test_cmp expect actual
}

test_expect_success 'commands and subcommands' '
	expect_error "'"'"'stauts'"'"' is not a perun command; did you mean '"'"'status'"'"'? (see '"'"'perun --help'"'"')" stauts &&
	expect_error "'"'"'stat'"'"' is not a perun command; did you mean '"'"'status'"'"'? (see '"'"'perun --help'"'"')" stat &&
	expect_error "'"'"'hed'"'"' is not a '"'"'perun check'"'"' command; did you mean '"'"'head'"'"'? (see '"'"'perun check --help'"'"')" check hed &&
	expect_error "'"'"'xyzzy'"'"' is not a perun command (see '"'"'perun --help'"'"')" xyzzy
'

test_expect_success 'options, long and short' '
	expect_error "unknown option '"'"'--shrot'"'"'; did you mean '"'"'--short'"'"'?" status --shrot &&
	expect_error "unknown option '"'"'--shrot=1'"'"'; did you mean '"'"'--short'"'"'?" status --shrot=1 &&
	expect_error "unknown option '"'"'--nothing-like-it'"'"'" status --nothing-like-it &&
	expect_error "unknown option '"'"'-z'"'"'" status -z
'

test_expect_success 'plugin names' '
	test_time_profile >p.perf &&
	expect_error "no view plugin named '"'"'tablof'"'"'; did you mean '"'"'tableof'"'"'? (see '"'"'perun plugins list'"'"')" show p.perf tablof &&
	expect_error "no view plugin named '"'"'zzzzzz'"'"' (see '"'"'perun plugins list'"'"')" show p.perf zzzzzz
'

test_done
