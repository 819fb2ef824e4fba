#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Makes a new in-tree plugin from its kind's template with
# 'perun utils create --in-tree --no-edit' (core/cmd_utils_create.c, the one
# implementation): plugins/<kind>/<name>/ of the source tree <top>.  No
# build file needs an edit afterwards: ./autogen.sh lists the new directory.
# See docs/adding-an-in-tree-plugin.md.
#
# Usage: scripts/new-plugin.sh <kind> <name> [--dir <top>]
#   kind: collect, postprocess, view, check or vcs
#   name: [a-z][a-z0-9_]*, unused by any plugin of any kind
#   top:  the source tree to add it to (default: the one of this script)
#   $PERUN: the perun to run (default: perun from PATH)
# Exit status: that of perun: 0 done, 2 bad arguments or the plugin exists.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
args=
while [ $# -gt 0 ]; do
	case $1 in
	--dir) [ $# -ge 2 ] || { echo "usage: scripts/new-plugin.sh <kind> <name> [--dir <top>]" >&2; exit 2; }
		top=$2; shift 2 ;;
	--dir=*) top=${1#--dir=}; shift ;;
	-h|--help) sed -n '3,14s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) args="$args $1"; shift ;;
	esac
done
cd "$top"
# shellcheck disable=SC2086 # kind and name are words
exec "${PERUN:-perun}" utils create --in-tree --no-edit $args
