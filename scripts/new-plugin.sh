#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Makes a new in-tree plugin from its kind's template: copies
# templates/in-tree/<kind>/ to <top>/plugins/<kind>/<name>/, with @name@
# (and @NAME@, upper case) replaced in file names and contents.  No build
# file needs an edit afterwards: ./autogen.sh lists the new directory.
# See docs/adding-an-in-tree-plugin.md.
#
# Usage: scripts/new-plugin.sh <kind> <name> [--dir <top>]
#   kind: collect, postprocess, view, check or vcs
#   name: [a-z][a-z0-9_]*, unused by any plugin of any kind
#   top:  the source tree to add it to (default: the one of this script)
# Exit status: 0 done, 2 bad arguments or the plugin exists, 1 failure.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
me=new-plugin.sh

usage() {
	echo "usage: scripts/$me <kind> <name> [--dir <top>]" >&2
	exit 2
}
fail() {
	echo "$me: $*" >&2
	exit 2
}

kind= name= top=$src
while [ $# -gt 0 ]; do
	case $1 in
	--dir) [ $# -ge 2 ] || usage; top=$2; shift 2 ;;
	--dir=*) top=${1#--dir=}; shift ;;
	-h|--help) sed -n '3,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) usage ;;
	*)
		if [ -z "$kind" ]; then kind=$1
		elif [ -z "$name" ]; then name=$1
		else usage
		fi
		shift ;;
	esac
done
[ -n "$kind" ] && [ -n "$name" ] || usage

case $kind in
collect|postprocess|view|check|vcs) ;;
*) fail "unknown plugin kind '$kind' (choose from collect, postprocess, view, check, vcs)" ;;
esac
# The name is a C identifier part (perun_plugin_<name>_describe), a file
# name and a configure switch (--enable-<name>).
case $name in
[a-z]*) ;;
*) fail "bad plugin name '$name': it must match [a-z][a-z0-9_]*" ;;
esac
case $name in
*[!a-z0-9_]*) fail "bad plugin name '$name': it must match [a-z][a-z0-9_]*" ;;
esac
template=$src/templates/in-tree/$kind
[ -d "$template" ] || { echo "$me: no template at $template" >&2; exit 1; }
[ -d "$top/plugins" ] || fail "'$top' is not a perun source tree (no plugins/ in it)"
dest=$top/plugins/$kind/$name
[ ! -e "$dest" ] || fail "'$dest' already exists"
# BUILD_PLUGIN_<NAME> and --enable-<name> are one namespace for all kinds.
for other in "$top"/plugins/*/"$name"; do
	[ -e "$other" ] && fail "a plugin named '$name' exists already: '$other'"
done
case $name in
all_plugins|werror) fail "bad plugin name '$name': configure has --enable-$name already" ;;
esac

upper=$(echo "$name" | tr a-z A-Z)
tmp=$dest.new.$$
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"
# Files only (a template may hold a symbolic link to shared code: it is
# followed), each with its placeholders replaced and its mode kept.
(cd "$template" && find . -type f -o -type l) | while read -r f; do
	out=$tmp/$(echo "${f#./}" | sed "s/@name@/$name/g")
	mkdir -p "$(dirname "$out")"
	sed "s/@name@/$name/g; s/@NAME@/$upper/g" "$template/$f" >"$out"
	[ ! -x "$template/$f" ] || chmod +x "$out"
done
mv "$tmp" "$dest"
trap - EXIT
echo "created $dest:"
(cd "$dest" && find . -type f | sed 's|^\./|  |' | sort)
echo "now run ./autogen.sh in $top, then configure (the plugin is on by default;"
echo "--disable-$name turns it off) and make"
