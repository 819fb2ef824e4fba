#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The installed SDK works for an out-of-tree plugin: perun is configured
# and installed into a prefix in the trash directory, the standalone
# template is instantiated, built with autoreconf/configure/make against
# that prefix, installed into the per-user plugin directory, and the
# INSTALLED perun finds it and shows a profile with it.
. "$srcdir/tests/test-lib.sh"

for tool in autoreconf make pkg-config cc; do
	command -v $tool >/dev/null 2>&1 || test_skip_all "$tool is not installed"
done

HEADER="$TEST_SRCDIR/sdk/include/perun/plugin.h"
MAJOR=$(sed -n 's/^#define PERUN_PLUGIN_ABI_MAJOR \([0-9]*\)$/\1/p' "$HEADER")
MINOR=$(sed -n 's/^#define PERUN_PLUGIN_ABI_MINOR \([0-9]*\)$/\1/p' "$HEADER")
PREFIX="$TRASH_DIRECTORY/prefix"
NAME=sdk_demo
PROFILE="$TESTDATA/full_profiles/prof-1-time-2017-03-19-19-17-36.perf"
USERDIR="$XDG_DATA_HOME/perun/plugins"
cat >tiny.perf <<'EOF'
{
  "header": {"type": "time", "cmd": "prog", "args": "", "workload": "",
             "units": {"time": "s"}},
  "collector_info": {"name": "time", "params": {}},
  "postprocessors": [],
  "models": [],
  "resources": {"main#0": {"amount": [3.0, 1.5]}},
  "resource_type_map": {"main#0": {"uid": "main", "type": "time"}}
}
EOF
# Our own makes: nothing from the make running this test (TESTS=..., -j
# jobserver, DESTDIR) may leak into them.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
# The installed perun, not the build tree's, and no staged plugins.
unset PERUN_PLUGIN_PATH
PATH="$PREFIX/bin:$PATH"
export PATH

# svs for the instances; time and aat: the fuzz template profiles the
# fuzzed command with the one and judges it with the other.
test_expect_success 'perun configures and installs into a prefix' '
	mkdir build &&
	(
		cd build &&
		"$TEST_SRCDIR/configure" --prefix="$PREFIX" --enable-all-plugins=no --enable-svs \
			--enable-time --enable-aat >configure.log 2>&1 &&
		make -j2 install >install.log 2>&1
	) || { tail -n 30 build/configure.log build/install.log; false; }
'

test_expect_success 'the SDK is installed where pkg-config and aclocal find it' '
	for h in plugin perun error params profile fsutil; do
		test -f "$PREFIX/include/perun-$MAJOR/perun/$h.h" || { echo "no $h.h"; return 1; }
	done &&
	test -f "$PREFIX/lib/pkgconfig/perun-plugin.pc" &&
	test -f "$PREFIX/share/aclocal/perun.m4" &&
	test -x "$PREFIX/bin/perun" &&
	test -f "$PREFIX/share/man/man1/perun-plugins.1" &&
	test -f "$PREFIX/share/bash-completion/completions/perun" &&
	PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --variable=plugin_abi perun-plugin >actual &&
	echo "$MAJOR.$MINOR" >expect &&
	test_cmp expect actual &&
	PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --variable=pluginsdir perun-plugin >actual &&
	echo "$PREFIX/lib/perun/plugins" >expect &&
	test_cmp expect actual
'

test_expect_success 'the installed headers are self-contained' '
	cflags=$(PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --cflags perun-plugin) &&
	for h in plugin perun; do
		printf "#include <perun/%s.h>\nint main(void) { return 0; }\n" $h >inc-$h.c &&
		cc -std=c11 -Wall -Wextra -Werror $cflags -c inc-$h.c -o inc-$h.o || return 1
	done
'

test_expect_success 'an annotated program builds with pkg-config perun-annotate and writes JSON' '
	test -f "$PREFIX/share/man/man3/perun-annotate.3" &&
	test -f "$PREFIX/share/perun/python/perun_annotate.py" &&
	printf "#include <perun/annotate.h>\nint main(void) { PERUN_SYNC_SCOPE(all); return 0; }\n" >ann.c &&
	cc -std=c11 -Wall -Wextra -Werror -o ann ann.c \
		$(PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --cflags --libs perun-annotate) \
		-Wl,-rpath,"$PREFIX/lib" &&
	mkdir annlog && PERUN_ANNOTATE="log-dir=annlog:log-event=compact" ./ann &&
	grep -q "\"ph\":\"X\",\"name\":\"all\"" annlog/*
'

test_expect_success 'the installed perun says where the system plugins are' '
	perun --version >version &&
	test_grep "^Perun " version &&
	perun plugins list -v >list &&
	test_grep "^  $PREFIX/lib/perun/plugins\$" list &&
	test_grep "^  $USERDIR\$" list
'

test_expect_success 'utils create --standalone makes the project, without tokens left' '
	perun utils create view $NAME --standalone proj --no-edit >out &&
	test_grep "^created proj:$" out &&
	test -f proj/$NAME.c &&
	test -f proj/configure.ac &&
	test -f proj/Makefile.am &&
	test -f proj/tests/t9300-$NAME.sh &&
	test -f proj/tests/test-lib.sh &&
	test_must_fail test -e proj/local.mk &&
	test_must_fail test -e proj/plugin.m4 &&
	test_must_fail grep -r "@[A-Za-z_]*@" proj
'

# One project, from autoreconf to make install, against the prefix's SDK.
build_project() {
	(
		cd "$1" &&
		ACLOCAL_PATH="$PREFIX/share/aclocal" autoreconf -fi >autoreconf.log 2>&1 &&
		./configure PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" CFLAGS="-O2 -Werror" \
			--with-perun-plugindir="$USERDIR" >configure.log 2>&1 &&
		make >make.log 2>&1 &&
		make check >check.log 2>&1 &&
		make install >install.log 2>&1
	) || { tail -n 30 "$1"/*.log "$1"/tests/*.log; false; }
}

# Its test-suite.log: every test passed, none skipped, at least one ran.
suite_passed() {
	sed -n "s/^# \([A-Z]*\): *\([0-9]*\)$/\1 \2/p" "$1/test-suite.log" >counts &&
	total=$(sed -n "s/^TOTAL //p" counts) &&
	test "$total" -gt 0 &&
	grep -x "PASS $total" counts &&
	grep -x "SKIP 0" counts
}

test_expect_success 'autoreconf, configure, make -Werror, make check, make install against the SDK' '
	build_project proj
'

test_expect_success 'configure found the SDK and the installed perun' '
	test_grep "^PERUN = $PREFIX/bin/perun\$" proj/Makefile &&
	test_grep "^perun_plugindir = $USERDIR\$" proj/Makefile &&
	test_grep "^PERUN_CFLAGS = .*-I$PREFIX/include/perun-$MAJOR" proj/Makefile &&
	suite_passed proj
'

test_expect_success 'the plugin is installed as <user dir>/view/<name>.so' '
	test -f "$USERDIR/view/$NAME.so" &&
	nm -D --defined-only "$USERDIR/view/$NAME.so" | sed -n "s/^[0-9a-f]* T //p" >exported &&
	echo perun_plugin_${NAME}_describe >expect &&
	test_cmp expect exported
'

test_expect_success 'the installed perun loads it from the per-user directory' '
	perun plugins inspect $NAME >inspect &&
	test_grep "^kind:    view\$" inspect &&
	test_grep "^path:    $USERDIR/view/$NAME.so\$" inspect &&
	test_grep "^abi:     $MAJOR.$MINOR (core $MAJOR.$MINOR)\$" inspect &&
	test_must_fail grep "^status:  rejected" inspect &&
	LD_BIND_NOW=1 perun plugins list --format json >json &&
	jq -r ".plugins[] | select(.name == \"$NAME\") | .status" json >actual &&
	echo ok >expect &&
	test_cmp expect actual
'

# The same totals computed from the file with jq.
expected_totals() {
	printf "%-30s %8s %14s\n" uid count amount &&
	jq -r '.resource_type_map as $m
		| [.resources | to_entries[]
		   | {uid: $m[.key].uid, n: (.value.amount | length), s: (.value.amount | add)}]
		| group_by(.uid)
		| map({uid: .[0].uid, n: (map(.n) | add), s: (map(.s) | add)})
		| sort_by(-.s, .uid) | .[] | "\(.uid) \(.n) \(.s)"' "$1" |
	while read -r uid n s; do
		printf "%-30s %8d %14g\n" "$uid" "$n" "$s"
	done
}

if test -f "$PROFILE"; then
	test_expect_success 'and shows a real profile with it' '
		perun show "$PROFILE" $NAME >out &&
		expected_totals "$PROFILE" >expect &&
		test_cmp expect out &&
		perun show "$PROFILE" $NAME --limit 1 >out &&
		head -n 2 expect >expect.1 &&
		test_cmp expect.1 out
	'
else
	say "no shared test data at $TESTDATA: not showing a real profile"
fi

test_expect_success 'its errors reach the user through perun' '
	test_exit_code 2 perun show tiny.perf $NAME --limit -2 2>err &&
	test_grep "^perun: view '\''$NAME'\'': --limit must not be negative (got -2)\$" err
'

# Every other kind of the installed templates, as a project of its own:
# built with -Werror, its tests passed, installed, found by the installed
# perun and run through its command.
KINDS=$(ls "$PREFIX/share/perun/templates/in-tree" | grep -v "^view$")

test_expect_success 'the installed templates cover the ABI kinds' '
	echo $KINDS >actual &&
	echo check collect fuzz postprocess vcs >expect &&
	test_cmp expect actual
'

for kind in $KINDS; do
	test_expect_success "utils create $kind --standalone: built, tested, installed" '
		perun utils create $kind sdk_$kind --standalone proj-$kind --no-edit >out &&
		test_must_fail grep -r "@[A-Za-z_]*@" proj-$kind &&
		build_project proj-$kind &&
		suite_passed proj-$kind &&
		test -f "$USERDIR/$kind/sdk_$kind.so" &&
		perun plugins inspect sdk_$kind >inspect &&
		test_grep "^kind:    $kind\$" inspect &&
		test_grep "^path:    $USERDIR/$kind/sdk_$kind.so\$" inspect &&
		test_must_fail grep "^status:  rejected" inspect
	'
done

test_expect_success 'the installed plugins run through their commands' '
	perun init --vcs-type sdk_vcs vproj >out &&
	test_grep "^  type: sdk_vcs$" vproj/.perun/local.yml &&
	perun init --vcs-type svs run >/dev/null &&
	(cd run && perun collect -c true sdk_collect --repeat 2 >../out) &&
	test_grep "^Collected profile .*/sdk_collect-.*\.perf$" out &&
	(cd run && perun postprocessby ../tiny.perf sdk_postprocess --factor 2 >../out 2>&1) &&
	p=$(ls run/.perun/jobs/time-*.perf) &&
	jq -e ".resources[\"main#0\"].amount == [6, 3]" "$p" &&
	jq -r ".postprocessors[].name" "$p" >actual &&
	echo sdk_postprocess >expect &&
	test_cmp expect actual &&
	(cd run && perun config --shared set degradation.strategies \
		"[{method: sdk_check_mean_threshold}]" >/dev/null &&
	 perun config --local set degradation.strategies \
		"[{method: sdk_check_mean_threshold}]" >/dev/null &&
	 perun check profiles ../tiny.perf ../tiny.perf --format json >../check.json) &&
	jq -r ".verdicts[] | [.location, .result, .method] | join(\"|\")" check.json >actual &&
	echo "main|NoChange|sdk_check" >expect &&
	test_cmp expect actual &&
	printf 0123456789 >seed &&
	perun fuzz --fuzzer sdk_fuzz --cmd cat --input-sample seed --output-dir fuzzed \
		--exec-limit 2 >out &&
	test_grep "^round 2: fuzzed/sdk_fuzz-2.in, 40 bytes" out
'

test_expect_success 'a user template in $XDG_DATA_HOME/perun/templates comes first' '
	mkdir -p "$XDG_DATA_HOME/perun/templates" &&
	cp -R "$PREFIX/share/perun/templates/in-tree/view" "$XDG_DATA_HOME/perun/templates/view" &&
	echo "A user template of @name@" >"$XDG_DATA_HOME/perun/templates/view/README.md" &&
	perun utils create view mine --standalone mine-standalone --no-edit >out &&
	test -f mine-standalone/configure.ac &&
	test_grep "^# mine - a Perun view plugin" mine-standalone/README.md &&
	mkdir -p "$XDG_DATA_HOME/perun/templates/standalone" &&
	cp -R "$PREFIX/share/perun/templates/standalone/." "$XDG_DATA_HOME/perun/templates/standalone" &&
	echo "The project of @name@, a @kind@" >"$XDG_DATA_HOME/perun/templates/standalone/README.md" &&
	perun utils create view mine --standalone mine2 --no-edit >out &&
	echo "The project of mine, a view" >expect &&
	test_cmp expect mine2/README.md &&
	rm -rf "$XDG_DATA_HOME/perun/templates"
'

test_expect_success 'utils create refuses, naming the thing, and writes nothing' '
	mkdir exists &&
	: a file as the parent: unwritable even for root &&
	for args in "model x --standalone new" "view Bad --standalone new" \
		"view a-b --standalone new" "view ok --standalone exists" \
		"view ok --standalone tiny.perf/sub" "view ok" "view ok --in-tree"; do
		test_must_fail perun utils create $args --no-edit 2>err &&
		test $(wc -l <err) -eq 1 &&
		test_grep "^perun: " err || return 1
	done &&
	test_must_fail test -e new &&
	ls -A exists >actual &&
	test_cmp /dev/null actual &&
	ls -d tiny.perf* >actual &&
	echo tiny.perf >expect &&
	test_cmp expect actual &&
	perun utils create model x --standalone new 2>err;
	test_grep "unknown plugin kind .model." err &&
	perun utils create view ok --standalone exists 2>err;
	test_grep "exists. already exists" err &&
	perun utils create view ok 2>err;
	test_grep "is not in a perun source checkout" err
'

test_expect_success 'without --no-edit, $VISUAL or $EDITOR opens the source' '
	EDITOR="echo edited" perun utils create view ed1 --standalone ed1 >out &&
	test_grep "^edited ed1/ed1.c$" out &&
	VISUAL="echo visual" EDITOR=false perun utils create view ed2 --standalone ed2 >out &&
	test_grep "^visual ed2/ed2.c$" out &&
	test_exit_code 3 env EDITOR=false perun utils create view ed3 --standalone ed3 2>err &&
	test_grep "the editor failed" err &&
	test -f ed3/ed3.c
'

test_expect_success 'configure without the SDK fails naming perun-plugin' '
	(
		cd proj &&
		test_must_fail ./configure PKG_CONFIG_PATH=/nonexistent \
			PKG_CONFIG_LIBDIR=/nonexistent >noconf.log 2>&1
	) &&
	test_grep "perun-plugin" proj/noconf.log
'

test_expect_success 'make uninstall removes the plugin, and perun no longer finds it' '
	(cd proj && make uninstall >uninstall.log 2>&1) &&
	test_must_fail test -f "$USERDIR/view/$NAME.so" &&
	test_exit_code 2 perun plugins inspect $NAME 2>err &&
	test_grep "no plugin named '\''$NAME'\''" err
'

test_done
