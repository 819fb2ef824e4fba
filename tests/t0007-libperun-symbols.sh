#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# libperun's interface is versioned: the symbols the built library exports
# are those of sdk/libperun.sym, whose newest interface is -version-info's
# current (sdk/local.mk), which is the newest entry of sdk/ChangeLog-ABI,
# and that entry names what it added.  An exported symbol added or removed
# without a new interface number and its change log entry fails here; so
# does an age that claims compatibility with an interface a removal broke.
. "$srcdir/tests/test-lib.sh"

command -v nm >/dev/null 2>&1 || test_skip_all "nm is not installed"
LIB=$TEST_BUILDDIR/sdk/.libs/libperun.so
test -f "$LIB" || test_skip_all "no shared libperun at $LIB (built static only?)"
SYM=$TEST_SRCDIR/sdk/libperun.sym
LOG=$TEST_SRCDIR/sdk/ChangeLog-ABI
VI=$(sed -n 's/.*_libperun_la_LDFLAGS = .*-version-info \([0-9]*:[0-9]*:[0-9]*\).*/\1/p' \
	"$TEST_SRCDIR/sdk/local.mk")
CURRENT=${VI%%:*}
AGE=${VI##*:}

test_expect_success 'sdk/local.mk gives libperun a -version-info' '
	echo "$VI" | grep -E "^[0-9]+:[0-9]+:[0-9]+$" &&
	test "$AGE" -le "$CURRENT"
'

test_expect_success 'the exported symbols are those of sdk/libperun.sym' '
	nm -D --defined-only "$LIB" | awk "\$2 ~ /^[TDBRVWiu]\$/ { print \$3 }" |
		LC_ALL=C sort >exported &&
	awk "!/^#/ && NF == 2 { print \$1 }" "$SYM" | LC_ALL=C sort >recorded &&
	test_cmp recorded exported || {
		echo "# libperun exports other symbols than sdk/libperun.sym records:"
		echo "# a new interface number (sdk/local.mk), its ChangeLog-ABI entry"
		echo "# and the symbols in sdk/libperun.sym are due"
		false
	}
'

test_expect_success 'the newest interface of the list is -version-info current' '
	awk "!/^#/ && NF >= 2 { print \$2; if (NF == 3) print \$3 }" "$SYM" |
		sort -n | tail -n 1 >newest &&
	echo "$CURRENT" >expect &&
	test_cmp expect newest
'

test_expect_success 'the newest ChangeLog-ABI entry is this -version-info' '
	sed -n "s/^Interface \([0-9]*\) (-version-info \([0-9:]*\),.*/\1 \2/p" "$LOG" |
		head -n 1 >actual &&
	echo "$CURRENT $VI" >expect &&
	test_cmp expect actual
'

# The text of the entry of interface $1.
entry() {
	awk -v n="$1" '/^Interface [0-9]+ \(/ { on = ($2 == n) } on' "$LOG"
}

test_expect_success 'each entry names the symbols its interface added' '
	awk "!/^#/ && NF >= 2 { print \$1, \$2 }" "$SYM" >added &&
	while read -r sym n; do
		entry "$n" >entry.txt &&
		test -s entry.txt || { echo "no ChangeLog-ABI entry for interface $n"; return 1; }
		# The full name, or its tail from an underscore on (the log
		# abbreviates perun_strbuf_addch as _addch after perun_strbuf_add).
		found= rest=${sym#perun_}
		while :; do
			if grep -q -E "(^|[^A-Za-z0-9_])(perun_)?$rest([^A-Za-z0-9_]|\$)" entry.txt ||
				grep -q -E "(^|[^A-Za-z0-9])_$rest([^A-Za-z0-9_]|\$)" entry.txt; then
				found=1
				break
			fi
			case $rest in *_*) rest=${rest#*_} ;; *) break ;; esac
		done
		test -n "$found" || { echo "interface $n: its entry does not name $sym"; return 1; }
	done <added
'

test_expect_success 'age keeps no interface a removal broke' '
	awk "!/^#/ && NF == 3 { print \$3 }" "$SYM" | sort -n | tail -n 1 >removed &&
	if test -s removed; then
		test "$AGE" -le $((CURRENT - $(cat removed)))
	fi
'

test_expect_success 'the installed soname follows current - age' '
	test -f "$TEST_BUILDDIR/sdk/.libs/libperun.so.$((CURRENT - AGE))"
'

test_done
