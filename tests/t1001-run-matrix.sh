#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun run matrix from local.yml over several versions, and the workload
# generators (integer, string, textfile, singleton, external) with merged
# and per-workload profiles.
. "$srcdir/tests/test-lib.sh"

test_expect_success 'setup: a git project with three versions and perun' '
	test_make_git_project proj &&
	(cd proj && printf "prog: prog.c\n\tcc -o prog prog.c\n" >Makefile &&
	 printf "prog\n" >.gitignore && git add . && git commit -q -m "build" &&
	 echo "/* v3 */" >>prog.c && git commit -q -am "third version" &&
	 echo "/* v4 */" >>prog.c && git commit -q -am "fourth version" &&
	 perun init >/dev/null &&
	 printf "out\nerr\nexpect\nactual\ncalls\nrec\ngen.sh\ngen\ntable\nlist\n" >.git/info/exclude &&
	 printf "#!/bin/sh\nfor a; do if test -f \"\$a\"; then echo \"file \$(wc -l <\"\$a\")\"; else echo \"\$a\"; fi; done >>calls\n" >rec &&
	 chmod +x rec)
'

write_config() {
	cat >.perun/local.yml <<-EOC
	vcs:
	  type: git
	  url: ../
	cmds: [$1]
	workloads: [$2]
	collectors:
	  - name: time
	    params: {repeat: 1, warmup: 0}
	execute:
	  pre_run: [make]
	generators:
	  workload:
	    - {id: ints, type: integer, min_range: 1, max_range: 5, step: 2}
	    - {id: each, type: integer, min_range: 10, max_range: 20, step: 10, profile_for_each_workload: true}
	    - {id: strs, type: string, min_len: 2, max_len: 6, step_len: 2}
	    - {id: texts, type: textfile, min_lines: 1, max_lines: 3, step: 2}
	    - {id: one, type: singleton, value: 42}
	    - {id: ext, type: external, external_generator: ./gen.sh, output_dir: gen, file_format: "in_{w}_{h}.txt"}
	    - {id: broken, type: cubic}
	EOC
}

test_expect_success 'the matrix runs cmds x workloads x collectors over three versions' '
	cd proj &&
	write_config "./prog" "300, 500" &&
	git status --porcelain >../before && git rev-parse HEAD >>../before &&
	perun run -m HEAD~2 -m HEAD~1 -m HEAD matrix >out 2>err &&
	git status --porcelain >../after && git rev-parse HEAD >>../after &&
	test_cmp ../before ../after &&
	test_grep "^6 jobs run, 6 profiles stored$" out &&
	ls .perun/jobs/*.perf >list && test $(wc -l <list) = 6 &&
	test $(grep -l "\"workload\": \"500\"" .perun/jobs/*.perf | wc -l) = 3 &&
	log=$(ls .perun/logs/run-*.log) &&
	test $(grep -c "^pre_run at " $log) = 3
'

test_expect_success 'an integer generator: one merged profile whose resources carry the workload' '
	cd proj && rm -f .perun/jobs/*.perf calls &&
	write_config "./rec" "ints" &&
	perun run matrix >out &&
	test_grep "^1 job run, 1 profile stored$" out &&
	printf "1\n3\n5\n" >expect && test_cmp expect calls &&
	p=$(ls .perun/jobs/*.perf) &&
	test_grep "\"workload\": \"ints\"" "$p" &&
	perun show "$p" tableof --format csv -h workload -h subtype resources >table &&
	tail -n +2 table | grep ",real$" | sort >actual &&
	printf "1,real\n3,real\n5,real\n" >expect && test_cmp expect actual
'

test_expect_success 'profile_for_each_workload gives one profile per value' '
	cd proj && rm -f .perun/jobs/*.perf calls &&
	write_config "./rec" "each" &&
	perun run matrix >out &&
	test_grep "^1 job run, 2 profiles stored$" out &&
	ls .perun/jobs/ >list &&
	test_grep "^time-\[rec\]-\[each_10\]-" list &&
	test_grep "^time-\[rec\]-\[each_20\]-" list
'

test_expect_success 'string, textfile and singleton generators give their values' '
	cd proj && rm -f .perun/jobs/*.perf calls &&
	write_config "./rec" "strs, texts, one, plain" &&
	perun run matrix >out &&
	test_grep "^4 jobs run, 4 profiles stored$" out &&
	sed -n 1,3p calls | awk "{ print length(\$0) }" >actual &&
	printf "2\n4\n6\n" >expect && test_cmp expect actual &&
	sed -n 1,3p calls | grep -v "^[A-Za-z0-9]*$" >actual; test_cmp /dev/null actual &&
	sed -n 4,7p calls >actual &&
	printf "file 1\nfile 3\n42\nplain\n" >expect && test_cmp expect actual &&
	ls .perun/tmp >actual && test_cmp /dev/null actual
'

test_expect_success 'an external generator: its files, with the fields of their names on resources' '
	cd proj && rm -f .perun/jobs/*.perf calls &&
	printf "#!/bin/sh\nmkdir -p gen && printf \"a\\\\n\" >gen/in_2_7.txt && printf \"a\\\\nb\\\\n\" >gen/in_4_9.txt\n" >gen.sh &&
	chmod +x gen.sh &&
	write_config "./rec" "ext" &&
	perun run matrix >out &&
	printf "file 1\nfile 2\n" >expect && test_cmp expect calls &&
	p=$(ls .perun/jobs/*.perf) &&
	perun show "$p" tableof --format csv -h w -h h -h subtype resources >table &&
	tail -n +2 table | grep ",real$" | sort >actual &&
	printf "2,7,real\n4,9,real\n" >expect && test_cmp expect actual
'

test_expect_success 'a broken generator fails its job with a reason, exit 2' '
	cd proj && rm -f .perun/jobs/*.perf calls &&
	write_config "./rec" "broken, plain" &&
	test_exit_code 2 perun run matrix >out 2>err &&
	test_grep "^2 jobs run, 1 profile stored$" out &&
	test_grep "workload generator .broken. has unknown type .cubic." err
'

test_expect_success 'a matrix without cmds or collectors is a usage error' '
	cd proj &&
	printf "vcs:\n  type: git\n  url: ../\ncollectors: [{name: time}]\n" >.perun/local.yml &&
	test_exit_code 2 perun run matrix 2>err &&
	test_grep "no .cmds. in the local configuration" err &&
	printf "vcs:\n  type: git\n  url: ../\ncmds: [./prog]\n" >.perun/local.yml &&
	test_exit_code 2 perun run matrix 2>err &&
	test_grep "no .collectors." err
'

test_expect_success 'a failed postprocessor keeps the collected profiles pending, raw' '
	cd proj && rm -f .perun/jobs/*.perf &&
	write_config "./prog" "300, 500" &&
	cat >>.perun/local.yml <<-\EOC &&
	postprocessors:
	  - name: regression_analysis
	    params: {per_key: no_such_key}
	EOC
	test_exit_code 2 perun run matrix >out 2>err &&
	test_grep "^2 jobs run, 0 profiles stored$" out &&
	test_grep "^2 profiles kept pending without postprocessing" out &&
	test_grep "postprocessor .regression_analysis.: option .--per-key.: .no_such_key. is not a key" err &&
	ls .perun/jobs/*.perf >list && test $(wc -l <list) = 2 &&
	for f in .perun/jobs/*.perf; do
		jq -e ".postprocessors == [] and (.resources | length) > 0" "$f" >/dev/null || exit 1
	done &&
	perun status --format json >st.json &&
	jq -e ".pending | length == 2" st.json
'

test_expect_success 'collect with register_after_run names no pending file' '
	cd proj && write_config "./prog" "300" &&
	perun config --local set profiles.register_after_run true &&
	perun collect -c ./prog -w 300 time -r 1 >out &&
	echo "Collected into the index" >expect && test_cmp expect out
'

test_expect_success 'unknown keys of local.yml are warnings naming them' '
	cd proj && write_config "./prog" "300" &&
	cat >>.perun/local.yml <<-\EOC &&
	degradation:
	  strategy: [{method: aat}]
	  cutoff: 3
	colectors: []
	fromat: {status: x}
	profiles: {register_after_run: false, overwrite: true}
	EOC
	perun run matrix >out 2>err &&
	file=$(pwd -P)/.perun/local.yml &&
	cat >expect <<-EOF &&
	perun: warning: $file: unknown key '"'"'degradation.strategy'"'"'; did you mean '"'"'degradation.strategies'"'"'?
	perun: warning: $file: unknown key '"'"'colectors'"'"'; did you mean '"'"'collectors'"'"'?
	perun: warning: $file: unknown key '"'"'fromat'"'"'; did you mean '"'"'format'"'"'?
	EOF
	grep "unknown key" err >actual &&
	test_cmp expect actual
'

# The sleep's length is this test's own: pgrep sees the whole machine, and
# under make -j another test (t1000) may be running a "sleep 30" meanwhile.
test_expect_success 'a collection past its timeout is stopped and fails, the run goes on' '
	cd proj && write_config "sleep" "37, 0" &&
	perun config --local set profiles.register_after_run false &&
	rm -f .perun/jobs/*.perf &&
	test_exit_code 3 perun run --timeout 1 matrix >out 2>err &&
	test_grep "^2 jobs run, 1 profile stored$" out &&
	test_grep "collector .time. timed out after 1 s running .sleep. (stopped)" err &&
	! pgrep -f "^sleep 37" &&
	perun config --local set execute.timeout 1 &&
	test_exit_code 3 perun collect -c sleep -w 30 time -r 1 2>err &&
	test_grep "timed out after 1 s" err &&
	test_exit_code 2 perun collect -c sleep -w 0 --timeout -5 time 2>err &&
	test_grep "a timeout of -5 s is not a number of seconds" err
'

test_done
