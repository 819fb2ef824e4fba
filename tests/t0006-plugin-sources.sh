#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# No plugin builds another plugin's code: each plugins/<kind>/<name>/local.mk
# lists only sources of its own directory or of plugins/lib (the shared
# convenience libraries), points -I at nothing else under plugins/, and a
# plugin's .c/.h files include no header of another plugin's directory
# (plugins/lib/*, sdk/include and, for its tests/, the top-level tests/tap.h
# are what is allowed).  The checker runs on the source tree and on small
# made-up trees, each with one violation, that it must refuse.
. "$srcdir/tests/test-lib.sh"

# plugin_sources_check <root>: one line per violation on stdout, exit 1
# when there is any.
plugin_sources_check() {
	root=$1
	bad=0
	for mk in "$root"/plugins/*/*/local.mk; do
		[ -f "$mk" ] || continue
		dir=${mk#"$root"/}
		dir=${dir%/local.mk}
		case $dir in plugins/lib/*) continue ;; esac
		# Continuation lines joined; %reldir% and %canon_reldir% resolved;
		# $(VAR) in a source list expanded with the fragment's own VARs.
		awk -v dir="$dir" -v mk="$dir/local.mk" '
			function expand(text, depth,   out, name, rest, i) {
				out = ""
				while ((i = index(text, "$(")) > 0) {
					out = out substr(text, 1, i - 1)
					rest = substr(text, i + 2)
					name = substr(rest, 1, index(rest, ")") - 1)
					text = substr(rest, length(name) + 2)
					if (name in val && depth < 8)
						out = out expand(val[name], depth + 1)
					else
						out = out "$(" name ")"
				}
				return out text
			}
			function allowed(path) {
				return index(path, dir "/") == 1 || index(path, "plugins/lib/") == 1
			}
			{
				line = line $0
				if (sub(/\\$/, "", line)) { line = line " "; next }
				gsub(/%reldir%/, dir, line)
				gsub(/%canon_reldir%/, "X", line)
				sub(/#.*/, "", line)
				if (match(line, /^[ \t]*[A-Za-z0-9_]+[ \t]*\+?=/)) {
					name = substr(line, RSTART, RLENGTH)
					rhs = substr(line, RLENGTH + 1)
					gsub(/[ \t+=]/, "", name)
					val[name] = (name in val) ? val[name] " " rhs : rhs
					n++; vname[n] = name; vrhs[n] = rhs
				}
				line = ""
			}
			END {
				for (k = 1; k <= n; k++) {
					text = expand(vrhs[k], 0)
					m = split(text, tok, /[ \t]+/)
					for (j = 1; j <= m; j++) {
						t = tok[j]
						if (t == "") continue
						if (vname[k] ~ /_SOURCES$/) {
							if (t ~ /^\$\(/)
								printf "%s: %s lists %s, not a file of this fragment\n", mk, vname[k], t
							else if (!allowed(t))
								printf "%s: %s lists %s, outside %s and plugins/lib\n", mk, vname[k], t, dir
						}
						if (t ~ /^-I/) {
							p = substr(t, 3)
							sub(/^\$\((top_srcdir|srcdir|top_builddir|builddir)\)\//, "", p)
							if (p ~ /^plugins(\/|$)/ && !allowed(p "/"))
								printf "%s: %s searches %s for headers, outside %s and plugins/lib\n", mk, vname[k], t, dir
						}
					}
				}
			}' "$mk"
		# Quoted includes that resolve beside the including file.
		find "$root/$dir" -name '*.[ch]' | sort | while read -r file; do
			rel=${file#"$root"/}
			sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$file" |
			while read -r inc; do
				[ -e "$(dirname "$file")/$inc" ] || continue
				to=$(realpath -ms --relative-to="$root" "$(dirname "$file")/$inc")
				case $to in
				"$dir"/* | plugins/lib/* | sdk/include/*) ;;
				tests/*) case $rel in "$dir"/tests/*) ;;
					*) echo "$rel: includes $inc ($to), outside $dir" ;; esac ;;
				*) echo "$rel: includes $inc ($to), outside $dir, plugins/lib and sdk/include" ;;
				esac
			done
		done
	done >"$TRASH_DIRECTORY/violations"
	cat "$TRASH_DIRECTORY/violations"
	[ ! -s "$TRASH_DIRECTORY/violations" ]
}

# make_tree <dir>: a tree that passes, to break one way at a time.
make_tree() {
	mkdir -p "$1/plugins/check/a/tests" "$1/plugins/postprocess/b" \
		"$1/plugins/lib/models" "$1/sdk/include/perun" "$1/tests" &&
	cat >"$1/plugins/check/a/local.mk" <<-\EOF &&
	%canon_reldir%_a_la_SOURCES = %reldir%/a.c \
		%reldir%/a.h $(A_EXTRA)
	A_EXTRA = plugins/lib/models/m.c
	%canon_reldir%_a_la_CPPFLAGS = -I$(top_srcdir)/plugins/lib/models -I$(srcdir)/%reldir%
	EOF
	printf '#include "a.h"\n#include "../../lib/models/m.h"\n#include "m.h"\n' \
		>"$1/plugins/check/a/a.c" &&
	printf '#include <perun/perun.h>\n' >"$1/plugins/check/a/a.h" &&
	printf '#include "../a.h"\n#include "../../../../tests/tap.h"\n' \
		>"$1/plugins/check/a/tests/test-a.c" &&
	printf '%%canon_reldir%%_b_la_SOURCES = %%reldir%%/b.c %%reldir%%/b.h\n' \
		>"$1/plugins/postprocess/b/local.mk" &&
	: >"$1/plugins/postprocess/b/b.c" && : >"$1/plugins/postprocess/b/b.h" &&
	printf 'L_SOURCES = plugins/postprocess/b/b.c\n' >"$1/plugins/lib/models/local.mk" &&
	: >"$1/plugins/lib/models/m.c" && : >"$1/plugins/lib/models/m.h" &&
	: >"$1/sdk/include/perun/perun.h" && : >"$1/tests/tap.h"
}

# expect_refused <tree> <pattern>...: the checker fails on the made-up
# tree, naming each pattern.
expect_refused() {
	tree=$1
	shift
	test_must_fail plugin_sources_check "$TRASH_DIRECTORY/$tree" >"$tree.out" || return 1
	for p in "$@"; do
		test_grep "$p" "$tree.out" || return 1
	done
}

test_expect_success 'the source tree: no plugin builds or includes a sibling' '
	plugin_sources_check "$TEST_SRCDIR"
'

test_expect_success 'a made-up tree that keeps to the rule passes' '
	make_tree ok && plugin_sources_check "$TRASH_DIRECTORY/ok"
'

test_expect_success 'a source of another plugin in a source list is refused' '
	make_tree s1 &&
	printf "%%canon_reldir%%_a_la_SOURCES += plugins/postprocess/b/b.c\n" \
		>>s1/plugins/check/a/local.mk &&
	expect_refused s1 "plugins/check/a/local.mk: X_a_la_SOURCES lists plugins/postprocess/b/b.c, outside plugins/check/a and plugins/lib"
'

test_expect_success 'one behind a variable or a continuation line too' '
	make_tree s2 &&
	printf "B_EXTRA = plugins/lib/models/m.c \\\\\n\tplugins/postprocess/b/b.c\n" \
		>>s2/plugins/check/a/local.mk &&
	printf "X_b_SOURCES = %%reldir%%/a.c \$(B_EXTRA)\n" >>s2/plugins/check/a/local.mk &&
	expect_refused s2 "lists plugins/postprocess/b/b.c, outside"
'

test_expect_success 'a source outside plugins/ is refused, and an unknown variable' '
	make_tree s3 &&
	printf "X_t_SOURCES = core/main.c \$(ELSEWHERE)\n" >>s3/plugins/check/a/local.mk &&
	expect_refused s3 "X_t_SOURCES lists core/main.c, outside" \
		"X_t_SOURCES lists \$(ELSEWHERE), not a file of this fragment"
'

test_expect_success 'a header search path into another plugin is refused' '
	make_tree i1 &&
	printf "X_a_la_CFLAGS = -I\$(top_srcdir)/plugins/postprocess/b\n" \
		>>i1/plugins/check/a/local.mk &&
	expect_refused i1 "searches -I\$(top_srcdir)/plugins/postprocess/b for headers"
'

test_expect_success 'a header of another plugin included by path is refused' '
	make_tree i2 &&
	printf "#include \"../../postprocess/b/b.h\"\n" >>i2/plugins/check/a/a.h &&
	expect_refused i2 "plugins/check/a/a.h: includes ../../postprocess/b/b.h (plugins/postprocess/b/b.h), outside"
'

test_expect_success 'tests/tap.h may be included by a plugin test only' '
	make_tree i3 &&
	printf "#include \"../../../tests/tap.h\"\n" >>i3/plugins/check/a/a.c &&
	expect_refused i3 "plugins/check/a/a.c: includes ../../../tests/tap.h (tests/tap.h), outside plugins/check/a"
'

test_done
