#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Configure (once) and build Perun in ./build with warnings as errors.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ -x configure ] || ./autogen.sh
mkdir -p build
cd build
[ -f Makefile ] || ../configure --enable-werror "$@"
make -j"$(nproc)"
