#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# A new in-tree plugin needs no edit of any build file: in a copy of the
# source tree 'perun utils create' makes one plugin of every kind of
# templates/in-tree (one through scripts/new-plugin.sh, which runs it, and
# two without their optional phases), ./autogen.sh lists them, configure offers and
# summarises their switches, make builds and stages them with -Werror,
# the built perun lists them, and each template's own test (which runs the
# plugin through its command) passes through make check.  One autogen, one
# configure (every other plugin off but svs, the dependency-free vcs the
# template tests make their instances with, and time and aat, which the fuzz
# template profiles and judges with) and one build for all of them.
. "$srcdir/tests/test-lib.sh"

# jq: the template tests skip without it, and a skip here would hide them.
for tool in autoreconf make cc jq; do
	command -v $tool >/dev/null 2>&1 || test_skip_all "$tool is not installed"
done
# A source tree configured in place would refuse the copy's VPATH build.
test -f "$TEST_SRCDIR/config.status" &&
	test_skip_all "the source tree is configured in place (needs a separate build directory)"

SRC=$TRASH_DIRECTORY/src
KINDS=$(ls "$TEST_SRCDIR/templates/in-tree")
# Without their optional phases (--no-before-phase, --no-after-phase).
BARE="demo_bare_collect demo_bare_postprocess"
# Our own makes: nothing from the make running this test (TESTS=..., -j
# jobserver) may leak into them.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

# The build files, to prove that adding the plugins changed none of them.
build_files() {
	(cd "$SRC" && {
		ls Makefile.am configure.ac autogen.sh m4/perun-*.m4 scripts/* &&
		find . -name local.mk ! -path "./plugins/*/demo_*" &&
		find . -name "*.m4" ! -path "./plugins/*/demo_*" ! -path ./plugins/plugins.m4 \
			! -path "./autom4te.cache/*" ! -path ./aclocal.m4 ! -path "./m4/l*"
	} | LC_ALL=C sort | xargs sha1sum)
}

test_expect_success 'copy the source tree, without what autogen and builds make' '
	mkdir "$SRC" &&
	for entry in $(cd "$TEST_SRCDIR" && ls -A); do
		case $entry in
		.git|autom4te.cache|_build|_inst|configure|configure~|Makefile|Makefile.in| \
		aclocal.m4|autoconfig.h|autoconfig.h.in|autoconfig.h.in~|config.log| \
		config.status|libtool|stamp-h1|perun-*) continue ;;
		esac
		path=$TEST_SRCDIR/$entry &&
		# A build directory: this test runs in one, others have config.status.
		case $TEST_BUILDDIR/ in "$path"/*) continue ;; esac
		if test -d "$path" &&
			test -n "$(find "$path" -maxdepth 2 -name config.status)"; then
			continue
		fi
		cp -R "$path" "$SRC/" || return 1
	done &&
	chmod -R u+w "$SRC" &&
	test -x "$SRC/scripts/new-plugin.sh" &&
	test -f "$SRC/templates/in-tree/view/@name@.c" &&
	build_files >build-files.before
'

# perun names the ABI's kinds when refusing an unknown one.
test_expect_success 'the kinds are those of the plugin ABI' '
	echo $KINDS >actual &&
	(cd "$SRC" && test_exit_code 2 perun utils create nosuchkind x --no-edit) 2>err &&
	echo $(sed -n "s/.*(choose from \(.*\))$/\1/p" err | tr -d , | tr " " "\n" | sort) \
		>expect &&
	test -s expect &&
	test_cmp expect actual
'

test_expect_success 'utils create makes one plugin of each kind' '
	for kind in $KINDS; do
		if test $kind = view; then
			PERUN=perun "$SRC/scripts/new-plugin.sh" $kind demo_$kind >out.$kind
		else
			(cd "$SRC/plugins" && perun utils create $kind demo_$kind --no-edit) >out.$kind
		fi || return 1
		test_grep "^created $SRC/plugins/$kind/demo_$kind:$" out.$kind &&
		test_grep "^now run ./autogen.sh" out.$kind &&
		test -f "$SRC/plugins/$kind/demo_$kind/demo_$kind.c" &&
		test -f "$SRC/plugins/$kind/demo_$kind/local.mk" &&
		test -f "$SRC/plugins/$kind/demo_$kind/plugin.m4" &&
		test -f "$SRC/plugins/$kind/demo_$kind/README.md" &&
		test -x "$SRC"/plugins/$kind/demo_$kind/tests/t9*-demo_$kind.sh || return 1
	done &&
	test_must_fail grep -rn "@[A-Za-z_!]*@" "$SRC"/plugins/*/demo_*
'

test_expect_success 'without the optional phases' '
	(cd "$SRC" &&
	 perun utils create collect demo_bare_collect --no-before-phase --no-edit &&
	 perun utils create postprocess demo_bare_postprocess -nb -na -ne) >out &&
	c="$SRC/plugins/collect/demo_bare_collect/demo_bare_collect.c" &&
	p="$SRC/plugins/postprocess/demo_bare_postprocess/demo_bare_postprocess.c" &&
	test_must_fail grep -e "_before\|_after" "$c" "$p" &&
	test_grep "if (!ctx->state)" "$c" &&
	test_grep "\.before = demo_collect_before" "$SRC/plugins/collect/demo_collect/demo_collect.c" &&
	test_grep "\.after = demo_postprocess_after" \
		"$SRC/plugins/postprocess/demo_postprocess/demo_postprocess.c" &&
	test_must_fail grep -rn "@[A-Za-z_!]*@" "$SRC"/plugins/*/demo_bare_*
'

test_expect_success 'utils create refuses an existing plugin, a bad name, a bad kind' '
	for args in "view demo_view" "check demo_view" "view Bad" "view 9lives" \
		"view a-b" "view werror" "model demo_model"; do
		(cd "$SRC" && test_exit_code 2 perun utils create $args --no-edit) 2>err &&
		test $(wc -l <err) -eq 1 &&
		test_grep "^perun: " err || return 1
	done &&
	test_grep "unknown plugin kind .model. (choose from collect, postprocess, view, vcs, check, fuzz)$" err &&
	test_must_fail test -e "$SRC/plugins/check/demo_view" &&
	test_must_fail test -e "$SRC/plugins/model" &&
	test_must_fail test -e "$SRC/plugins/view/Bad"
'

test_expect_success 'autogen.sh lists the new plugins' '
	(cd "$SRC" && ./autogen.sh >autogen.log 2>&1) ||
		{ tail -n 30 "$SRC/autogen.log"; false; }
	for kind in $KINDS; do
		test_grep "^include \$(top_srcdir)/plugins/$kind/demo_$kind/local.mk$" \
			"$SRC/plugins/plugins.am" &&
		test_grep "^m4_include(\[plugins/$kind/demo_$kind/plugin.m4\])$" \
			"$SRC/plugins/plugins.m4" || return 1
	done
'

# Besides them: svs (the template tests' instances), time and aat (the
# fuzz template profiles with the one and judges with the other).
test_expect_success 'configure offers their switches and builds only them (and svs, time, aat)' '
	mkdir build &&
	(cd build && "$SRC/configure" --help >help &&
	 "$SRC/configure" --enable-all-plugins=no --enable-werror --enable-svs \
		--enable-time --enable-aat \
		$(for kind in $KINDS; do printf " --enable-demo_%s" $kind; done) \
		$(for name in $BARE; do printf " --enable-%s" $name; done) \
		>configure.log 2>&1) || { tail -n 30 build/configure.log; false; }
	for kind in $KINDS; do
		test_grep -E -e "--enable-demo_$kind( |\$)" build/help &&
		test_grep "^    $kind  *demo_$kind  *yes" build/configure.log || return 1
	done &&
	sed -n "/ demo_/d; / svs /d; / time /d; / aat /d; /^    [a-z]*  *[a-z0-9_]*  *yes/p" \
		build/configure.log >others &&
	test_cmp /dev/null others
'

test_expect_success 'make builds and stages them (with -Werror)' '
	(cd build && make -j2 >make.log 2>&1) || { tail -n 40 build/make.log; false; }
	for kind in $KINDS; do
		test -f build/stage/plugins/$kind/demo_$kind.so || return 1
	done &&
	test -f build/stage/plugins/collect/demo_bare_collect.so &&
	test -f build/stage/plugins/postprocess/demo_bare_postprocess.so
'

test_expect_success 'the built perun lists and loads them' '
	for kind in $KINDS; do
		PERUN_PLUGIN_PATH=$PWD/build/stage/plugins build/perun plugins inspect demo_$kind \
			>inspect || return 1
		test_grep "^kind:    $kind\$" inspect &&
		test_must_fail grep "^status:  rejected" inspect || return 1
	done
'

test_expect_success 'each template test passes through make check' '
	tests=$(cd "$SRC" && ls plugins/*/demo_*/tests/t9*-demo_*.sh) &&
	test $(echo $tests | wc -w) -eq 8 &&
	(cd build && make -j2 check TESTS="$(echo $tests)" >check.log 2>&1) ||
		{ tail -n 40 build/check.log; cat build/plugins/*/demo_*/tests/*.log; false; }
	for t in $tests; do
		log=build/${t%.sh}.log &&
		test_grep "^ok " "$log" &&
		test_must_fail grep "^not ok" "$log" || return 1
	done &&
	test_grep "^# FAIL: *0$" build/check.log &&
	test_grep "^# ERROR: *0$" build/check.log
'

test_expect_success 'no build file was edited' '
	build_files >build-files.after &&
	test_cmp build-files.before build-files.after
'

test_done
