#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# check-layers.sh [--root DIR] [--objects DIR] - the layering of the sources.
#
# libperun (sdk/lib) is built in layers, each file allowed to use only the
# files before it in LAYERS below (a file's private header ranks with it).
# This script fails when
#   - a file of sdk/lib is not in LAYERS (every new file is placed), or
#     its opening comment does not say "Layer N of libperun", N its
#     layer's line in LAYERS counted from 0;
#   - a file of sdk/lib includes a private header of a later file;
#   - an object of libperun has an undefined symbol that a later file's
#     object defines (a call up the layers), read with nm from the built
#     objects in DIR (default build/sdk/lib/.libs, else build/sdk/lib;
#     skipped with a note when there are none);
#   - sdk/ includes a header of core/ or plugins/, plugins/ one of core/,
#     or core/ one of plugins/ (quoted includes, found beside the file or,
#     by their path, anywhere in those trees).
# DIR/libperun_la-NAME.o is the object of sdk/lib/NAME.c.  --root is the
# source tree (default: the one this script is in).  Prints one line per
# violation and exits 1, or prints "layers ok" and exits 0.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
objects=
while [ $# -gt 0 ]; do
	case "$1" in
	--root) root=$2; shift 2 ;;
	--objects) objects=$2; shift 2 ;;
	-h|--help) sed -n '3,19s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "check-layers: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
root=$(cd "$root" && pwd)
if [ -z "$objects" ]; then
	for d in "$root/build/sdk/lib/.libs" "$root/build/sdk/lib"; do
		if ls "$d"/libperun_la-*.o >/dev/null 2>&1; then
			objects=$d
			break
		fi
	done
fi

# Lowest first; within a line too, left to right.  A header belongs to the
# .c file before it on its line.
LAYERS='
base:      error.c array.c strbuf.c fsutil.c params.c suggest.c
reader:    json_parse.c reader.h
core:      profile_core.c profile_core.h
writer:    json_python.c json_python.h
values:    flatten.c
flattened: profile_flatten.c profile_flatten.h
whole:     profile.c profile_tree.h
streamed:  profile_stream.c
dumper:    profile_dump.c
users:     points.c
'

work=$(mktemp -d "${TMPDIR:-/tmp}/check-layers.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# file rank layer number, one a line
printf '%s\n' "$LAYERS" | awk 'NF {
	layer = $1; sub(/:$/, "", layer)
	for (i = 2; i <= NF; i++) {
		if ($i ~ /\.c$/)
			rank++
		print $i, rank, layer, number + 0
	}
	number++
}' >"$work/ranks"

fail=0
report() {
	if [ -s "$1" ]; then
		cat "$1"
		fail=1
	fi
}

# ---- sdk/lib: every file placed, includes downwards only ----------------
(cd "$root/sdk/lib" && ls) | while read -r f; do
	case "$f" in
	*.c|*.h) awk -v f="$f" '$1 == f { found = 1 } END { if (!found) print "sdk/lib/" f ": not in the layers of scripts/check-layers.sh" }' "$work/ranks" ;;
	esac
done >"$work/unplaced"
report "$work/unplaced"

while read -r f rank layer number; do
	[ -f "$root/sdk/lib/$f" ] || continue
	head -40 "$root/sdk/lib/$f" | grep -q "Layer $number of libperun" ||
		echo "sdk/lib/$f: its opening comment does not say \"Layer $number of libperun\" ($layer)"
done <"$work/ranks" >"$work/unsaid"
report "$work/unsaid"

for f in "$root"/sdk/lib/*.c "$root"/sdk/lib/*.h; do
	[ -f "$f" ] || continue
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
		while read -r inc; do printf '%s %s\n' "${f##*/}" "$inc"; done
done >"$work/lib-includes"
awk 'NR == FNR { rank[$1] = $2; layer[$1] = $3; next }
($1 in rank) {
	if (!($2 in rank)) {
		print "sdk/lib/" $1 ": includes \"" $2 "\", which is not in the layers"
	} else if (rank[$2] > rank[$1]) {
		print "sdk/lib/" $1 " (" layer[$1] "): includes \"" $2 "\" of a higher layer (" layer[$2] ")"
	}
}' "$work/ranks" "$work/lib-includes" >"$work/up-includes"
report "$work/up-includes"

# ---- sdk/lib: calls downwards only (nm on the objects) ------------------
if [ -n "$objects" ] && ls "$objects"/libperun_la-*.o >/dev/null 2>&1; then
	for o in "$objects"/libperun_la-*.o; do
		name=${o##*/libperun_la-}
		name=${name%.o}.c
		nm "$o" | awk -v f="$name" '$1 == "U" { print "U", f, $2 }
			NF == 3 && $2 ~ /^[TDRBVWG]$/ { print "D", f, $3 }'
	done >"$work/symbols"
	awk 'NR == FNR { rank[$1] = $2; layer[$1] = $3; next }
	$1 == "D" { definer[$3] = $2; next }
	$1 == "U" { n++; user[n] = $2; sym[n] = $3 }
	END {
		for (i = 1; i <= n; i++) {
			d = definer[sym[i]]
			if (d == "" || d == user[i])
				continue
			if (!(user[i] in rank) || !(d in rank))
				print "sdk/lib/" user[i] ": calls " sym[i] " of " d ", not both in the layers"
			else if (rank[d] > rank[user[i]])
				print "sdk/lib/" user[i] " (" layer[user[i]] "): calls " sym[i] " of " d " (" layer[d] "), a higher layer"
		}
	}' "$work/ranks" "$work/symbols" | sort -u >"$work/up-calls"
	report "$work/up-calls"
else
	echo "# no objects of libperun${objects:+ in $objects}: calls not checked"
fi

# ---- sdk/, core/, plugins/: which may include which ---------------------
(cd "$root" && find sdk core plugins -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null |
	LC_ALL=C sort) >"$work/files"
while read -r f; do
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$root/$f" |
		while read -r inc; do
			dir=${f%/*}
			if [ -f "$root/$dir/$inc" ]; then
				# Beside the file: its path, made plain.
				target=$(cd "$root/$dir/$(dirname "$inc")" 2>/dev/null && pwd)
				target=${target#"$root"/}/${inc##*/}
				printf '%s %s %s\n' "$f" "$inc" "$target"
			else
				printf '%s %s ?\n' "$f" "$inc"
			fi
		done
done <"$work/files" >"$work/includes"
awk 'function area(p) { sub(/\/.*/, "", p); return p }
NR == FNR { files[++nf] = $1; next }
{
	from = area($1)
	if ($3 != "?") {
		targets = $3
	} else {
		# By its path anywhere in the trees: the includer'"'"'s own area
		# first (an -I of its own), else every other match.
		targets = ""
		own = 0
		for (i = 1; i <= nf; i++) {
			p = files[i]
			if (p == $2 || substr(p, length(p) - length($2)) == "/" $2) {
				if (area(p) == from)
					own = 1
				targets = targets " " p
			}
		}
		if (own || targets == "")
			next
	}
	n = split(targets, t, " ")
	for (i = 1; i <= n; i++) {
		to = area(t[i])
		if ((from == "sdk" && (to == "core" || to == "plugins")) ||
		    (from == "plugins" && to == "core") ||
		    (from == "core" && to == "plugins"))
			print $1 ": includes \"" $2 "\" (" t[i] "): " from "/ may not include from " to "/"
	}
}' "$work/files" "$work/includes" >"$work/cross"
report "$work/cross"

if [ "$fail" = 0 ]; then
	echo "layers ok"
fi
exit "$fail"
