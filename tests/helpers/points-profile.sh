#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# points-profile.sh <seed> <uid>/<points>/<int|float>[/<span>] ... - print a
# profile whose resources are pseudo-random (x, y) points, one resource
# type per argument: x = structure-unit-size in 0..span (default 1000), y =
# amount, ints or floats with six decimals.  The same arguments give the
# same profile everywhere (a Park-Miller generator in awk, exact in doubles),
# so the oracle and the tests read identical data.
set -eu
seed=$1
shift
awk -v seed="$seed" -v specs="$*" '
function next_random() { state = (state * 16807) % 2147483647; return state }
function value(kind, span) {
	if (kind == "int")
		return next_random() % (span + 1)
	return sprintf("%.6f", (next_random() % (span * 1000 + 1)) / 1000)
}
BEGIN {
	state = seed
	n = split(specs, spec, " ")
	printf "{\"header\": {\"type\": \"mixed\", \"cmd\": \"points\", \"workload\": \"\", "
	printf "\"units\": {\"mixed(time delta)\": \"ms\"}}, "
	printf "\"collector_info\": {\"name\": \"trace\", \"params\": {}}, \"postprocessors\": [], "
	printf "\"resources\": {"
	for (i = 1; i <= n; i++) {
		split(spec[i], f, "/")
		span = f[4] == "" ? 1000 : f[4]
		printf "%s\"%s#0\": {\"structure-unit-size\": [", (i > 1 ? ", " : ""), f[1]
		for (j = 0; j < f[2]; j++)
			printf "%s%s", (j ? ", " : ""), value(f[3], span)
		printf "], \"amount\": ["
		for (j = 0; j < f[2]; j++)
			printf "%s%s", (j ? ", " : ""), value(f[3], span)
		printf "]}"
	}
	printf "}, \"resource_type_map\": {"
	for (i = 1; i <= n; i++) {
		split(spec[i], f, "/")
		printf "%s\"%s#0\": {\"uid\": \"%s\", \"type\": \"mixed\"}", (i > 1 ? ", " : ""), f[1], f[1]
	}
	printf "}, \"models\": []}\n"
}'
