#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A plugin explains itself where it is used: "--help" after its name shows
# its usage and the options it declares (types, choices, defaults), in the
# style of the command's own --help; "plugins inspect" lists them the same
# way; an unknown name is one line with a suggestion, exit 2.
. "$srcdir/tests/test-lib.sh"

have() {
	test -e "$PERUN_PLUGIN_PATH/$1.so"
}

# shows <pattern>...: the help in out has a line matching each pattern.
shows() {
	for pattern; do
		test_grep -e "$pattern" out || return 1
	done
}

test_expect_success 'collect <collector> --help: its options and defaults' '
	have collect/time || return 0
	perun collect time --help >out 2>err &&
	test_must_fail test -s err &&
	test_grep "^usage: perun collect \[options\] time \[<time options>\]$" out &&
	test_grep "^time [0-9.]*: " out &&
	test_grep -e "^  -r, --repeat <int>  *time the command .* (default: 10)$" out &&
	test_grep -e "--output {discard|stderr} .*(default: discard)$" out &&
	test_must_fail grep -e "^  -c, --cmd" out &&
	perun collect -c ./prog -w in time --help >out2 &&
	test_cmp out out2
'

test_expect_success 'collect --help alone is still the command help' '
	perun collect --help >out &&
	shows "^usage: perun collect \[options\] <collector>" "^  -c, --cmd <command>"
'

test_expect_success 'postprocessby <profile> <postprocessor> --help' '
	have postprocess/regressogram || return 0
	perun postprocessby 0@p regressogram --help >out &&
	shows "^usage: perun postprocessby \[options\] <profile> regressogram " \
		"--bucket_method {auto|doane|.*} .*(default: doane)$" \
		"-bn, --bucket_number <int>" &&
	if have postprocess/moving_average; then
		# A flag that is on by default says so.
		perun postprocessby 0@p moving-average --help >out &&
		shows "--center .*(default: true)$"
	fi
'

test_expect_success 'show <profile> <view> --help, showdiff for diff views' '
	have view/scatter || return 0
	perun show 0@i scatter --help >out &&
	shows "^usage: perun show \[options\] <profile> scatter " \
		"-o, --of <key> .*(default: amount)$" &&
	perun show -m HEAD no-such.perf scatter --help >out2 &&
	test_cmp out out2 &&
	if have view/table; then
		perun showdiff a b table --help >out &&
		test_grep "^usage: perun showdiff \[options\] <baseline> <target> table " out
	fi
'

test_expect_success 'check <method> --help: by name or long name, as config keys' '
	have check/cpd || return 0
	perun check cpd --help >out &&
	test_grep "^usage: perun check \[options\] head|all" out &&
	test_grep "(method: change_point_detection or cpd)" out &&
	test_grep "^configuration:$" out &&
	test_grep -e "^  degradation.min_change <ratio> .*(default: 0.1)$" out &&
	test_grep -e "^  degradation.test {ttest|permutation} .*(default: ttest)$" out &&
	perun check change_point_detection --help >out2 &&
	test_cmp out out2 &&
	perun check head --help >out &&
	test_grep "^usage: perun check head" out
'

test_expect_success 'unknown plugins: one line with a suggestion, exit 2' '
	have collect/time && have view/tableof && have check/aat &&
	have postprocess/regressogram || return 0
	test_exit_code 2 perun collect tiem --help >out 2>err &&
	test_must_fail test -s out &&
	echo "perun: no collect plugin named '\''tiem'\''; did you mean '\''time'\''? (see '\''perun plugins list'\'')" >expect &&
	test_cmp expect err &&
	test_exit_code 2 perun show 0@i tabelof --help >out 2>err &&
	test_must_fail test -s out && test $(wc -l <err) -eq 1 &&
	test_grep "did you mean '\''tableof'\''" err &&
	test_exit_code 2 perun postprocessby 0@p regresogram --help >out 2>err &&
	test $(wc -l <err) -eq 1 && test_grep "did you mean '\''regressogram'\''" err &&
	test_exit_code 2 perun check aatt --help >out 2>err &&
	test $(wc -l <err) -eq 1 && test_grep "no check plugin named '\''aatt'\''" err &&
	test_exit_code 2 perun check haed --help >out 2>err &&
	test $(wc -l <err) -eq 1 &&
	test_grep "'\''haed'\'' is not a '\''perun check'\'' command; did you mean '\''head'\''" err
'

# The options part of a plugin's --help, for every staged plugin a
# command runs by name, is what "plugins inspect" lists: one renderer.
test_expect_success 'every plugin: --help lists what plugins inspect lists' '
	for so in "$PERUN_PLUGIN_PATH"/*/*.so; do
		name=$(basename "$so" .so) && kind=$(basename "$(dirname "$so")") &&
		case $kind in
		collect) set -- collect "$name" ;;
		postprocess) set -- postprocessby 0@p "$name" ;;
		view) set -- showdiff a b "$name" ;;
		check) set -- check "$name" ;;
		*) continue ;;
		esac &&
		perun "$@" --help >help &&
		perun plugins inspect "$name" >inspect &&
		sed -n "/^\(options\|configuration\):$/,\$p" help >help.options &&
		sed -n "/^\(options\|configuration\):$/,\$p" inspect >inspect.options &&
		test -s help.options &&
		test_cmp inspect.options help.options || { echo "$kind $name"; return 1; }
	done
'

test_expect_success 'plugins inspect lists the choices of choice options' '
	have collect/time || return 0
	perun plugins inspect time >out &&
	test_grep -e "^  -o, --output {discard|stderr} .*(default: discard)$" out &&
	test_grep -e "^  -w, --warmup <int> .*(default: 3)$" out
'

test_done
