#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# eto on self-made trace profiles as our trace collector writes them:
# exclusive times in the unit the header names (us), the collector's
# !ProcessResource! records left out, no Total record of a change under
# 5%, and a +0.3% change of the dominant function (an outlier among a
# handful) kept from the gate by the core's weighing.  No shared data.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null || test_skip_all "jq is not installed"

# prof <file> <exclusive us of f> <of g> <of h>: one run of prog, f
# called 10 times, g and h 5 times; amounts equal the exclusive times.
prof() {
	python3 - "$@" <<-'PY'
	import json, sys
	out, times = sys.argv[1], dict(zip("fgh", map(float, sys.argv[2:5])))
	calls = {"f": 10, "g": 5, "h": 5}
	res, tmap = {}, {}
	for i, fn in enumerate("fgh"):
	    each = times[fn] / calls[fn]
	    key = fn + "#0"
	    tmap[key] = {"uid": fn, "type": "mixed", "subtype": "time delta",
	                 "location": "prog"}
	    res[key] = {"amount": [each] * calls[fn], "exclusive": [each] * calls[fn]}
	tmap["!ProcessResource!#0"] = {"uid": "!ProcessResource!", "type": "mixed",
	                               "location": "prog"}
	res["!ProcessResource!#0"] = {"amount": [0], "exclusive": [0]}
	json.dump({"header": {"type": "mixed", "cmd": "prog", "args": "", "workload": "",
	                      "units": {"mixed(time delta)": "us", "exclusive": "us"}},
	           "collector_info": {"name": "trace", "params": {}},
	           "postprocessors": [], "models": [], "origin": "",
	           "resources": res, "resource_type_map": tmap}, open(out, "w"))
	PY
}

test_expect_success 'set up a project checking with eto' '
	git init -q && git commit -q --allow-empty -m init &&
	perun init >/dev/null && cat >>.perun/local.yml <<-EOC &&
	degradation:
	  strategies:
	    - method: eto
	EOC
	prof base.perf 110000 5000 4000 &&
	prof creep.perf 110330 5000 4000 &&
	prof slow.perf 220000 5000 4000
'

test_expect_success 'exclusive microseconds are shown as milliseconds' '
	perun check profiles base.perf slow.perf --format json >out.json &&
	jq -e "[.verdicts[] | select(.location == \"f\")][0] |
		.from == \"110.0\" and .to == \"220.0\"" out.json
'

test_expect_success 'a profile against itself: nothing reported, no pseudo resource' '
	perun check profiles base.perf base.perf --fail-on maybe --format json >out.json &&
	jq -e ".changes == [] and
		([.verdicts[] | select(.method == \"eto\" and (.location | startswith(\"!\")))] == [])" out.json
'

test_expect_success '+0.3% of the dominant function fails no gate' '
	perun check profiles base.perf creep.perf --fail-on degradation >out &&
	test_grep "^no changes found$" out
'

test_expect_success 'a function twice as slow is found and fails the gate' '
	test_exit_code 1 perun check profiles base.perf slow.perf --fail-on degradation >out &&
	test_grep "^at f:$" out && test_grep "Degradation" out
'

test_done
