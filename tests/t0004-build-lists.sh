#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Nothing is left out of the build by a forgotten list entry: every plugin
# directory is listed by scripts/list-plugins.sh (and the generated lists
# are current), every plugin is built and staged, and every command file
# is compiled and reachable from the command table.
. "$srcdir/tests/test-lib.sh"

SRC=$TEST_SRCDIR

test_expect_success 'the generated plugin lists are current' '
	sh "$SRC/scripts/list-plugins.sh" --check
'

test_expect_success 'every plugin source directory has its local.mk and plugin.m4' '
	for d in "$SRC"/plugins/*/*/; do
		d=${d%/}
		grep -qs "^PERUN_PLUGIN_DEFINE(" "$d"/*.c || continue
		for f in local.mk plugin.m4; do
			test -f "$d/$f" || { echo "$d has no $f"; exit 1; }
		done
	done
'

# A plugin that configure enabled but no rule built would be missing here.
test_expect_success 'every enabled plugin is built and staged' '
	for m4 in "$SRC"/plugins/*/*/plugin.m4; do
		spec=$(sed -n "s/^PERUN_PLUGIN(\[\([a-z0-9_]*\)\], \[\([a-z]*\)\].*/\1 \2/p" "$m4")
		test -n "$spec" || continue
		set -- $spec
		grep -q "^    $2 *$1 *yes" "$TEST_BUILDDIR/config.log" || continue
		test -e "$TEST_BUILDDIR/stage/plugins/$2/$1.so" ||
			{ echo "$2 plugin $1 is enabled but not built"; exit 1; }
	done
'

test_expect_success 'every command file is compiled' '
	for f in "$SRC"/core/cmd_*.c; do
		grep -q "core/$(basename "$f")" "$SRC/core/local.mk" ||
			{ echo "$f is not in core/local.mk"; exit 1; }
	done
'

test_expect_success 'every command is in the table or a group of it' '
	for f in "$SRC"/core/cmd_*.c; do
		for cmd in $(sed -n "s/^const struct perun_command perun_cmd_\([a-z0-9_]*\) = .*/\1/p" "$f"); do
			grep -q "X($cmd)" "$SRC/core/command_list.h" ||
				grep -q "&perun_cmd_$cmd\b" "$SRC"/core/*.c ||
				{ echo "perun_cmd_$cmd of $f is in no table"; exit 1; }
		done
	done
'

test_done
