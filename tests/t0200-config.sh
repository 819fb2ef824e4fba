#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun config get|set|edit|reset over the local and shared levels.
. "$srcdir/tests/test-lib.sh"

SHARED="$PERUN_CONFIG_DIR/shared.yml"

test_expect_success 'the shared configuration: Perun'"'"'s defaults, a finer aat for A/B runs and instruction counts' '
	! test -e "$SHARED" &&
	for key in general.editor general.paging format.status format.shortlog \
		format.output_profile_template format.output_show_template \
		format.sort_profiles_by degradation.apply degradation.strategies \
		generators.workload; do
		perun config --shared get $key || return 1
	done >actual &&
	cat >expect <<-\EOF &&
	general.editor: vim
	general.paging: auto
	format.status: ┃ %type% ┃ %collector%  ┃ (%time%) ┃ %source% ┃
	format.shortlog: %checksum:6% (%stats%) %desc% %changes%
	format.output_profile_template: %collector%-%cmd%-%workload%-%date%
	format.output_show_template: %collector%-%cmd%-%workload%-%date%
	format.sort_profiles_by: time
	degradation.apply: all
	degradation.strategies: [{collector: instructions, method: average_amount_threshold, options: {threshold: 1.05}}, {collector: instructions, method: none}, {interleaved: true, subtype: user, method: average_amount_threshold, options: {threshold: 1.05}}, {interleaved: true, method: average_amount_threshold}, {interleaved: true, method: none}, {method: average_amount_threshold}]
	generators.workload: [{id: basic_strings, type: string, min_len: 8, max_len: 128, step: 8}, {id: basic_integers, type: integer, min_range: 100, max_range: 10000, step: 200}, {id: basic_files, type: textfile, min_lines: 10, max_lines: 10000, step: 1000}]
	EOF
	test_cmp expect actual &&
	test -f "$SHARED"
'

test_expect_success 'the shared file is block-style YAML' '
	test_grep "^general:\$" "$SHARED" &&
	test_grep "^  editor: vim\$" "$SHARED" &&
	test_grep "^  - method: average_amount_threshold\$" "$SHARED"
'

test_expect_success 'shared.yml follows XDG_CONFIG_HOME without PERUN_CONFIG_DIR' '
	(unset PERUN_CONFIG_DIR && XDG_CONFIG_HOME="$(pwd)/xdg" perun config get general.paging) >actual &&
	echo "general.paging: auto" >expect && test_cmp expect actual &&
	test -f xdg/perun/shared.yml &&
	(unset PERUN_CONFIG_DIR XDG_CONFIG_HOME && HOME="$(pwd)/home2" perun config get general.editor) &&
	test -f home2/.config/perun/shared.yml
'

test_expect_success 'an unwritable shared location serves the defaults from memory' '
	echo file >not-a-dir &&
	PERUN_CONFIG_DIR="$(pwd)/not-a-dir/perun" perun config get general.editor >actual &&
	echo "general.editor: vim" >expect && test_cmp expect actual &&
	test_exit_code 3 env PERUN_CONFIG_DIR="$(pwd)/not-a-dir/perun" \
		perun config --shared set general.editor nano 2>err &&
	test_grep "cannot .*not-a-dir/perun/shared.yml" err
'

test_expect_success 'outside an instance: nearest get reads shared, local operations fail' '
	mkdir outside && cd outside &&
	perun config get general.editor >actual &&
	echo "general.editor: vim" >expect && test_cmp expect actual &&
	cp "$SHARED" shared-before &&
	test_exit_code 2 perun config --local get general.editor 2>err &&
	test_grep "not a perun instance" err &&
	test_exit_code 2 perun config set general.editor nano 2>err &&
	test_grep "not a perun instance" err &&
	test_exit_code 2 perun config edit 2>err &&
	test_exit_code 2 perun config reset 2>err &&
	test_cmp shared-before "$SHARED"
'

test_expect_success 'setup an instance' '
	if test -e "$PERUN_PLUGIN_PATH/vcs/git.so"; then
		perun init proj
	else
		mkdir -p proj/.perun && printf "vcs:\n  type: git\n  url: ../\n" >proj/.perun/local.yml
	fi
'

test_expect_success 'set types values like YAML and get prints them' '
	cd proj &&
	perun config set t.int 42 &&
	perun config set t.neg -17 &&
	perun config set t.octal 017 &&
	perun config set t.hex 0x1F &&
	perun config set t.float 2.5 &&
	perun config set t.exp 1.0e+3 &&
	perun config set t.yes yes &&
	perun config set t.off off &&
	perun config set t.tilde "~" &&
	perun config set t.null null &&
	perun config set t.text "hello world" &&
	perun config set t.quoted "\"42\"" &&
	perun config set t.squoted "'"'"'true'"'"'" &&
	perun config set t.list "[1, two, 3.5, [x]]" &&
	perun config set t.map "{name: time, params: {repeat: 10}}" &&
	perun config set t.fmt "%checksum:6% (%stats%) %desc%" &&
	perun config set t.colon "a: b" &&
	perun config set -- t.dash "- x" &&
	perun config set t.hash "#x" &&
	perun config set t.utf "┃ žluťoučký ┃" &&
	perun config set t.notoctal 08 &&
	perun config set t.inf .inf &&
	perun config set t.empty "" &&
	for k in int neg octal hex float exp yes off tilde null text quoted squoted list map \
		fmt colon dash hash utf notoctal inf empty; do
		perun config get t.$k || return 1
	done >actual &&
	cat >expect <<-\EOF &&
	t.int: 42
	t.neg: -17
	t.octal: 15
	t.hex: 31
	t.float: 2.5
	t.exp: 1000.0
	t.yes: true
	t.off: false
	t.tilde: null
	t.null: null
	t.text: hello world
	t.quoted: 42
	t.squoted: true
	t.list: [1, two, 3.5, [x]]
	t.map: {name: time, params: {repeat: 10}}
	t.fmt: %checksum:6% (%stats%) %desc%
	t.colon: a: b
	t.dash: - x
	t.hash: #x
	t.utf: ┃ žluťoučký ┃
	t.notoctal: 08
	t.inf: .inf
	t.empty: null
	EOF
	test_cmp expect actual
'

test_expect_success 'strings that look like other types are quoted in the file' '
	cd proj &&
	test_grep "^  quoted: '"'"'42'"'"'\$" .perun/local.yml &&
	test_grep "^  squoted: '"'"'true'"'"'\$" .perun/local.yml &&
	test_grep "^  int: 42\$" .perun/local.yml &&
	test_grep "^  '"'"'yes'"'"': true\$" .perun/local.yml &&
	perun config set t.list2 "[\"1\", yes, '"'"'no'"'"']" &&
	perun config get t.list2 >actual &&
	echo "t.list2: ['"'"'1'"'"', true, '"'"'no'"'"']" >expect &&
	test_cmp expect actual
'

test_expect_success 'get of a section prints it in flow style' '
	cd proj &&
	perun config set sec.a 1 && perun config set sec.b.c "[x, y]" &&
	perun config get sec >actual &&
	echo "sec: {a: 1, b: {c: [x, y]}}" >expect && test_cmp expect actual
'

test_expect_success 'set through a non-section fails and changes nothing' '
	cd proj &&
	cp .perun/local.yml before &&
	test_exit_code 2 perun config set t.int.sub 1 2>err &&
	test_grep "cannot set '"'"'t.int.sub'"'"': '"'"'t.int'"'"' is not a section" err &&
	test_cmp before .perun/local.yml
'

test_expect_success 'local overrides shared; --shared and --local pick one level' '
	cd proj &&
	perun config --shared set format.shortlog "%desc%" &&
	perun config get format.shortlog >actual &&
	echo "format.shortlog: %desc%" >expect && test_cmp expect actual &&
	perun config --local set format.shortlog "%checksum%" &&
	perun config get format.shortlog >actual &&
	echo "format.shortlog: %checksum%" >expect && test_cmp expect actual &&
	perun config -h get format.shortlog >actual &&
	echo "format.shortlog: %desc%" >expect && test_cmp expect actual &&
	perun config -l get format.shortlog >actual &&
	echo "format.shortlog: %checksum%" >expect && test_cmp expect actual &&
	perun config -n get general.editor >actual &&
	echo "general.editor: vim" >expect && test_cmp expect actual &&
	test_exit_code 2 perun config -l get general.editor 2>err &&
	test_grep "key '"'"'general.editor'"'"' is not set in the local configuration" err
'

test_expect_success 'the nearest instance is found from a subdirectory' '
	mkdir -p proj/a/b && cd proj/a/b &&
	perun config get t.int >actual &&
	echo "t.int: 42" >expect && test_cmp expect actual
'

test_expect_success 'config works without loading the vcs plugin' '
	cd proj &&
	PERUN_PLUGIN_PATH="$(pwd)/no-plugins" perun --plugin-path "$(pwd)/no-plugins" \
		config get vcs.type >actual &&
	echo "vcs.type: git" >expect && test_cmp expect actual
'

test_expect_success 'missing keys and bad keys are usage errors' '
	cd proj &&
	test_exit_code 2 perun config get no.such.key 2>err &&
	test_grep "key '"'"'no.such.key'"'"' is not set in the nearest configuration" err &&
	cp .perun/local.yml before &&
	for key in "a..b" ".a" "a." "a b" "a-b" "" "ž"; do
		test_exit_code 2 perun config get "$key" 2>err &&
		test_grep "invalid configuration key" err &&
		test_exit_code 2 perun config set "$key" 1 2>err &&
		test_grep "invalid configuration key" err || return 1
	done &&
	test_cmp before .perun/local.yml
'

test_expect_success 'usage errors: options, subcommands, arguments' '
	cd proj &&
	test_exit_code 2 perun config --bogus get a 2>err &&
	test_grep "unknown option '"'"'--bogus'"'"'" err &&
	test_exit_code 2 perun config -l -h get t.int 2>err &&
	test_grep "mutually exclusive" err &&
	test_exit_code 2 perun config frobnicate 2>err &&
	test_grep "'"'"'frobnicate'"'"' is not a '"'"'perun config'"'"' command" err &&
	test_exit_code 2 perun config get 2>err &&
	test_exit_code 2 perun config get a b 2>err &&
	test_exit_code 2 perun config set a 2>err &&
	test_exit_code 2 perun config reset a b 2>err &&
	test_exit_code 2 perun config 2>err
'

test_expect_success 'a malformed local.yml is reported with file and line' '
	cd proj &&
	cp .perun/local.yml good &&
	printf "vcs:\n  type: git\n  url: ../\nformat: a: b\n" >.perun/local.yml &&
	cp .perun/local.yml broken &&
	test_exit_code 2 perun config get vcs.type 2>err &&
	echo "perun: corrupted configuration file '"'"'$(pwd -P)/.perun/local.yml'"'"': line 4: mapping values are not allowed in this context" >expect &&
	test_cmp expect err &&
	test_exit_code 2 perun config set vcs.type svs 2>err &&
	test_cmp expect err &&
	test_exit_code 2 perun config reset 2>err &&
	test_cmp expect err &&
	test_cmp broken .perun/local.yml &&
	cp good .perun/local.yml
'

test_expect_success 'other malformed YAML: duplicates, aliases, documents, tabs, non-mappings' '
	cd proj &&
	cp .perun/local.yml good &&
	check() {
		printf "%b" "$1" >.perun/local.yml &&
		test_exit_code 2 perun config get a 2>err &&
		echo "perun: corrupted configuration file '"'"'$(pwd -P)/.perun/local.yml'"'"': $2" >expect &&
		test_cmp expect err
	} &&
	check "a: 1\nb: 2\na: 3\n" "line 3: duplicate key '"'"'a'"'"'" &&
	check "a: *nothing\n" "line 1: found undefined alias '"'"'nothing'"'"'" &&
	check "a: 1\n---\nb: 2\n" "line 2: expected a single document in the stream" &&
	check "a:\n\t- 1\n" "line 2: found character that cannot start any token" &&
	check "- a\n- b\n" "line 1: expected a mapping of keys" &&
	check "a: [1, 2\n" "line 2: did not find expected '"'"','"'"' or '"'"']'"'"'" &&
	check "a: \"open\n" "line 2: found unexpected end of stream" &&
	check "a: !!int x\n" "line 1: '"'"'x'"'"' is not a valid !!int" &&
	cp good .perun/local.yml
'

test_expect_success 'an alias bomb is refused at once, and the file is kept' '
	cd proj &&
	cp .perun/local.yml good &&
	{
		echo "a0: &a0 [x, x, x, x, x, x, x, x, x]" &&
		for i in 1 2 3 4 5 6 7 8; do
			printf "a$i: &a$i [" &&
			for k in 1 2 3 4 5 6 7 8; do printf "*a$((i - 1)), "; done &&
			echo "*a$((i - 1))]"
		done
	} >.perun/local.yml &&
	cp .perun/local.yml bomb &&
	for cmd in "get a0" "set b 1"; do
		test_exit_code 2 perun config --local $cmd 2>err || exit 1
		test_grep "line 7: aliases expand the document past 1000000 values$" err || exit 1
	done &&
	test_cmp bomb .perun/local.yml &&
	cp good .perun/local.yml
'

test_expect_success 'a malformed shared.yml is reported too' '
	cp "$SHARED" shared-good &&
	printf "general:\n  editor: [vim\n" >"$SHARED" &&
	test_exit_code 2 perun config --shared get general.editor 2>err &&
	test_grep "^perun: corrupted configuration file '"'"'$SHARED'"'"': line 3: " err &&
	cp "$SHARED" shared-broken &&
	test_exit_code 2 perun config --shared set general.editor nano &&
	test_cmp shared-broken "$SHARED" &&
	cp shared-good "$SHARED"
'

test_expect_success 'an empty local.yml reads as no keys; anchors and comments load' '
	cd proj &&
	cp .perun/local.yml good &&
	: >.perun/local.yml &&
	test_exit_code 2 perun config -l get vcs.type &&
	cat >.perun/local.yml <<-\EOF &&
	# written by hand
	vcs: {type: git, url: ../}  # inline comment
	base: &b
	  repeat: 10
	collectors:
	  - name: time
	    params: *b
	workloads: !!seq
	- !!str 10
	EOF
	perun config get collectors >actual &&
	perun config get workloads >>actual &&
	cat >expect <<-\EOF &&
	collectors: [{name: time, params: {repeat: 10}}]
	workloads: ['"'"'10'"'"']
	EOF
	test_cmp expect actual &&
	cp good .perun/local.yml
'

test_expect_success 'edit runs $EDITOR on the file and checks the result' '
	cd proj &&
	cat >../ed-ok.sh <<-\EOF &&
	#!/bin/sh
	echo "edited: [yes]" >>"$1"
	EOF
	cat >../ed-bad.sh <<-\EOF &&
	#!/bin/sh
	echo "oops: [" >>"$1"
	EOF
	chmod +x ../ed-ok.sh ../ed-bad.sh &&
	EDITOR="$(cd .. && pwd)/ed-ok.sh" perun config edit &&
	perun config get edited >actual &&
	echo "edited: [true]" >expect && test_cmp expect actual &&
	EDITOR="$(cd .. && pwd)/ed-ok.sh" perun config --shared edit &&
	perun config --shared get edited >actual && test_cmp expect actual &&
	cp .perun/local.yml good &&
	test_exit_code 2 env EDITOR="$(cd .. && pwd)/ed-bad.sh" perun config edit 2>err &&
	test_grep "corrupted configuration file" err &&
	cp good .perun/local.yml &&
	test_exit_code 3 env EDITOR=false perun config edit 2>err &&
	test_grep "editor '"'"'false'"'"' failed on" err
'

test_expect_success 'edit falls back to general.editor' '
	cd proj &&
	cat >../ed-gen.sh <<-\EOF &&
	#!/bin/sh
	echo "by_general: 1" >>"$1"
	EOF
	chmod +x ../ed-gen.sh &&
	perun config set general.editor "$(cd .. && pwd)/ed-gen.sh" &&
	(unset EDITOR; perun config edit) &&
	perun config get by_general >actual &&
	echo "by_general: 1" >expect && test_cmp expect actual
'

test_expect_success 'local reset rewrites from a template and keeps the vcs section' '
	cd proj &&
	perun config set vcs.url ../elsewhere &&
	perun config reset >out &&
	test_grep "local configuration reset to master" out &&
	test_must_fail perun config -l get t.int &&
	perun config get vcs.url >actual &&
	echo "vcs.url: ../elsewhere" >expect && test_cmp expect actual &&
	test_grep "^# cmds:" .perun/local.yml &&
	perun config reset developer &&
	perun config get execute.pre_run >actual &&
	echo "execute.pre_run: [make]" >expect && test_cmp expect actual &&
	perun config get vcs.url >actual &&
	echo "vcs.url: ../elsewhere" >expect && test_cmp expect actual &&
	mkdir -p build && printf "#!/bin/sh\n" >build/app && chmod +x build/app &&
	(cd a/b && perun config reset user) &&
	perun config get cmds >actual &&
	echo "cmds: [build/app]" >expect && test_cmp expect actual
'

test_expect_success 'reset refuses unknown templates and templates for shared' '
	cd proj &&
	cp .perun/local.yml before &&
	test_exit_code 2 perun config reset nosuch 2>err &&
	test_grep "unknown configuration template '"'"'nosuch'"'"'" err &&
	test_cmp before .perun/local.yml &&
	cp "$SHARED" shared-before &&
	test_exit_code 2 perun config --shared reset user 2>err &&
	test_grep "local configuration only" err &&
	test_cmp shared-before "$SHARED"
'

test_expect_success 'shared reset restores the defaults' '
	perun config --shared set general.editor nano &&
	perun config --shared set extra.key 1 &&
	perun config --shared reset >out &&
	test_grep "shared configuration reset" out &&
	perun config --shared get general.editor >actual &&
	echo "general.editor: vim" >expect && test_cmp expect actual &&
	test_must_fail perun config --shared get extra.key
'

test_expect_success 'a file written by Python Perun (ruamel) reads back' '
	cd proj &&
	cat >.perun/local.yml <<-\EOF &&
	vcs:
	  type: git
	  url: /abs/path/proj
	cmds:
	- ./prog
	args:
	- -O2
	workloads:
	- '"'"''"'"'
	- basic_strings
	collectors:
	- name: time
	  params:
	    warmup: 3
	    repeat: 10
	postprocessors:
	- name: regression_analysis
	  params:
	    method: full
	    steps: 10
	    regression_models: []
	degradation:
	  apply: first
	  strategies:
	  - method: aat
	    cutoff: 0.75
	profiles:
	  register_after_run: true
	EOF
	for k in cmds args workloads collectors postprocessors degradation.strategies \
		profiles.register_after_run vcs.url; do
		perun config get $k || return 1
	done >actual &&
	cat >expect <<-\EOF &&
	cmds: [./prog]
	args: [-O2]
	workloads: ['"'"''"'"', basic_strings]
	collectors: [{name: time, params: {warmup: 3, repeat: 10}}]
	postprocessors: [{name: regression_analysis, params: {method: full, steps: 10, regression_models: []}}]
	degradation.strategies: [{method: aat, cutoff: 0.75}]
	profiles.register_after_run: true
	vcs.url: /abs/path/proj
	EOF
	test_cmp expect actual
'

test_expect_success 'set keeps every other key and the file reloads identically' '
	cd proj &&
	for k in cmds args workloads collectors postprocessors degradation vcs profiles; do
		perun config get $k || return 1
	done >before &&
	perun config set added 1 &&
	for k in cmds args workloads collectors postprocessors degradation vcs profiles; do
		perun config get $k || return 1
	done >after &&
	test_cmp before after &&
	cp .perun/local.yml saved &&
	perun config set added 1 &&
	test_cmp saved .perun/local.yml
'

test_done
