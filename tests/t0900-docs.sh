#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Man pages and bash completion generated from the command table: every
# visible command is documented with all of its options, and the
# completion knows commands, subcommands, options and plugin names.
. "$srcdir/tests/test-lib.sh"

MANDIR="$TEST_BUILDDIR/docs/man1"
COMPLETION="$TEST_BUILDDIR/docs/perun.bash-completion"

# The commands and options as --help shows them (an independent reading
# of the table: --help has its own renderer).
help_commands() {
	perun "$@" --help | sed -n '/^commands:$/,$s/^  \([a-z][a-z0-9_-]*\)  .*/\1/p'
}
help_options() {
	perun "$@" --help | sed -n '/^options:$/,/^$/s/^ *\(-[a-z]*, \)\{0,1\}--\([a-z0-9-]*\).*/\2/p'
}

# The man page text documenting a command: the OPTIONS section of a
# top-level page, or the section of a subcommand in its group's page.
man_section() {
	page=$1
	shift
	if [ $# -eq 0 ]; then
		sed -n '/^\.SH OPTIONS$/,/^\.SH /p' "$page"
	else
		head="perun $*"
		awk -v head=".SS \"$head" '
			index($0, head) == 1 && (substr($0, length(head) + 1, 1) == " " ||
			    substr($0, length(head) + 1, 1) == "\"") { on = 1; print; next }
			/^\.S[SH] / { on = 0 }
			on' "$page"
	fi
}

# check_command <page> <words>...: every option of "perun <words>" is in
# the page; recurses into subcommands.
check_command() {
	page=$1
	shift
	test -f "$page" || { echo "no man page $page for 'perun $*'"; return 1; }
	if [ $# -eq 1 ]; then
		section=$(man_section "$page")
	else
		section=$(man_section "$page" "$@")
	fi
	options=$(help_options "$@")
	test -n "$section$options" || return 0
	test -n "$section" || { echo "$page does not document 'perun $*'"; return 1; }
	for opt in $options; do
		escaped=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
		printf '%s\n' "$section" | grep -q -- "^\.B .*\\\\-\\\\-$escaped\\( \\|$\\)" || {
			echo "$page: option --$opt of 'perun $*' missing"
			return 1
		}
	done
	for sub in $(help_commands "$@"); do
		check_command "$page" "$@" "$sub" || return 1
	done
}

test_expect_success 'the build generated man pages and the completion' '
	test -f "$MANDIR/perun.1" &&
	test -f "$COMPLETION"
'

test_expect_success 'the table has commands and options to check' '
	help_commands >commands &&
	test_grep -x plugins commands &&
	test_grep -x init commands &&
	help_options plugins list >opts &&
	test_grep -x format opts
'

test_expect_success 'perun.1 documents the global options and every command' '
	for opt in $(help_options); do
		escaped=$(printf "%s" "$opt" | sed "s/-/\\\\\\\\-/g") &&
		man_section "$MANDIR/perun.1" | grep -q -- "\\\\-\\\\-$escaped" ||
		{ echo "--$opt missing from perun.1"; return 1; }
	done &&
	for cmd in $(help_commands); do
		grep -q "^\.BR perun\\\\-$cmd (1)" "$MANDIR/perun.1" ||
		{ echo "perun.1 does not list $cmd"; return 1; }
	done
'

test_expect_success 'every visible command has a page listing all its options' '
	for cmd in $(help_commands); do
		check_command "$MANDIR/perun-$cmd.1" "$cmd" || return 1
	done
'

test_expect_success 'nested commands are sections of their group page (git style)' '
	check_command "$MANDIR/perun-plugins.1" plugins &&
	grep -q "^\.SS \"perun plugins list \[options\]\"" "$MANDIR/perun-plugins.1" &&
	grep -q "^\.SS \"perun plugins inspect \[options\] <name>\"" "$MANDIR/perun-plugins.1" &&
	man_section "$MANDIR/perun-plugins.1" plugins list >section &&
	test_grep "^\.B \\\\-\\\\-format" section &&
	test_must_fail test -f "$MANDIR/perun-plugins-list.1"
'

# plugin_page <kind> <name>: the page of a staged plugin, named after the
# command that runs it (views that only compare: showdiff).
plugin_page() {
	case $1 in
	collect) echo "perun-collect-$2.1" ;;
	postprocess) echo "perun-postprocessby-$2.1" ;;
	view) if [ -f "$MANDIR/perun-showdiff-$2.1" ]; then echo "perun-showdiff-$2.1"
	      else echo "perun-show-$2.1"; fi ;;
	check) echo "perun-check-$2.1" ;;
	vcs) echo "perun-init-$2.1" ;;
	fuzz) echo "perun-fuzz-$2.1" ;;
	esac
}

staged_pages() {
	for so in "$PERUN_PLUGIN_PATH"/*/*.so; do
		plugin_page "$(basename "$(dirname "$so")")" "$(basename "$so" .so)"
	done
}

test_expect_success 'no page for anything --help does not show, or no plugin has' '
	help_commands | sed "s/^/perun-/; s/\$/.1/" >expect &&
	echo perun.1 >>expect &&
	staged_pages >>expect &&
	sort expect -o expect &&
	(cd "$MANDIR" && ls *.1) | sort >actual &&
	test_cmp expect actual
'

test_expect_success 'every staged plugin has a page with each of its options' '
	ls "$PERUN_PLUGIN_PATH"/*/*.so >plugins &&
	test_grep "/collect/time.so$" plugins &&
	for so in $(cat plugins); do
		kind=$(basename "$(dirname "$so")") && name=$(basename "$so" .so) &&
		page="$MANDIR/$(plugin_page "$kind" "$name")" &&
		test -f "$page" || { echo "no page for $kind $name"; return 1; }
		perun plugins inspect "$name" |
		sed -n "s/^ *\(-[a-z]*, \)\{0,1\}\(--[a-z0-9_-]*\|degradation\.[a-z0-9_]*\).*/\2/p" >opts &&
		for opt in $(cat opts); do
			escaped=$(printf "%s" "$opt" | sed "s/-/\\\\\\\\-/g") &&
			grep -q -- "^\.B .*$escaped\( \|$\)" "$page" ||
			{ echo "$page: $opt missing"; return 1; }
		done
	done
'

test_expect_success 'plugin pages: synopsis, description, defaults' '
	test -f "$MANDIR/perun-collect-time.1" || return 0
	grep -q "^\.B perun collect \[options\] time \[<time options>\]$" \
		"$MANDIR/perun-collect-time.1" &&
	grep -q "^\.SH OPTIONS$" "$MANDIR/perun-collect-time.1" &&
	grep -q "(default: 10)" "$MANDIR/perun-collect-time.1" &&
	grep -q "^\.BR perun\\\\-collect (1),$" "$MANDIR/perun-collect-time.1" &&
	if [ -f "$MANDIR/perun-check-aat.1" ]; then
		grep -q "^\.SH CONFIGURATION$" "$MANDIR/perun-check-aat.1"
	fi
'

if command -v groff >/dev/null 2>&1; then
	test_expect_success 'the pages are valid roff (groff -ww, no warnings)' '
		for page in "$MANDIR"/*.1; do
			groff -man -ww -z "$page" 2>warnings &&
			test_must_fail test -s warnings || { cat warnings; return 1; }
		done
	'
	test_expect_success 'a plugin page renders its choices and defaults' '
		test -f "$MANDIR/perun-show-tableof.1" || return 0
		groff -man -Tutf8 -ww -P-c -P-b -P-u "$MANDIR/perun-show-tableof.1" \
			>rendered 2>warnings &&
		test_must_fail test -s warnings &&
		tr -d "\n " <rendered >flat &&
		test_grep -e "--format{simple|plain|csv|" flat &&
		test_grep "(default:simple)" flat
	'
	test_expect_success 'a rendered page shows the options as typed' '
		groff -man -Tascii -P-c -P-b -P-u "$MANDIR/perun-plugins.1" >rendered &&
		test_grep -e "--format {text|json}" rendered &&
		test_grep "perun plugins inspect \[options\] <name>" rendered
	'
fi

test_expect_success 'perun __docs man writes the same pages again' '
	perun __docs man --plugins "$PERUN_PLUGIN_PATH" again &&
	for page in "$MANDIR"/*.1; do
		test_cmp "$page" "again/${page##*/}" || return 1
	done
'

test_expect_success '__docs errors: usage, unwritable directory, unknown kind' '
	test_exit_code 2 perun __docs man 2>err &&
	test_grep "usage: perun __docs man \[--plugins <dir>\] <outdir>" err &&
	test_exit_code 3 perun __docs man no/such/dir 2>err &&
	test_grep "^perun: cannot create '\''no/such/dir'\'': No such file or directory" err &&
	test_exit_code 2 perun __docs plugin-names bogus 2>err &&
	test_grep "^perun: unknown plugin kind '\''bogus'\''" err
'

if command -v man >/dev/null 2>&1; then
	test_expect_success 'man -l renders every page without a warning' '
		for page in "$MANDIR"/*.1; do
			MANWIDTH=80 man -l "$page" >rendered 2>warnings &&
			test -s rendered && test_must_fail test -s warnings ||
			{ echo "$page"; cat warnings; return 1; }
		done
	'
fi

test_expect_success 'the completion script is valid bash' '
	bash -n "$COMPLETION"
'

# complete <words>...: COMPREPLY, sorted, one per line, completing the
# last word as bash would.
cat >complete.sh <<'EOF'
. "$COMPLETION"
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
_perun
[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort
EOF
complete_words() {
	COMPLETION="$COMPLETION" bash "$TRASH_DIRECTORY/complete.sh" "$@"
}

test_expect_success 'completes commands: perun pl<TAB>' '
	complete_words perun pl >actual &&
	echo plugins >expect &&
	test_cmp expect actual
'

test_expect_success 'completes subcommands: perun plugins <TAB>' '
	complete_words perun plugins "" >actual &&
	help_commands plugins | sort >expect &&
	printf "inspect\nlist\n" >expect.fixed &&
	test_cmp expect.fixed actual &&
	test_cmp expect actual
'

test_expect_success 'completes every top-level command, and no hidden one' '
	complete_words perun "" >actual &&
	help_commands | sort >expect &&
	test_cmp expect actual &&
	complete_words perun __d >actual &&
	test_must_fail test -s actual
'

test_expect_success 'completes options, also after global options' '
	complete_words perun -v plugins list --f >actual &&
	echo --format >expect &&
	test_cmp expect actual &&
	complete_words perun --no-c >actual &&
	echo --no-color >expect &&
	test_cmp expect actual
'

test_expect_success 'completes choices of an option, also after =' '
	complete_words perun plugins list --format "" >actual &&
	printf "json\ntext\n" >expect &&
	test_cmp expect actual &&
	complete_words perun plugins list --format = j >actual &&
	echo json >expect &&
	test_cmp expect actual
'

test_expect_success 'completes plugin names from the search path' '
	mkdir -p pp/view pp/collect &&
	: >pp/view/zview.so && : >pp/collect/zcollect.so && : >pp/view/README &&
	complete_words perun --plugin-path "$PWD/pp" plugins inspect z >actual &&
	printf "zcollect\nzview\n" >expect &&
	test_cmp expect actual &&
	PERUN_PLUGIN_PATH="$PWD/pp" complete_words perun show x.perf z >actual &&
	echo zview >expect &&
	test_cmp expect actual &&
	PERUN_PLUGIN_PATH="$PWD/pp" complete_words perun collect z >actual &&
	echo zcollect >expect &&
	test_cmp expect actual
'

test_expect_success 'offers nothing after an unknown command or a plugin name' '
	complete_words perun no-such-command "" >actual &&
	test_must_fail test -s actual &&
	PERUN_PLUGIN_PATH="$PWD/pp" complete_words perun collect zcollect --f >actual &&
	test_must_fail test -s actual
'

test_done
