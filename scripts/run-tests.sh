#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole test suite: install what is missing, build, make check, make
# distcheck (a tarball that builds and passes the tests on its own, without
# ../shared), then make check again under ASan and UBSan
# (scripts/run-sanitized-tests.sh), then the Debian packages
# (scripts/check-debian-packages.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
# The C sources follow .clang-format (Debian 12's clang-format 14).
"$top/scripts/check-format.sh"
"$top/scripts/build.sh"
"$top/scripts/make-check.sh" "$top/build"
# The tarball's tests run without Python Perun's profiles: the suite stands
# alone (only comparisons with Python Perun skip, case by case).
[ "${PERUN_SKIP_DISTCHECK:-0}" = 1 ] ||
	make -C "$top/build" -j"$(nproc)" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror \
		PERUN_TESTDATA=/nonexistent/perun-shared-testdata
[ "${PERUN_SKIP_SANITIZERS:-0}" = 1 ] || "$top/scripts/run-sanitized-tests.sh"
[ "${PERUN_SKIP_DEBIAN:-0}" = 1 ] || "$top/scripts/check-debian-packages.sh"
