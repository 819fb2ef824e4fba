# SPDX-License-Identifier: GPL-3.0-or-later
# The bclass check plugin (complexity classes of bounds profiles).
if BUILD_PLUGIN_BCLASS
plugin_check_LTLIBRARIES += %reldir%/bclass.la
%canon_reldir%_bclass_la_SOURCES = %reldir%/bclass.c
%canon_reldir%_bclass_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_bclass_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_bclass_la_LIBADD = $(PERUN_PLUGIN_LIBADD)
TESTS += %reldir%/tests/t9400-bclass.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/t9400-bclass.sh
