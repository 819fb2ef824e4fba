#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the libFuzzer targets (clang, AddressSanitizer and UBSan) into
# OUTDIR (default fuzz/out): libperun and the core files each target
# needs are compiled once into objects there.
#
# Usage: fuzz/build.sh [OUTDIR]
# Run:   OUTDIR/fuzz_profile_load NEW_DIR fuzz/corpus/profile_load
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/fuzz/out}
CC=${FUZZ_CC:-clang}
mkdir -p "$out/obj"
cflags="-g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
	-I$top/sdk/include -I$top/core $(pkg-config --cflags jansson yaml-0.1 zlib nettle)"
libs="$(pkg-config --libs jansson yaml-0.1 zlib nettle) -lm -lpthread"

objects=""
for src in "$top"/sdk/lib/*.c "$top"/core/index.c "$top"/core/store.c \
	"$top"/core/config_yaml.c; do
	obj="$out/obj/$(basename "$(dirname "$src")")_$(basename "$src" .c).o"
	$CC $cflags -c "$src" -o "$obj"
	objects="$objects $obj"
done
for target in profile_load config_yaml index_read store_object; do
	$CC $cflags -fsanitize=fuzzer "$top/fuzz/fuzz_$target.c" $objects $libs \
		-o "$out/fuzz_$target"
done
echo "fuzz targets in $out"
