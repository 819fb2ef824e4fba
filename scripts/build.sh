#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Configure (once) and build Perun in ./build with warnings as errors;
# PERUN_BUILD_DIR names another directory (build-asan for the sanitizers).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ -x configure ] || ./autogen.sh
dir=${PERUN_BUILD_DIR:-build}
mkdir -p "$dir"
cd "$dir"
[ -f Makefile ] || "$top/configure" --enable-werror "$@"
make -j"$(nproc)"
