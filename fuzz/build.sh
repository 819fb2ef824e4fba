#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the libFuzzer targets into OUTDIR (default fuzz/out) through the
# project's own build: configure CC=clang --enable-fuzzing in
# OUTDIR/build (once; later calls only make), make fuzz-targets, and copy
# the targets to OUTDIR.
#
# Usage: fuzz/build.sh [OUTDIR]
# Run:   OUTDIR/fuzz_profile_load NEW_DIR fuzz/corpus/profile_load
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/fuzz/out}
mkdir -p "$out/build"
out=$(cd "$out" && pwd)
[ -x "$top/configure" ] || { echo "fuzz/build.sh: run ./autogen.sh first" >&2; exit 2; }
if [ ! -f "$out/build/Makefile" ]; then
	(cd "$out/build" && "$top/configure" -q CC="${FUZZ_CC:-clang}" --enable-fuzzing \
		PERUN_TESTDATA="${PERUN_TESTDATA:-$top/../shared/testdata/perun-profiles}") ||
		{ rm -f "$out/build/Makefile"; exit 1; }
fi
make -C "$out/build" -s -j"${FUZZ_JOBS:-2}" fuzz-targets
for t in "$out"/build/fuzz/fuzz_*; do
	[ -x "$t" ] && cp "$t" "$out/"
done
echo "fuzz targets in $out"
