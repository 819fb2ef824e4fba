#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerate expected/<name>.perf for every line of "cases" with the oracle
# tests/helpers/nonparam-oracle.py (Python Perun's own moving-average code,
# from a checkout of upstream Perun, with numpy, scipy, pandas and
# scikit-learn):  regen-expected.sh UPSTREAM_CHECKOUT [TESTDATA]
set -eu
upstream=$1
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../.." && pwd)
testdata=${2:-$(cd "$top/../shared/testdata/perun-profiles" && pwd)}
points=$(mktemp)
big=$(mktemp)
trap 'rm -f "$points" "$big"' EXIT
# Keep these arguments equal to those of t6300-postprocessby-moving-average.sh.
"$top/tests/helpers/points-profile.sh" 11 ma::int/600/int ma::float/300/float \
	ma::few/6/int/4 ma::dup/200/int/20 ma::one/1/int >"$points"
"$top/tests/helpers/points-profile.sh" 5 ma::big/9000/int/20000 >"$big"
mkdir -p "$here/expected"
grep -v '^#' "$here/cases" | while IFS='|' read -r name profile params options; do
	name=$(echo $name)
	profile=$(echo $profile)
	case $profile in
	points) path=$points ;;
	big) path=$big ;;
	*) path=$testdata/postprocess_profiles/$profile ;;
	esac
	/usr/bin/python3 "$top/tests/helpers/nonparam-oracle.py" "$upstream" "$path" \
		moving_average "$params" >"$here/expected/$name.perf"
done
