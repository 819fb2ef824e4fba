#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The build's own plugins and ABI bookkeeping: every staged plugin loads
# with immediate binding, every plugin directory is wired into the build,
# and the ABI number agrees between plugin.h, its change log and the .pc.
. "$srcdir/tests/test-lib.sh"

STAGE="$TEST_BUILDDIR/stage/plugins"
HEADER="$TEST_SRCDIR/sdk/include/perun/plugin.h"

# Libraries a plugin preloads into profiled programs (lib*.so, staged in
# stage/runtime) are not plugins.
test_expect_success 'every built plugin is staged' '
	(cd "$TEST_BUILDDIR" && ls plugins/*/*/.libs/*.so 2>/dev/null) |
		grep -v "/lib[^/]*\.so\$" |
		sed "s|^plugins/\([a-z]*\)/[^/]*/\.libs/\(.*\)\$|\1/\2|" | sort >built &&
	(cd "$STAGE" 2>/dev/null && ls */*.so 2>/dev/null) | sort >staged &&
	test_cmp built staged
'

test_expect_success 'every staged plugin loads with LD_BIND_NOW=1' '
	LD_BIND_NOW=1 perun --plugin-path "$STAGE" plugins list -v >list &&
	cat list &&
	test_must_fail grep REJECTED list &&
	LD_BIND_NOW=1 perun --plugin-path "$STAGE" plugins list --format json >json &&
	jq -r ".plugins[] | select(.path | startswith(\"$STAGE/\")) | .status" json |
		sort -u >status &&
	if test -s staged; then echo ok >expect; else : >expect; fi &&
	test_cmp expect status &&
	jq -r ".plugins[] | select(.path | startswith(\"$STAGE/\")) | .kind + \"/\" + .name + \".so\"" json |
		sort >loaded &&
	test_cmp staged loaded
'

test_expect_success 'the staging check does fail on a broken plugin' '
	mkdir -p broken/view &&
	cp "$TEST_BUILDDIR/tests/abi/.libs/undefined_symbol.so" broken/view/ &&
	LD_BIND_NOW=1 perun --plugin-path "$PWD/broken" plugins list -v >list &&
	test_grep "REJECTED: .*undefined symbol: abi_test_undefined_function" list
'

test_expect_success 'every plugins/*/*/local.mk is included from Makefile.am' '
	(cd "$TEST_SRCDIR" && ls plugins/*/*/local.mk) |
		sed "s|^|include \$(top_srcdir)/|" | sort >expect &&
	grep "^include \$(top_srcdir)/plugins/" "$TEST_SRCDIR/Makefile.am" | sort >actual &&
	test_cmp expect actual
'

test_expect_success 'every plugins/*/*/plugin.m4 and plugins/lib/*/lib.m4 is included from configure.ac' '
	(cd "$TEST_SRCDIR" && ls plugins/*/*/plugin.m4 plugins/lib/*/lib.m4) |
		sed "s|^\(.*\)\$|m4_include([\1])|" | sort >expect &&
	grep "^m4_include(\[plugins/" "$TEST_SRCDIR/configure.ac" | sort >actual &&
	test_cmp expect actual
'

test_expect_success 'the ABI change log of plugin.h ends at PERUN_PLUGIN_ABI_MAJOR.MINOR' '
	major=$(sed -n "s/^#define PERUN_PLUGIN_ABI_MAJOR \([0-9]*\)\$/\1/p" "$HEADER") &&
	minor=$(sed -n "s/^#define PERUN_PLUGIN_ABI_MINOR \([0-9]*\)\$/\1/p" "$HEADER") &&
	test -n "$major" && test -n "$minor" &&
	sed -n "1,/\*\//s/^ \*   \([0-9][0-9]*\.[0-9][0-9]*\)  .*/\1/p" "$HEADER" >log &&
	test -s log &&
	tail -n 1 log >last &&
	echo "$major.$minor" >expect &&
	test_cmp expect last &&
	grep "^$major\." log >series &&
	i=0 && : >expect &&
	while test $i -le $minor; do echo "$major.$i" >>expect; i=$((i + 1)); done &&
	test_cmp expect series
'

test_expect_success 'perun-plugin.pc carries the same plugin_abi' '
	major=$(sed -n "s/^#define PERUN_PLUGIN_ABI_MAJOR \([0-9]*\)\$/\1/p" "$HEADER") &&
	minor=$(sed -n "s/^#define PERUN_PLUGIN_ABI_MINOR \([0-9]*\)\$/\1/p" "$HEADER") &&
	PKG_CONFIG_PATH="$TEST_BUILDDIR/sdk" pkg-config --variable=plugin_abi perun-plugin >actual &&
	echo "$major.$minor" >expect &&
	test_cmp expect actual &&
	PKG_CONFIG_PATH="$TEST_BUILDDIR/sdk" pkg-config --cflags perun-plugin >cflags &&
	test_grep -e "/perun-$major\\( \\|\$\\)" cflags
'

test_done
