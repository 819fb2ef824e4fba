#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Makes ./configure in a git checkout: lists the plugin directories for the
# build (scripts/list-plugins.sh), then runs autoreconf.  Run it again after
# adding or removing a plugin directory.
set -eu
cd "$(dirname "$0")"
scripts/list-plugins.sh
exec autoreconf -fi "$@"
