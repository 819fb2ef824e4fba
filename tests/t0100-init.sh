#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun init: the .perun layout, local.yml templates, reinit, the VCS.
. "$srcdir/tests/test-lib.sh"

if ! [ -e "$PERUN_PLUGIN_PATH/vcs/git.so" ]; then
	test_skip_all 'the git vcs plugin is not built'
fi

test_expect_success 'init creates the store, local.yml and a git repository' '
	mkdir p1 && cd p1 &&
	perun init >out 2>err &&
	echo "Initialized empty Perun instance in $(pwd -P)/.perun" >expect &&
	test_cmp expect out &&
	! test -s err &&
	for d in objects jobs logs cache stats tmp; do
		test -d .perun/$d || return 1
	done &&
	test -f .perun/local.yml &&
	test -d .git &&
	perun config --local get vcs.type >actual &&
	echo "vcs.type: git" >expect && test_cmp expect actual &&
	perun config --local get vcs.url >actual &&
	echo "vcs.url: ../" >expect && test_cmp expect actual
'

test_expect_success 'the master template is Perun'"'"'s, everything commented out' '
	cat >expect <<-\EOF &&

	vcs:
	  type: git
	  url: ../

	## The following sets the executables (binaries / scripts).
	## These will be profiled by selected collectors.
	## Uncomment and edit the following region:
	# cmds:
	#   - echo

	## The following sets the profiling workload for given commands
	## Uncomment and edit the following region:
	# workloads:
	#   - hello
	#   - world

	## The following contains the set of collectors (profilers) that will collect performance data.
	## Uncomment and edit the following region:
	# collectors:
	#   - name: time
	## Try '"'"'$ perun collect --help'"'"' to obtain list of supported collectors!

	## The following contains the ordered list of postprocess phases that are executed after collection.
	## Uncomment and edit the following region (!order matters!):
	# postprocessors:
	#   - name: regression_analysis
	#     params:
	#       method: full
	#   - name: regressogram
	## Try '"'"'$ perun plugins list'"'"' to obtain list of supported postprocessors!

	## The following option automatically registers newly collected profiles for current minor version
	## Uncomment the following to enable this behaviour:
	# profiles:
	#   register_after_run: true

	## Be default, we sort the profiles by time
	format:
	  sort_profiles_by: time

	## The following options control the degradation checks in repository
	# degradation:
	## Setting the following combination of option to true will make Perun collect new profiles,
	## before checking for degradations and store them in logs at directory .perun/logs/
	#   collect_before_check: true
	#   log_collect: true
	## Setting this to first (resp. all) will apply the first (resp. all) found check methods
	## for corresponding configurations
	#   apply: first
	## Specification of list of rules for applying degradation checks
	#   strategies:
	#     - method: average_amount_threshold

	## To run your custom steps before any collection (un)comment the following region:
	# execute:
	#   pre_run:
	#     - make
	EOF
	test_cmp expect p1/.perun/local.yml
'

test_expect_success 'reinit keeps local.yml and says so' '
	cd p1 &&
	perun config set cmds "[./a.out]" &&
	cp .perun/local.yml before &&
	perun init >out &&
	test_grep "^Reinitialized existing Perun instance in $(pwd -P)/.perun\$" out &&
	test_grep "already exists" out &&
	test_cmp before .perun/local.yml &&
	perun config get cmds >actual &&
	echo "cmds: [./a.out]" >expect && test_cmp expect actual
'

test_expect_success 'reinit keeps an existing git history' '
	test_make_git_project p2 &&
	(cd p2 && git rev-parse HEAD >../head-before) &&
	perun init p2 >out &&
	test_grep "Initialized empty Perun instance in $(pwd -P)/p2/.perun" out &&
	(cd p2 && git rev-parse HEAD) >head-after &&
	test_cmp head-before head-after
'

test_expect_success 'init <path> creates missing directories' '
	perun init deep/er/p3 &&
	test -d deep/er/p3/.perun/objects &&
	test -d deep/er/p3/.git
'

test_expect_success 'init inside an instance warns about the parent' '
	perun init p1/sub >out 2>err &&
	test_grep "warning: there exists a perun directory at '"'"'$(pwd -P)/p1'"'"'" err &&
	test -d p1/sub/.perun
'

test_expect_success '--vcs-path puts the repository elsewhere; vcs.url is relative to .perun' '
	mkdir p4 && cd p4 &&
	perun init --vcs-path src &&
	test -d src/.git &&
	! test -e .git &&
	perun config get vcs.url >actual &&
	echo "vcs.url: ../src" >expect && test_cmp expect actual
'

test_expect_success '--vcs-flag bare and --vcs-param reach git init' '
	perun init --vcs-path p5.git --vcs-flag bare p5 &&
	test -f p5.git/HEAD &&
	! test -e p5.git/.git &&
	perun init --vcs-param separate-git-dir "$(pwd -P)/p6-gitdir" p6 &&
	test -f p6-gitdir/HEAD &&
	test -f p6/.git &&
	test_grep p6-gitdir p6/.git &&
	perun init --vcs-param initial-branch trunk p7 &&
	test_grep "refs/heads/trunk" p7/.git/HEAD
'

test_expect_success 'a rejected --vcs-param leaves nothing behind' '
	test_must_fail perun init --vcs-param no-such-param x p8 2>err &&
	test_grep "^perun: cannot initialize the git repository at" err &&
	! test -e p8/.perun
'

test_expect_success 'an unknown --vcs-type fails before creating anything' '
	test_exit_code 2 perun init --vcs-type nosuchvcs p9 2>err &&
	test_grep "unsupported --vcs-type '"'"'nosuchvcs'"'"'" err &&
	! test -e p9
'

test_expect_success 'another vcs plugin is recorded in vcs.type' '
	if ! test -e "$PERUN_PLUGIN_PATH/vcs/svs.so"; then
		echo "svs plugin not built: skipped" && return 0
	fi &&
	perun init --vcs-type svs p10 &&
	(cd p10 && perun config get vcs.type) >actual &&
	echo "vcs.type: svs" >expect && test_cmp expect actual
'

test_expect_success 'the developer template enables checks and pre_run' '
	perun init -t developer p11 && cd p11 &&
	perun config get degradation.collect_before_check >actual &&
	perun config get degradation.log_collect >>actual &&
	perun config get degradation.strategies >>actual &&
	perun config get execute.pre_run >>actual &&
	cat >expect <<-\EOF &&
	degradation.collect_before_check: true
	degradation.log_collect: true
	degradation.strategies: [{method: average_amount_threshold}]
	execute.pre_run: [make]
	EOF
	test_cmp expect actual &&
	test_must_fail perun config get cmds &&
	test_must_fail perun config get collectors
'

test_expect_success 'the user template finds executables and workloads' '
	mkdir -p p12/build/sub p12/dist p12/examples p12/src/workloads p12/.hidden/build \
		p12/tools p12/payload &&
	cd p12 &&
	printf "#!/bin/sh\n" >build/prog && chmod +x build/prog &&
	printf "#!/bin/sh\n" >build/sub/other && chmod +x build/sub/other &&
	echo data >build/notes.txt &&
	printf "#!/bin/sh\n" >dist/tool && chmod +x dist/tool &&
	printf "#!/bin/sh\n" >tools/not-in-build && chmod +x tools/not-in-build &&
	printf "#!/bin/sh\n" >.hidden/build/hidden && chmod +x .hidden/build/hidden &&
	echo 1 >examples/small.txt &&
	echo 2 >src/workloads/big.txt &&
	echo 3 >"payload/with space" &&
	perun init --config-template user &&
	perun config get cmds >actual &&
	perun config get workloads >>actual &&
	perun config get collectors >>actual &&
	perun config get profiles.register_after_run >>actual &&
	perun config get format.output_profile_template >>actual &&
	perun config get execute.pre_run >>actual &&
	cat >expect <<-\EOF &&
	cmds: [build/prog, dist/tool]
	workloads: [examples/small.txt, payload/with space, src/workloads/big.txt]
	collectors: [{name: time, params: {warmup: 3, repeat: 10}}]
	profiles.register_after_run: true
	format.output_profile_template: %collector%-of-%cmd%-%workload%-%date%
	execute.pre_run: [make]
	EOF
	test_cmp expect actual
'

test_expect_success 'the user template runs make first, like Perun' '
	if ! command -v make >/dev/null; then
		echo "no make: skipped" && return 0
	fi &&
	mkdir p13 && cd p13 &&
	printf "all:\n\tmkdir -p build && printf \"#!/bin/sh\\\\n\" >build/made && chmod +x build/made\n" >Makefile &&
	perun init -t user &&
	perun config get cmds >actual &&
	echo "cmds: [build/made]" >expect && test_cmp expect actual
'

test_expect_success 'the user template without candidates keeps the examples commented' '
	perun init -t user p14 &&
	test_grep "^# cmds:" p14/.perun/local.yml &&
	test_grep "^# workloads:" p14/.perun/local.yml &&
	test_grep "^collectors:" p14/.perun/local.yml
'

test_expect_success 'an unknown template is refused before anything is created' '
	test_exit_code 2 perun init -t nosuch p15 2>err &&
	test_grep "nosuch" err &&
	! test -e p15
'

test_expect_success 'unknown options and extra arguments are usage errors' '
	test_exit_code 2 perun init --no-such-option p16 2>err &&
	test_grep "unknown option '"'"'--no-such-option'"'"'" err &&
	test_exit_code 2 perun init a b 2>err &&
	test_grep "usage: perun init" err &&
	test_exit_code 2 perun init --vcs-param onlykey 2>err &&
	test_grep "needs two values" err &&
	! test -e p16 && ! test -e a
'

test_expect_success '--configure opens local.yml in the editor' '
	cat >editor.sh <<-\EOF &&
	#!/bin/sh
	echo "cmds: [edited]" >>"$1"
	EOF
	chmod +x editor.sh &&
	EDITOR="$(pwd)/editor.sh" perun init -c p17 &&
	(cd p17 && perun config get cmds) >actual &&
	echo "cmds: [edited]" >expect && test_cmp expect actual
'

test_expect_success '--configure uses general.editor when EDITOR is unset' '
	cat >editor2.sh <<-\EOF &&
	#!/bin/sh
	echo "workloads: [from_general_editor]" >>"$1"
	EOF
	chmod +x editor2.sh &&
	perun config --shared set general.editor "$(pwd)/editor2.sh" &&
	(unset EDITOR VISUAL; perun init --configure p18) &&
	(cd p18 && perun config get workloads) >actual &&
	echo "workloads: [from_general_editor]" >expect && test_cmp expect actual
'

test_expect_success 'a failing editor fails --configure with exit 3' '
	test_exit_code 3 env EDITOR=false perun init -c p19 2>err &&
	test_grep "editor '"'"'false'"'"' failed" err
'

test_done
