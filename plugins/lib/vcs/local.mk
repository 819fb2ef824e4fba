# SPDX-License-Identifier: GPL-3.0-or-later
# The vcs plugins' shared test driver (plugins/lib/vcs/README.md).  Not a
# library: each vcs plugin's local.mk lists vcs-driver.c in its own test
# program, built with -DVCS_DESCRIBE=perun_plugin_<name>_describe.
EXTRA_DIST += %reldir%/README.md
