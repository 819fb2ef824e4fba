#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun import perf script|stack|record: real perf script outputs
# (tests/import-perf, made by regenerate.sh from programs with threads,
# kernel frames, dwarf stacks with inlines, two events, pid/tid fields,
# srcline) and a hand-made file of stackcollapse-perf.pl's corner cases
# fold exactly as that script folded them, under each of its options;
# entries, stats, metadata and the header follow Python Perun; bad input
# is one line, nothing stored; perf record data is read live where perf
# may sample.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null 2>&1 || test_skip_all "no jq"
data="$srcdir/tests/import-perf"

# The stored profile as folded stacks: command;trace...;uid amount.
folded_of() {
	jq -r '.resource_type_map as $m | .resources | to_entries[] | $m[.key] as $t
		| ([$t.command] + [$t.trace[].func] + [$t.uid] | join(";"))
		  + " " + (.value.amount[] | tostring)' "$1" | LC_ALL=C sort
}
newest() { ls -t .perun/jobs/*.perf | head -n 1; }

test_expect_success 'setup: a perun instance' '
	test_make_git_project proj &&
	(cd proj && perun init >/dev/null)
'

for expect in "$data"/*.folded; do
	name=$(basename "$expect" .folded)
	input=${name%%.*}
	opt=
	case $name in
	*.*) opt=--$(echo "${name#*.}" | sed "s/event-filter/event-filter /") ;;
	esac
	test_expect_success "perf script $input $opt folds as stackcollapse-perf.pl" '
		(cd proj && perun import perf script $opt "$data/$input.script" >out 2>err &&
		 test_grep "^Imported [0-9]* resources from 1 file into profile .*/\.perun/jobs/kperf-.*\.perf$" out &&
		 folded_of "$(newest)" >../actual) &&
		test_cmp "$expect" actual
	'
done

test_expect_success 'the kperf shape: uid is the leaf, trace the callers root first' '
	cd proj &&
	perun import -c ./threads perf script "$data/tu.script" >/dev/null &&
	p=$(newest) &&
	test "$(jq -r .header.type "$p")" = time &&
	test "$(jq -c .header.units "$p")" = "{\"time\":\"sample\"}" &&
	test "$(jq -r .collector_info.name "$p")" = kperf &&
	jq -e "[.resource_type_map[] | select(.uid == \"spin\" and .command == \"threads\"
		and .trace[-1].func == \"main\")] | length > 0" "$p" >/dev/null &&
	perun show "$p" flamegraph -o flame.svg && test -s flame.svg
'

test_expect_success 'perf stack: folded stacks, plain and gzip, are read back as they are' '
	cd proj &&
	perun import perf stack "$data/rd.folded" >/dev/null &&
	folded_of "$(newest)" >actual && test_cmp "$data/rd.folded" actual &&
	gzip -c "$data/quirks.kernel.folded" >k.folded.gz &&
	perun import perf stack k.folded.gz >/dev/null &&
	folded_of "$(newest)" >actual && test_cmp "$data/quirks.kernel.folded" actual
'

test_expect_success 'perf script reads gzip too' '
	cd proj &&
	gzip -c "$data/tk.script" >tk.script.gz &&
	perun import perf script tk.script.gz >/dev/null &&
	folded_of "$(newest)" >actual && test_cmp "$data/tk.folded" actual
'

test_expect_success 'entries, stats headers, metadata, label, machine info' '
	cd proj &&
	cp "$data/tk.script" "$data/tu.script" . &&
	echo "{\"host\": \"lab-7\", \"cpu\": {\"total\": 64}}" >machine.json &&
	echo "{\"build\": {\"cc\": \"gcc\", \"opt\": 2}}" >meta.json &&
	perun import -c ./threads -w big.in -pl nightly -i machine.json \
		-t "time|lower_is_better|s,ok" -md "branch|main|the branch" -md meta.json \
		perf -w 2 script tk.script,0,1.5,yes tu.script,3,2.5,no >out 2>err &&
	test_grep "from 2 files" out &&
	test_grep "import entry .tu.script. has the non-zero exit code 3" err &&
	p=$(newest) &&
	test "$(jq -c .header.exitcode "$p")" = "[0,3]" &&
	test "$(jq -r .header.cmd "$p")" = ./threads &&
	test "$(jq -r .header.workload "$p")" = big.in &&
	test "$(jq -r .header.label "$p")" = nightly &&
	test "$(jq -r .machine.host "$p")" = lab-7 &&
	test "$(jq -c .collector_info.params "$p")" = "{\"with_sudo\":false,\"warmup\":2,\"repeat\":2}" &&
	test "$(jq -c ".stats[0] | [.name,.cmp,.unit,.value]" "$p")" = "[\"time\",\"lower_is_better\",\"s\",[1.5,2.5]]" &&
	test "$(jq -c ".stats[1] | [.name,.cmp,.unit,.value]" "$p")" = "[\"ok\",\"auto\",\"#\",[\"yes\",\"no\"]]" &&
	test "$(jq -c "[.metadata[] | [.name,.value,.description]]" "$p")" = "[[\"branch\",\"main\",\"the branch\"],[\"build:cc\",\"gcc\",\"\"],[\"build:opt\",2,\"\"],[\"build\",\"gcc:2\",\"\"]]" &&
	(cat "$data/tk.folded" "$data/tu.folded") | LC_ALL=C sort >expect &&
	folded_of "$p" >actual && test_cmp expect actual
'

test_expect_success 'a CSV of entries with its own stats; --save-to-index' '
	cd proj &&
	mkdir -p in && cp "$data/rd.script" "$data/tu.script" in/ &&
	printf "Profile,Exit_code,mem|lower_is_better|MB\nrd.script,0,10\ntu.script,0,12\n" >in/runs.csv &&
	perun import -d "$PWD/in" -s perf script runs.csv >out &&
	test_grep "into the index" out &&
	perun status >status && test_grep "kperf" status
'

test_expect_success 'bad input: one line naming file and line, exit 2, nothing stored' '
	cd proj &&
	ls .perun/jobs >before &&
	test_exit_code 2 perun import perf script missing.script 2>err &&
	test_grep "^perun: cannot read .missing.script.: No such file or directory$" err &&
	test $(wc -l <err) = 1 &&
	{ head -n 20 "$data/tk.script"; echo "this is no perf output"; } >bad.script &&
	test_exit_code 2 perun import perf script bad.script 2>err &&
	test_grep "^perun: perf script file .bad.script.: line 21: neither a sample header nor a stack frame$" err &&
	test $(wc -l <err) = 1 &&
	test_exit_code 2 perun import perf script "$data/tu-srcline.script" 2>err &&
	test_grep "line 3: .*need --srcline" err &&
	printf "main;work 12\nmain;work twelve\n" >bad.folded &&
	test_exit_code 2 perun import perf stack bad.folded 2>err &&
	test_grep "^perun: folded stacks file .bad.folded.: line 2: not .frame;frame;... count.$" err &&
	test_exit_code 2 perun import perf script tk.script,x 2>err &&
	test_grep "exit code .x. is not a number" err &&
	echo data >fake.data &&
	test_exit_code 3 env PATH=/nonexistent "$(command -v perun)" import perf record fake.data 2>err &&
	test_grep "^perun: perf is not installed (Debian: linux-perf)" err &&
	ls .perun/jobs >after &&
	test_cmp before after
'

# Live: perf record of the test programs, read back by "import perf record".
perf_ok=
if command -v perf >/dev/null 2>&1 && command -v "${CC:-cc}" >/dev/null 2>&1 &&
	perf record -q -e cpu-clock:u -o probe.data true >/dev/null 2>&1; then
	perf_ok=1
else
	say "skipping the live perf record tests: no perf or C compiler, or perf_event_open not permitted (kernel.perf_event_paranoid)"
fi

if test -n "$perf_ok"; then
	test_expect_success 'live: perf record data of a threaded program' '
		"${CC:-cc}" -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -pthread -o threads "$data/threads.c" &&
		perf record -q -e cpu-clock:u -F 999 -g -o user.data ./threads >/dev/null 2>&1 &&
		perf script -i user.data >user.script 2>/dev/null &&
		cd proj &&
		perun import perf record ../user.data >/dev/null &&
		folded_of "$(newest)" >../from-record &&
		perun import perf script ../user.script >/dev/null &&
		folded_of "$(newest)" >../from-script &&
		cd .. && test_cmp from-script from-record &&
		grep -q "^threads;.*;worker;\(render;\)\?spin " from-record &&
		grep -q "^threads;.*;main;\(parse;\)\?spin " from-record
	'

	if perf record -q -e cpu-clock -o probe-k.data true >/dev/null 2>&1; then
		test_expect_success 'live: with kernel frames, --kernel marks them' '
			perf record -q -e cpu-clock -F 999 -g -o kernel.data ./threads >/dev/null 2>&1 &&
			cd proj &&
			perun import perf record --kernel ../kernel.data >/dev/null &&
			folded_of "$(newest)" >../kernel.folded &&
			grep -q "_\[k\] [0-9]*$" ../kernel.folded
		'
	else
		say "skipping kernel frames: perf may not sample the kernel here"
	fi
fi

test_done
