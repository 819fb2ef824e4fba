#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerate expected/<name>.tsv for every line of cases.list with the oracle
# gen-expected.py (Python Perun's own exclusive_time_outliers, from a
# checkout of upstream Perun; needs python3-pandas and python3-scipy):
#     regen-expected.sh UPSTREAM_CHECKOUT [TESTDATA]
# A profile written "@name" is taken from TESTDATA/degradation_profiles.
set -eu
upstream=$1
testdata=${2:-$(cd "$(dirname "$0")/../../../../../shared/testdata/perun-profiles" && pwd)}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/expected"
path() {
	case $1 in
	@*) echo "$testdata/degradation_profiles/${1#@}" ;;
	*) echo "$here/cases/$1" ;;
	esac
}
grep -v '^#' "$here/cases.list" | while read -r name base targ cutoff filter; do
	/usr/bin/python3 "$here/gen-expected.py" "$upstream" "$(path "$base")" \
		"$(path "$targ")" "$cutoff" "$filter" >"$here/expected/$name.tsv"
done
