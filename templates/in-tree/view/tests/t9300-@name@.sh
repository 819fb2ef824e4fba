#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The @name@ view through perun show: the uid totals of a small profile,
# --limit, and its errors as perun reports them.
. "$srcdir/tests/test-lib.sh"

test_expect_success 'setup: a small profile' '
	cat >prof.perf <<-\EOF
	{"header": {"type": "time", "cmd": "prog", "args": "", "workload": "",
	            "units": {"time": "s"}},
	 "collector_info": {"name": "time", "params": {}}, "postprocessors": [],
	 "models": [],
	 "resources": {"main#0": {"amount": [3.0, 1.5]}, "helper#0": {"amount": [0.5]}},
	 "resource_type_map": {"main#0": {"uid": "main", "type": "time"},
	                       "helper#0": {"uid": "helper", "type": "time"}}}
	EOF
'

test_expect_success 'perun plugins inspect knows it' '
	perun plugins inspect @name@ >out &&
	test_grep "^kind:    view$" out &&
	test_grep -e "^  -l, --limit <n> " out
'

test_expect_success 'perun show: the uids, largest amount first' '
	perun show prof.perf @name@ >actual &&
	printf "%-30s %8s %14s\n" uid count amount main 2 4.5 helper 1 0.5 >expect &&
	test_cmp expect actual
'

test_expect_success '--limit keeps the largest' '
	perun show prof.perf @name@ --limit 1 >actual &&
	printf "%-30s %8s %14s\n" uid count amount main 2 4.5 >expect &&
	test_cmp expect actual
'

test_expect_success 'a negative --limit is an input error (exit 2)' '
	test_exit_code 2 perun show prof.perf @name@ --limit -1 2>err &&
	echo "perun: view '\''@name@'\'': --limit must not be negative (got -1)" >expect &&
	test_cmp expect err
'

test_done
