# SPDX-License-Identifier: GPL-3.0-or-later
# The plugin templates, distributed as they are (never built here):
# standalone/ is an out-of-tree project (tests/t0950-sdk-out-of-tree.sh),
# in-tree/<kind>/ a plugin directory that scripts/new-plugin.sh copies
# into plugins/<kind>/<name>/ (tests/t0960-in-tree-templates.sh).
EXTRA_DIST += %reldir%/standalone %reldir%/in-tree scripts/new-plugin.sh
