#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The plugin ABI: the frozen ABI 1.0 plugin keeps loading and working, and
# every broken plugin is listed as REJECTED with the loader's exact
# message, in text, in "plugins inspect" and in JSON.
. "$srcdir/tests/test-lib.sh"

LIBS="$TEST_BUILDDIR/tests/abi/.libs"
HEADER="$TEST_SRCDIR/sdk/include/perun/plugin.h"
MAJOR=$(sed -n 's/^#define PERUN_PLUGIN_ABI_MAJOR \([0-9]*\)$/\1/p' "$HEADER")
MINOR=$(sed -n 's/^#define PERUN_PLUGIN_ABI_MINOR \([0-9]*\)$/\1/p' "$HEADER")
PTR=$(($(getconf LONG_BIT) / 8))
# sizeof(struct perun_plugin) in ABI 1.0: five 32-bit fields, five pointers.
DESC_1_0_SIZE=$((16 + 5 * PTR))
PROFILE="$TRASH_DIRECTORY/prof.perf"
cat >"$PROFILE" <<'EOF'
{
  "header": {"type": "time", "cmd": "prog", "args": "", "workload": "",
             "units": {"time": "s"}},
  "collector_info": {"name": "time", "params": {}},
  "postprocessors": [],
  "models": [],
  "resources": {
    "main#0": {"amount": [3.0, 1.5]},
    "helper#0": {"amount": [0.5]}
  },
  "resource_type_map": {
    "main#0": {"uid": "main", "type": "time"},
    "helper#0": {"uid": "helper", "type": "time"}
  }
}
EOF

# stage <dir> <kind> <built plugin> [<installed name>]: a plugin directory
# holding only this plugin, as the search path expects it.
stage() {
	mkdir -p "$1/$2" &&
	cp "$LIBS/$3.so" "$1/$2/${4:-$3}.so"
}

# expect_rejected <dir> <kind> <name> <message after "plugin '..' (path): ">
expect_rejected() {
	dir=$PWD/$1 kind=$2 name=$3
	msg="plugin '$name' ($dir/$kind/$name.so): $4"
	perun --plugin-path "$dir" plugins list >list &&
	printf '%-12s %-22s REJECTED: %s\n' "$kind" "$name" "$msg" >expect &&
	test_cmp expect list &&
	perun --plugin-path "$dir" plugins inspect "$name" >inspect &&
	printf 'name:    %s\nkind:    %s\npath:    %s\nstatus:  rejected\nerror:   %s\n' \
		"$name" "$kind" "$dir/$kind/$name.so" "$msg" >expect &&
	test_cmp expect inspect &&
	perun --plugin-path "$dir" plugins list --format json >json &&
	jq -r --arg n "$name" '.plugins[] | select(.name == $n) | .status, .error' json >actual &&
	printf 'rejected\n%s\n' "$msg" >expect &&
	test_cmp expect actual
}

test_expect_success 'the loader test plugins were built' '
	for p in abi_1_0 bad_magic abi_major_next abi_minor_next name_mismatch \
		no_show small_size unknown_kind no_describe dup_view dup_collect \
		missing_dep undefined_symbol; do
		test -f "$LIBS/$p.so" || { echo "missing $LIBS/$p.so"; return 1; }
	done &&
	test -n "$MAJOR" && test -n "$MINOR"
'

test_expect_success 'the frozen ABI 1.0 plugin loads' '
	stage abi10 view abi_1_0 &&
	perun --plugin-path "$PWD/abi10" plugins list --format json >json &&
	jq -r ".plugins[] | [.name, .kind, .status, .abi] | @tsv" json >actual &&
	printf "abi_1_0\tview\tok\t1.0\n" >expect &&
	test_cmp expect actual &&
	perun --plugin-path "$PWD/abi10" plugins inspect abi_1_0 >inspect &&
	test_grep "^abi:     1.0 (core $MAJOR.$MINOR)$" inspect &&
	test_grep -e "^  -g, --greeting <text>  *what to print after the counts (default: hello from 1.0)$" inspect
'

test_expect_success 'the frozen ABI 1.0 plugin runs: options, profile, extra words' '
	perun --plugin-path "$PWD/abi10" show "$PROFILE" abi_1_0 >out &&
	echo "abi_1_0: time profile, 3 resources, 0 extra words, hello from 1.0" >expect &&
	test_cmp expect out &&
	perun --plugin-path "$PWD/abi10" show "$PROFILE" abi_1_0 -g hi word >out &&
	echo "abi_1_0: time profile, 3 resources, 1 extra words, hi" >expect &&
	test_cmp expect out
'

test_expect_success 'showdiff does not call past the end of an ABI 1.0 view ops table' '
	test_exit_code 2 perun --plugin-path "$PWD/abi10" showdiff "$PROFILE" "$PROFILE" abi_1_0 2>err &&
	echo "perun: view '"'"'abi_1_0'"'"' shows single profiles only; use '"'"'perun show'"'"'" >expect &&
	test_cmp expect err
'

test_expect_success 'wrong magic' '
	stage magic view bad_magic &&
	expect_rejected magic view bad_magic \
		"bad magic 0xdeadbeef (expected 0x4e524550); not a perun plugin"
'

test_expect_success 'ABI major + 1' '
	stage major view abi_major_next &&
	expect_rejected major view abi_major_next \
		"ABI $((MAJOR + 1)).$MINOR not supported (core provides $MAJOR.$MINOR); rebuild it against perun ABI $MAJOR.x"
'

test_expect_success 'ABI minor + 1 (newer than the core)' '
	stage minor view abi_minor_next &&
	expect_rejected minor view abi_minor_next \
		"ABI $MAJOR.$((MINOR + 1)) is newer than the core'\''s $MAJOR.$MINOR; upgrade perun or rebuild the plugin"
'

test_expect_success 'descriptor size below the ABI 1.0 size' '
	stage size view small_size &&
	expect_rejected size view small_size \
		"descriptor size 16 is smaller than the ABI $MAJOR.0 size $DESC_1_0_SIZE"
'

test_expect_success 'unknown kind' '
	stage kind view unknown_kind &&
	expect_rejected kind view unknown_kind "unknown plugin kind 99"
'

test_expect_success 'a plugin in the directory of another kind' '
	stage wrongdir collect abi_1_0 &&
	expect_rejected wrongdir collect abi_1_0 \
		"is a view plugin but lies in a '\''collect'\'' directory"
'

test_expect_success 'descriptor name differs from the file name' '
	stage name view name_mismatch &&
	expect_rejected name view name_mismatch \
		"descriptor names itself '\''other_name'\''; the file must be named after the plugin"
'

test_expect_success 'a view without its required show operation' '
	stage noshow view no_show &&
	expect_rejected noshow view no_show \
		"view plugin lacks required operation '\''show'\'' or '\''show_diff'\''"
'

test_expect_success 'a shared object without the describe symbol' '
	stage nosym view no_describe &&
	expect_rejected nosym view no_describe \
		"no symbol '\''perun_plugin_no_describe_describe'\''; not a perun plugin, or built under another name"
'

test_expect_success 'a plugin whose library is missing (dlopen fails)' '
	stage nodep view missing_dep &&
	expect_rejected nodep view missing_dep \
		"cannot load: libperun-abi-test-gone.so.0: cannot open shared object file: No such file or directory (missing dependency? try '\''ldd $PWD/nodep/view/missing_dep.so'\'')"
'

test_expect_success 'the same name in two kind directories: the second is rejected' '
	stage dup collect dup_collect dup &&
	stage dup view dup_view dup &&
	perun --plugin-path "$PWD/dup" plugins list >list &&
	{
		printf "%-12s %-22s %-8s %s\n" collect dup 0 "loader test plugin dup_collect" &&
		printf "%-12s %-22s REJECTED: %s\n" view dup \
			"plugin '\''dup'\'' ($PWD/dup/view/dup.so): duplicate of collect plugin $PWD/dup/collect/dup.so"
	} >expect &&
	test_cmp expect list &&
	perun --plugin-path "$PWD/dup" plugins list --format json >json &&
	jq -r ".plugins[] | [.kind, .status] | @tsv" json >actual &&
	printf "collect\tok\nview\trejected\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'an unresolved symbol loads lazily but not with LD_BIND_NOW=1' '
	stage undef view undefined_symbol &&
	perun --plugin-path "$PWD/undef" plugins list --format json >json &&
	jq -r ".plugins[].status" json >actual &&
	echo ok >expect &&
	test_cmp expect actual &&
	LD_BIND_NOW=1 && export LD_BIND_NOW &&
	expect_rejected undef view undefined_symbol \
		"cannot load: $PWD/undef/view/undefined_symbol.so: undefined symbol: abi_test_undefined_function (missing dependency? try '\''ldd $PWD/undef/view/undefined_symbol.so'\'')"
'

test_expect_success 'using a rejected view fails with its message, exit 2' '
	test_exit_code 2 perun --plugin-path "$PWD/magic" show "$PROFILE" bad_magic 2>err &&
	echo "perun: plugin '\''bad_magic'\'' ($PWD/magic/view/bad_magic.so): bad magic 0xdeadbeef (expected 0x4e524550); not a perun plugin" >expect &&
	test_cmp expect err
'

test_expect_success 'a rejected plugin does not hide the good ones' '
	stage mixed view abi_1_0 &&
	stage mixed view bad_magic &&
	stage mixed view no_show &&
	perun --plugin-path "$PWD/mixed" plugins list --format json >json &&
	jq -r ".plugins[] | [.name, .status] | @tsv" json >actual &&
	printf "abi_1_0\tok\nbad_magic\trejected\nno_show\trejected\n" >expect &&
	test_cmp expect actual &&
	perun --plugin-path "$PWD/mixed" show "$PROFILE" abi_1_0 >out &&
	test_grep "^abi_1_0: " out
'

test_expect_success 'setup: a project for the check plugins' '
	stage frozen13 check check_1_3 &&
	git init -q proj && (cd proj && git commit -q --allow-empty -m root &&
	perun init >/dev/null)
'

test_expect_success 'a check plugin of ABI 1.3 runs by its name and is titled by it' '
	(cd proj &&
	 perun config --local set degradation.strategies \
		"[{method: check_1_3}, {method: average_amount_threshold}]" &&
	 perun --plugin-path "$TRASH_DIRECTORY/frozen13:$PERUN_PLUGIN_PATH" \
		check profiles "$PROFILE" "$PROFILE" --format sarif >sarif &&
	 jq -r ".runs[0].tool.driver.rules[] | [.id, .name, .properties.perunMethod // \"-\"] | @tsv" \
		sarif >actual &&
	 printf "check_1_3\tcheck_1_3\t-\naat\taverage amount threshold\taverage_amount_threshold\n" >expect &&
	 test_cmp expect actual &&
	 jq -r ".runs[0].results[] | [.ruleId, .ruleIndex] | @tsv" sarif >actual &&
	 printf "check_1_3\t0\n" >expect &&
	 test_cmp expect actual)
'

test_expect_success 'a long name no plugin declares is an unknown method, exit 2' '
	(cd proj &&
	 perun config --local set degradation.strategies "[{method: frozen_check}]" &&
	 test_exit_code 2 perun --plugin-path "$TRASH_DIRECTORY/frozen13:$PERUN_PLUGIN_PATH" \
		check profiles "$PROFILE" "$PROFILE" 2>err &&
	 echo "perun: degradation.strategies: unknown check method '"'"'frozen_check'"'"'" >expect &&
	 test_cmp expect err)
'

# Perun's configuration names methods by long names; the plugins say which
# is theirs, so the core holds no table of them.  (The shared configuration
# adds its own strategy after the local one; the local one is loaded but
# applies to no profile, so any method's verdict is beside the point.)
test_expect_success 'every installed check method is found by its long name' '
	(cd proj &&
	 for so in "$PERUN_PLUGIN_PATH"/check/*.so; do
		name=$(basename "$so" .so) &&
		long=$(perun plugins inspect "$name" --format json | jq -r ".method") &&
		test -n "$long" && test "$long" != null &&
		perun config --local set degradation.strategies \
			"[{method: $long, collector: no_such_collector}]" &&
		perun check profiles "$PROFILE" "$PROFILE" --format sarif >sarif || exit 1
		jq -r ".runs[0].tool.driver.rules[0].id" sarif >actual &&
		echo "$name" >expect &&
		test_cmp expect actual || exit 1
	 done)
'

# A crash says which plugin crashed where and leaves a report; the signal
# then ends perun as it would (exit 128 + the signal for the shell, which
# says so too) and the store is untouched.
CRASH_PATH="$TRASH_DIRECTORY/crash:$PERUN_PLUGIN_PATH"

# The store but for the crash reports in its logs.
store_but_logs() {
	store_snapshot | grep -v " \.perun/logs/"
}

# expect_crash <exit> <message> <perun args>...: perun dies with exit,
# printing "perun: <message>; report: <file>" and nothing else of its own
# (but the supervisor's word that it restored the working tree);
# report is that file, which exists.
expect_crash() {
	code=$1 msg=$2 && shift 2 &&
	test_exit_code "$code" perun --plugin-path "$CRASH_PATH" "$@" 2>err &&
	grep "^perun: " err | grep -v "^perun: the original branch" >line &&
	report=$(sed -n "s/^perun: .*; report: //p" line) &&
	echo "perun: $msg; report: $report" >expect &&
	test_cmp expect line &&
	test -f "$report"
}

test_expect_success 'a plugin crashing in describe, show or collect is named' '
	stage crash view crash_describe && stage crash view crash_show &&
	stage crash collect crash_collect &&
	(cd proj && store_but_logs >before &&
	 expect_crash 139 "plugin '"'"'crash_describe'"'"' ($TRASH_DIRECTORY/crash/view/crash_describe.so) crashed in describe (SIGSEGV); the store is left as it was" \
		show "$PROFILE" crash_describe &&
	 expect_crash 139 "plugin '"'"'crash_show'"'"' ($TRASH_DIRECTORY/crash/view/crash_show.so) crashed in show (SIGSEGV); the store is left as it was" \
		show "$PROFILE" crash_show &&
	 expect_crash 139 "plugin '"'"'crash_collect'"'"' ($TRASH_DIRECTORY/crash/collect/crash_collect.so) crashed in collect (SIGSEGV); the store is left as it was" \
		collect -c true crash_collect &&
	 store_but_logs >after && test_cmp before after)
'

test_expect_success 'the report is in .perun/logs: command, version, plugin, phase, signal' '
	(cd proj && rm -f .perun/logs/crash-* &&
	 expect_crash 139 "plugin '"'"'crash_show'"'"' ($TRASH_DIRECTORY/crash/view/crash_show.so) crashed in show (SIGSEGV); the store is left as it was" \
		show "$PROFILE" crash_show &&
	 echo "$report" | grep -E "^\.perun/logs/crash-[0-9]{8}-[0-9]{6}-[0-9]+\.txt$" &&
	 ls .perun/logs/crash-* >reports && echo "$report" >expect && test_cmp expect reports &&
	 sed -n "s/^command: *[^ ]*perun //p" "$report" >actual &&
	 echo "--plugin-path $CRASH_PATH show $PROFILE crash_show" >expect &&
	 test_cmp expect actual &&
	 test_grep -x "version: *$(perun --version)" "$report" &&
	 test_grep -x "crash: *plugin '"'"'crash_show'"'"' ($TRASH_DIRECTORY/crash/view/crash_show.so) crashed in show (SIGSEGV)" "$report" &&
	 test_grep -x "signal: *SIGSEGV" "$report" &&
	 test_grep -x "plugin: *crash_show (view)" "$report" &&
	 test_grep -x "phase: *show" "$report" &&
	 test_grep -x "  view  *crash_show  *0  *$TRASH_DIRECTORY/crash/view/crash_show.so" "$report" &&
	 test_grep -x "  vcs  *git  *[0-9.]*  *$PERUN_PLUGIN_PATH/vcs/git.so" "$report")
'

# glibc prints a frame as "file(symbol+offset) [address]"; the plugin that
# raised the signal is on the stack below the handler.
test_expect_success 'the report has a backtrace through the crashing plugin' '
	(cd proj && sed -n "/^backtrace/,\$p" "$(ls .perun/logs/crash-*)" >frames &&
	 test_grep "(.*) *\[0x[0-9a-f]*\]$" frames &&
	 test_grep "^$TRASH_DIRECTORY/crash/view/crash_show\.so(" frames)
'

# The editor runs while perun waits in its own code: killing perun from
# there is a crash of perun itself.
test_expect_success 'perun crashing itself gets a report too' '
	(cd proj && rm -f .perun/logs/crash-* &&
	 EDITOR="kill -ABRT \$PPID; :" &&
	 export EDITOR &&
	 expect_crash 134 "internal error: SIGABRT (a bug in perun; please report it)" \
		config edit &&
	 test_grep -x "signal: *SIGABRT" "$report" &&
	 test_grep -x "plugin: *none: perun itself crashed" "$report" &&
	 test_grep "^backtrace" "$report")
'

test_expect_success 'outside an instance the report goes to the XDG state directory' '
	mkdir -p outside && (cd outside &&
	 XDG_STATE_HOME="$TRASH_DIRECTORY/state" && export XDG_STATE_HOME &&
	 expect_crash 139 "plugin '"'"'crash_show'"'"' ($TRASH_DIRECTORY/crash/view/crash_show.so) crashed in show (SIGSEGV); the store is left as it was" \
		show "$PROFILE" crash_show &&
	 case $report in "$TRASH_DIRECTORY"/state/perun/crash-*.txt) ;; *) false ;; esac &&
	 unset XDG_STATE_HOME &&
	 expect_crash 139 "plugin '"'"'crash_show'"'"' ($TRASH_DIRECTORY/crash/view/crash_show.so) crashed in show (SIGSEGV); the store is left as it was" \
		show "$PROFILE" crash_show &&
	 case $report in "$HOME"/.local/state/perun/crash-*.txt) ;; *) false ;; esac)
'

# A vcs plugin is marked like the others: the call that crashes is named,
# whether perun asks it something (status) or moves the work tree (collect
# at another revision checks it out).
test_expect_success 'a vcs plugin crashing in major_head or checkout is named' '
	stage crash vcs crash_vcs &&
	mkdir vproj && (cd vproj &&
	 perun --plugin-path "$CRASH_PATH" init --vcs-type crash_vcs >/dev/null &&
	 store_but_logs >before &&
	 expect_crash 139 "plugin '"'"'crash_vcs'"'"' ($TRASH_DIRECTORY/crash/vcs/crash_vcs.so) crashed in major_head (SIGSEGV); the store is left as it was" \
		status &&
	 test_grep -x "phase: *major_head" "$report" &&
	 expect_crash 139 "plugin '"'"'crash_vcs'"'"' ($TRASH_DIRECTORY/crash/vcs/crash_vcs.so) crashed in checkout (SIGSEGV); the store is left as it was" \
		collect -c true -m other time &&
	 test_grep -x "perun: the original branch and working tree are restored" err &&
	 test_grep -x "plugin: *crash_vcs (vcs)" "$report" &&
	 test_grep -x "phase: *checkout" "$report" &&
	 store_but_logs >after && test_cmp before after)
'

# The crash of a plugin while another version is checked out: the
# supervisor (core/supervise.c) puts back HEAD, the branch, the staged,
# unstaged and untracked changes, as Ctrl-C does, and relays the signal.
tree_state() {
	git symbolic-ref HEAD && git rev-parse HEAD && git status --porcelain &&
	git diff && git diff --cached && git stash list && cat untracked
}

test_expect_success 'a collector crashing at another version: the tree is restored' '
	git init -q -b main tree && (cd tree &&
	 echo one >file && git add file && git commit -q -m one &&
	 echo two >file && git commit -q -am two &&
	 perun init >/dev/null &&
	 printf "%s\n" .perun err line expect before after >.git/info/exclude &&
	 echo dirty >file && echo staged >new && git add new && echo mine >untracked &&
	 tree_state >before &&
	 expect_crash 139 "plugin '"'"'crash_collect'"'"' ($TRASH_DIRECTORY/crash/collect/crash_collect.so) crashed in collect (SIGSEGV); the store is left as it was" \
		run -m HEAD~1 job -b true -c crash_collect &&
	 test_grep -x "perun: the original branch and working tree are restored" err &&
	 tree_state >after && test_cmp before after &&
	 expect_crash 139 "plugin '"'"'crash_collect'"'"' ($TRASH_DIRECTORY/crash/collect/crash_collect.so) crashed in collect (SIGSEGV); the store is left as it was" \
		collect -c true -m HEAD -m HEAD~1 crash_collect &&
	 tree_state >after && test_cmp before after)
'

# A collector deaf to its timeout (it never looks at ctx->interrupted) is
# given as long again, then named like a crash; perun exits 3 rather than
# hang with it, and at another version the tree is restored.
test_expect_success 'a collector that ignores its timeout is named and ended' '
	stage crash collect hang_collect &&
	(cd tree && tree_state >before &&
	 expect_crash 3 "plugin '"'"'hang_collect'"'"' ($TRASH_DIRECTORY/crash/collect/hang_collect.so) did not stop in collect (its 1 s timeout and 1 s more); the store is left as it was" \
		collect --timeout 1 -c true hang_collect &&
	 test_grep -x "plugin: *hang_collect (collect)" "$report" &&
	 expect_crash 3 "plugin '"'"'hang_collect'"'"' ($TRASH_DIRECTORY/crash/collect/hang_collect.so) did not stop in collect (its 1 s timeout and 1 s more); the store is left as it was" \
		run --timeout 1 -m HEAD~1 job -b true -c hang_collect &&
	 test_grep -x "perun: the original branch and working tree are restored" err &&
	 tree_state >after && test_cmp before after)
'

test_done
