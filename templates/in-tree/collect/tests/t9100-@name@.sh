#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The @name@ collector through perun collect: a profile with one wall time
# per run, and the errors of bad options and commands.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null 2>&1 || test_skip_all "jq is not installed"

# The instance on svs, the vcs plugin without dependencies: the test needs
# no other plugin that a build might leave out.
test_expect_success 'setup: a perun instance' '
	perun init --vcs-type svs proj >/dev/null
'

test_expect_success 'perun collect stores a profile with a wall time per run' '
	cd proj &&
	perun collect -c sleep -w 0.05 @name@ --repeat 3 >out 2>err &&
	test_cmp /dev/null err &&
	test_grep "^Collected profile .*/\.perun/jobs/@name@-.*\.perf$" out &&
	p=$(ls .perun/jobs/@name@-*.perf) &&
	jq -r ".collector_info.name, .header.type, .header.units.time" "$p" >actual &&
	printf "@name@\ntime\ns\n" >expect &&
	test_cmp expect actual &&
	jq -r ".resource_type_map[] | [.uid, .type, .subtype] | @tsv" "$p" >actual &&
	printf "sleep\ttime\treal\n" >expect &&
	test_cmp expect actual &&
	jq -e "[.resources[].order[]] == [1, 2, 3]" "$p" &&
	jq -e "[.resources[].amount[] | select(. >= 0.05 and . < 5)] | length == 3" "$p"
'

test_expect_success '--repeat 0 is an input error (exit 2)' '
	cd proj &&
	test_exit_code 2 perun collect -c true @name@ --repeat 0 2>err &&
	test_grep "option .--repeat. must be 1 or more, not 0" err
'

test_expect_success 'a missing or failing command fails the collection' '
	cd proj &&
	test_must_fail perun collect -c no-such-command-@name@ @name@ 2>err &&
	test_grep "cannot run command .no-such-command-@name@." err &&
	test_must_fail perun collect -c false @name@ 2>err &&
	test_grep "command .false. exited with status 1" err
'

test_done
