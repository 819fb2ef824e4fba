#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bclass through perun check profiles on small bounds profiles: classes
# that rise and fall, loops paired in source order when lines move, loops
# and functions on one side only, and resources that are no bounds.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null 2>&1 || test_skip_all "jq is not installed"

# res <function> <line> <type> <class>: one bounds resource, as JSON members.
res() {
	printf '"f.c:%s:%s:5#0": {"uid": {"source": "f.c", "function": "%s", "line": %s, "column": 5}, "type": "%s", "bound": "b", "class": "%s", "time": "0.0"}' \
		"$1" "$2" "$1" "$2" "$3" "$4"
}

# prof <file> <resource>...: a bounds profile of these resources.
prof() {
	out=$1
	shift
	map=$(IFS=,; echo "$*")
	keys=$(for r in "$@"; do printf '%s\n' "$r"; done | sed 's/^\("[^"]*"\).*/\1: {}/' | paste -sd, -)
	cat >"$out" <<-EOF
	{"header": {"type": "time", "cmd": "c", "workload": "", "units": {"bound": "iterations"}},
	 "collector_info": {"name": "bounds", "params": {}}, "postprocessors": [],
	 "resources": {$keys}, "resource_type_map": {$map}, "models": []}
	EOF
}

verdicts() {
	jq -r '.verdicts[] | [.location, .result, .from, .to] | join("|")' "$1"
}

test_expect_success 'setup: a project whose strategy is bclass' '
	perun init --vcs-type svs proj >/dev/null &&
	(cd proj && perun config --shared set degradation.strategies "[{method: bclass}]" &&
	 perun config --local set degradation.strategies "[{method: bclass}]") &&
	prof base.perf "$(res f 10 "local bound" "O(n^1)")" "$(res f 12 "local bound" "O(n^1)")" \
		"$(res f 3 "total bound" "O(n^1)")" "$(res g 30 "local bound" "O(n^2)")" \
		"$(res g 28 "total bound" "O(n^2)")" "$(res h 40 "total bound" "O(1)")" &&
	prof target.perf "$(res f 14 "local bound" "O(n^1)")" "$(res f 16 "local bound" "O(n^2)")" \
		"$(res f 3 "total bound" "O(n^2)")" "$(res g 34 "local bound" "O(log n)")" \
		"$(res g 32 "total bound" "O(log n)")" "$(res k 50 "total bound" "O(∞)")"
'

test_expect_success 'plugins inspect names the method' '
	perun plugins inspect bclass --format json >out &&
	jq -r ".kind, .method" out >actual &&
	printf "check\nbound_class_comparison\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'rises degrade, falls optimize, at the target lines' '
	(cd proj && perun check profiles ../base.perf ../target.perf --format json) >out.json &&
	verdicts out.json | sort >actual &&
	sort >expect <<-\EOF &&
	f.c:f:14:5|NoChange|O(n^1)|O(n^1)
	f.c:f:16:5|Degradation|O(n^1)|O(n^2)
	f.c:f:3:5|Degradation|O(n^1)|O(n^2)
	f.c:g:34:5|Optimization|O(n^2)|O(log n)
	f.c:g:32:5|Optimization|O(n^2)|O(log n)
	f.c:k:50:5|NotInBaseline||O(∞)
	f.c:h:40:5|NotInTarget|O(1)|
	EOF
	test_cmp expect actual
'

test_expect_success 'a loop added: the loops pair by line, the new one is new' '
	prof base2.perf "$(res f 10 "local bound" "O(n^1)")" &&
	prof target2.perf "$(res f 10 "local bound" "O(n^2)")" "$(res f 20 "local bound" "O(1)")" &&
	(cd proj && perun check profiles ../base2.perf ../target2.perf --format json) >out.json &&
	verdicts out.json | sort >actual &&
	printf "f.c:f:10:5|Degradation|O(n^1)|O(n^2)\nf.c:f:20:5|NotInBaseline||O(1)\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a resource with no class is an input error' '
	prof bad.perf "$(res f 10 "local bound" "O(n^1)" | sed "s/\"class\": \"O(n^1)\"/\"class\": \"fast\"/")" &&
	(cd proj && test_must_fail perun check profiles ../base2.perf ../bad.perf) 2>err &&
	test_grep "no bound with a class" err
'

test_done
