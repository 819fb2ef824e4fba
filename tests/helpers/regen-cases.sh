#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# regen-cases.sh <tests dir> <postprocessor> UPSTREAM_CHECKOUT [TESTDATA] -
# regenerate <tests dir>/expected/<name>.perf for every line of
# <tests dir>/cases ("name | profile | oracle params | options") with the
# oracle nonparam-oracle.py (Python Perun's own code).  A profile that is
# not a file of postprocess_profiles is made by points-profile.sh from its
# line "<profile> <arguments>" of <tests dir>/points, as the tests make it.
set -eu
dir=$(cd "$1" && pwd)
postprocessor=$2
upstream=$3
helpers=$(cd "$(dirname "$0")" && pwd)
testdata=${4:-$(cd "$helpers/../../../shared/testdata/perun-profiles" && pwd)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -f "$dir/points" ]; then
	grep -v '^#' "$dir/points" | while read -r name args; do
		"$helpers/points-profile.sh" $args >"$work/$name.perf"
	done
fi
mkdir -p "$dir/expected"
grep -v '^#' "$dir/cases" | while IFS='|' read -r name profile params options; do
	name=$(echo $name)
	profile=$(echo $profile)
	case $profile in
	*.perf) path=$testdata/postprocess_profiles/$profile ;;
	*) path=$work/$profile.perf ;;
	esac
	/usr/bin/python3 "$helpers/nonparam-oracle.py" "$upstream" "$path" "$postprocessor" \
		"$params" >"$dir/expected/$name.perf"
done
