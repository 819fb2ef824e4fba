#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Each plugin's configure switch: summary, --disable-X, and a plugin asked
# for explicitly without its dependencies failing configure.
. "$srcdir/tests/test-lib.sh"

[ -x "$TEST_SRCDIR/configure" ] || test_skip_all "no generated configure in $TEST_SRCDIR"

# A pkg-config that knows everything but libgit2.
cat >fake-pkg-config <<EOF
#!/bin/sh
for a in "\$@"; do case "\$a" in libgit2*) exit 1 ;; esac; done
exec pkg-config "\$@"
EOF
chmod +x fake-pkg-config

test_expect_success 'the summary lists every plugin and what is built' '
	mkdir b1 && (cd b1 && "$TEST_SRCDIR/configure" --disable-time >out 2>&1) &&
	test_grep "summary of plugins to build" b1/out &&
	test_grep -E "^ +vcs +git +yes" b1/out &&
	test_grep -E "^ +collect +time +no \(disabled\)" b1/out &&
	test_grep -E "^ +view +tableof +yes" b1/out
'

test_expect_success 'a plugin without its dependencies is silently left out by default' '
	mkdir b2 && (cd b2 && PKG_CONFIG="$TRASH_DIRECTORY/fake-pkg-config" \
		"$TEST_SRCDIR/configure" >out 2>&1) &&
	test_grep -E "^ +vcs +git +no \(dependencies not found\)" b2/out
'

test_expect_success 'asking for it explicitly makes configure fail, naming it' '
	mkdir b3 && (cd b3 && PKG_CONFIG="$TRASH_DIRECTORY/fake-pkg-config" \
		test_must_fail "$TEST_SRCDIR/configure" --enable-git >out 2>&1) &&
	test_grep "plugin .git. was requested but its dependencies are missing" b3/out
'

test_done
