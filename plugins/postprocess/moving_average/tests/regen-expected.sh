#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerate expected/ from Python Perun's own moving_average code (a developer tool;
# needs a checkout of upstream Perun and python3-numpy, -scipy, -pandas,
# -sklearn):  regen-expected.sh UPSTREAM_CHECKOUT [TESTDATA]
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../../../tests/helpers/regen-cases.sh" "$here" moving_average "$@"
