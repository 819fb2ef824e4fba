#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun show <profile> folded: Brendan Gregg's folded stacks of kperf, memory
# and trace profiles, compared with the stacks flame-check.py computes from
# the profile's JSON by itself; separators in frame names; error paths.
. "$srcdir/tests/test-lib.sh"
test_fixtures

command -v python3 >/dev/null || test_skip_all "python3 is needed to read the stacks independently"
CHECK="$TEST_SRCDIR/plugins/view/flamegraph/tests/flame-check.py"

for prof in kperf/kperf-baseline.perf kperf/kperf-target.perf memory/memory-basic.perf \
	trace/trace-baseline.perf trace/trace-target.perf $(test_have_shared &&
	echo diff_profiles/kperf-baseline.perf diff_profiles/kperf-target.perf \
	query_profiles/memory-basic.perf full_profiles/prof-3-memory-2017-05-15-15-43-42.perf \
	degradation_profiles/tracer_baseline.perf degradation_profiles/tracer_target.perf); do
	dir=$FIXTURES && test -f "$dir/$prof" || dir=$TESTDATA
	test_expect_success "folded stacks of $prof are the profile's stacks" "
		perun show '$dir/$prof' folded >out.folded &&
		python3 '$CHECK' '$dir/$prof' --folded out.folded &&
		test \$(cut -d' ' -f1 out.folded | sort -u | wc -l) = \$(wc -l <out.folded)
	"
done

test_expect_shared 'lines are "frames weight", the flame graph totals add up' '
	perun show "$TESTDATA/diff_profiles/kperf-baseline.perf" folded -o k.folded &&
	! grep -v -E " [0-9]+$" k.folded &&
	awk "{ s += \$NF } END { print s }" k.folded >sum &&
	echo 2223 >expect && test_cmp expect sum &&
	perun show "$TESTDATA/diff_profiles/kperf-baseline.perf" flamegraph -o k.svg &&
	test_grep "<title>all (2,223 sample, 100.00%)</title>" k.svg
'

test_expect_success 'lines are in name order, frame by frame, a stack before those it leads to' '
	for prof in kperf/kperf-target.perf memory/memory-basic.perf trace/trace-baseline.perf; do
		perun show "$FIXTURES/$prof" folded --max-trace 4 >cut.folded &&
		perun show "$FIXTURES/$prof" folded >all.folded &&
		for f in cut.folded all.folded; do
			python3 -c "import sys
l = [x.rsplit(\" \", 1)[0].split(\";\") for x in open(sys.argv[1])]
sys.exit(l != sorted(l))" $f || return 1
		done
	done
'

# Stacks are sorted as a list, without the call tree, unless some are
# nested calls: then all go into the tree.
test_expect_success 'a profile with both stacks and timed calls: all are folded' '
	python3 - "$FIXTURES/trace/trace-baseline.perf" "$FIXTURES/memory/memory-basic.perf" \
		both.perf <<-\EOF &&
	import json, sys
	d, m = (json.load(open(p)) for p in sys.argv[1:3])
	for key, pers in m["resource_type_map"].items():
	    d["resource_type_map"]["m:" + key] = pers
	    d["resources"]["m:" + key] = m["resources"][key]
	json.dump(d, open(sys.argv[3], "w"))
	EOF
	perun show both.perf folded >both.folded &&
	python3 "$CHECK" both.perf --folded both.folded &&
	test_grep "^sort [0-9]" both.folded >/dev/null &&
	test_grep "^main()~src/main.c~70;list_push()" both.folded
'

# The sort of the stacks goes a few frames deeper each round: its calls
# must not nest as deep as the stacks.
test_expect_success 'stacks of 100,000 frames, equal ones, on a 512 kB C stack' '
	python3 - "$FIXTURES/kperf/kperf-target.perf" deep.perf <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	base = next(p for p in d["resource_type_map"].values() if p.get("trace"))
	frames = [{"func": "r%d" % (i % 7)} for i in range(100000)]
	d["resource_type_map"], d["resources"] = {}, {}
	for j, trace in enumerate([frames, frames, frames[:60000] + [{"func": "x"}]]):
	    pers = dict(base, trace=trace, uid={"func": "leaf"})
	    d["resource_type_map"]["deep#%d" % j] = pers
	    d["resources"]["deep#%d" % j] = {"amount": [j + 1]}
	json.dump(d, open(sys.argv[2], "w"))
	EOF
	(ulimit -s 512 && perun show deep.perf folded >deep.folded) &&
	awk -F";" "{ print NF, \$NF }" deep.folded >got &&
	printf "100001 leaf 3\n60002 leaf 3\n" >expect && test_cmp expect got
'

test_expect_success '--max-trace merges what lies deeper into the cut frame' '
	perun show "$FIXTURES/kperf/kperf-target.perf" folded --max-trace 3 >cut.folded &&
	python3 "$CHECK" "$FIXTURES/kperf/kperf-target.perf" --max-trace 3 --folded cut.folded &&
	awk -F";" "NF > 3 { bad = 1 } END { exit bad }" cut.folded
'

test_expect_shared 'a ";" in a frame name becomes ":", a line break a space' '
	python3 - "$TESTDATA/diff_profiles/kperf-baseline.perf" odd.perf <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	for pers in d["resource_type_map"].values():
	    if pers["trace"]:
	        pers["trace"][0]["func"] = "a;b\nc"
	json.dump(d, open(sys.argv[2], "w"))
	EOF
	perun show odd.perf folded >odd.folded &&
	test_grep "^a:b c;\[libc.so.6\];" odd.folded >/dev/null &&
	! grep -v " [0-9]*$" odd.folded
'

test_expect_success 'a profile without stacks, bad options and unwritable files fail with one line' '
	test_exit_code 2 perun show "$FIXTURES/mixed/points-models.perf" folded 2>err &&
	test_grep "^perun: view '"'"'folded'"'"': the profile has no call stacks" err &&
	test_exit_code 2 perun show "$FIXTURES/kperf/kperf-baseline.perf" folded --max-trace -1 2>err &&
	test_grep "max-trace -1" err &&
	test_exit_code 2 perun show "$FIXTURES/kperf/kperf-baseline.perf" folded extra 2>err &&
	test_grep "unexpected argument '"'"'extra'"'"'" err &&
	test_must_fail perun show "$FIXTURES/kperf/kperf-baseline.perf" folded -o no/dir/x 2>err &&
	test_grep "no/dir/x" err && test $(wc -l <err) = 1
'

test_done
