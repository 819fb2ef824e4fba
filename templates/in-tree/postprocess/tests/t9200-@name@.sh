#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The @name@ postprocessor through perun postprocessby: the amounts scaled,
# the unit renamed, the run recorded in the profile, and bad options.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null 2>&1 || test_skip_all "jq is not installed"

# The instance on svs, the vcs plugin without dependencies.
test_expect_success 'setup: a perun instance and a small profile' '
	perun init --vcs-type svs proj >/dev/null &&
	cat >prof.perf <<-\EOF
	{"header": {"type": "time", "cmd": "prog", "args": "", "workload": "",
	            "units": {"time": "s"}},
	 "collector_info": {"name": "time", "params": {}}, "postprocessors": [],
	 "models": [],
	 "resources": {"main#0": {"amount": [3.0, 1.5]}, "helper#0": {"amount": [2]}},
	 "resource_type_map": {"main#0": {"uid": "main", "type": "time"},
	                       "helper#0": {"uid": "helper", "type": "time"}}}
	EOF
'

test_expect_success 'the amounts are multiplied by the default factor' '
	(cd proj && perun postprocessby -ot default ../prof.perf @name@ >out) &&
	test_grep "^Postprocessed .*/\.perun/jobs/default\.perf$" proj/out &&
	jq -c "[.resources[].amount], .header.units, .postprocessors" \
		proj/.perun/jobs/default.perf >actual &&
	cat >expect <<-\EOF &&
	[[3000,1500],[2000]]
	{"time":"s"}
	[{"name":"@name@","params":{"factor":1000}}]
	EOF
	test_cmp expect actual
'

test_expect_success '--factor and --unit' '
	(cd proj && perun postprocessby -ot half ../prof.perf @name@ -f 0.5 --unit hs >/dev/null) &&
	jq -c "[.resources[].amount], .header.units" proj/.perun/jobs/half.perf >actual &&
	printf "%s\n" "[[1.5,0.75],[1]]" "{\"time\":\"hs\"}" >expect &&
	test_cmp expect actual
'

test_expect_success 'a factor of 0 is an input error (exit 2), nothing stored' '
	(cd proj && test_exit_code 2 perun postprocessby -ot zero ../prof.perf @name@ -f 0) 2>err &&
	test_grep "@name@.*--factor must be a finite number other than 0, not 0" err &&
	test_must_fail test -e proj/.perun/jobs/zero.perf
'

test_done
