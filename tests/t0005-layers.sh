#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The layers of the sources hold (scripts/check-layers.sh): libperun's files
# include and call only the layers below them, sdk/ and the plugins never
# include core/ headers, core/ never a plugin's, each file of libperun says
# its layer; and the check fails on a violation of each kind.
. "$srcdir/tests/test-lib.sh"

CHECK="$TEST_SRCDIR/scripts/check-layers.sh"
objects=
for d in "$TEST_BUILDDIR/sdk/lib/.libs" "$TEST_BUILDDIR/sdk/lib"; do
	if ls "$d"/libperun_la-*.o >/dev/null 2>&1; then
		objects=$d
		break
	fi
done
[ -n "$objects" ] || test_skip_all "libperun's objects are not built"
command -v nm >/dev/null || test_skip_all "nm is needed to read the objects"

test_expect_success 'the sources keep their layers, includes and calls' "
	sh '$CHECK' --root '$TEST_SRCDIR' --objects '$objects' >out &&
	test_grep '^layers ok$' out
"

# A copy of the trees to break.
cp -R "$TEST_SRCDIR/sdk" "$TEST_SRCDIR/core" "$TEST_SRCDIR/plugins" "$TRASH_DIRECTORY/" &&
chmod -R u+w "$TRASH_DIRECTORY/sdk" "$TRASH_DIRECTORY/core" "$TRASH_DIRECTORY/plugins"

test_expect_success 'the copy keeps its layers' "
	sh '$CHECK' --root . --objects '$objects'
"

# violation what file script message: with file edited by the sed script,
# the check fails saying message; file is restored after.
violation() {
	test_expect_success "$1" "
		cp '$2' orig &&
		sed '$3' orig >'$2' &&
		test_exit_code 1 sh '$CHECK' --root . --objects '$objects' >out;
		rc=\$? &&
		cp orig '$2' &&
		test \$rc = 0 &&
		test_grep -F '$4' out
	"
}

violation 'an include of a higher layer fails' sdk/lib/json_parse.c \
	'1a #include \"profile_tree.h\"' \
	'sdk/lib/json_parse.c (reader): includes "profile_tree.h" of a higher layer (whole)'
violation 'sdk/ including a core/ header fails' sdk/lib/error.c \
	'1a #include \"../../core/profiles.h\"' \
	'sdk/lib/error.c: includes "../../core/profiles.h" (core/profiles.h): sdk/ may not include from core/'
violation 'a plugin including a core/ header fails' plugins/view/flow/flow.c \
	'1a #include \"profiles.h\"' \
	'plugins/view/flow/flow.c: includes "profiles.h" (core/profiles.h): plugins/ may not include from core/'
violation 'core/ including a plugin header fails' core/views.c \
	'1a #include \"stacks.h\"' \
	'core/views.c: includes "stacks.h" (plugins/lib/view/stacks.h): core/ may not include from plugins/'

violation 'an opening comment naming another layer fails' sdk/lib/flatten.c \
	's/Layer 4 of libperun/Layer 5 of libperun/' \
	'sdk/lib/flatten.c: its opening comment does not say "Layer 4 of libperun" (values)'

test_expect_success 'a file of libperun left out of the layers fails' "
	echo 'int unplaced;' >sdk/lib/unplaced.c &&
	test_exit_code 1 sh '$CHECK' --root . --objects '$objects' >out &&
	rm sdk/lib/unplaced.c &&
	test_grep 'sdk/lib/unplaced.c: not in the layers' out
"

test_expect_success 'a call of a higher layer fails' "
	mkdir objects &&
	echo 'int profile_foreach_type_from(void) { return 0; }' >high.c &&
	printf '%s\n' 'int profile_foreach_type_from(void);' \
		'int json_tape_release(void) { return profile_foreach_type_from(); }' >low.c &&
	cc -c high.c -o objects/libperun_la-profile.o &&
	cc -c low.c -o objects/libperun_la-json_parse.o &&
	test_exit_code 1 sh '$CHECK' --root . --objects objects >out &&
	test_grep 'sdk/lib/json_parse.c (reader): calls profile_foreach_type_from of profile.c (whole), a higher layer' out
"

test_expect_success 'the copy keeps its layers after the tests' "
	sh '$CHECK' --root . --objects '$objects'
"

test_done
