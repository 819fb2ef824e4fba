# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_AAT
plugin_check_LTLIBRARIES += %reldir%/aat.la
%canon_reldir%_aat_la_SOURCES = %reldir%/aat.c
%canon_reldir%_aat_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_aat_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_aat_la_LIBADD = $(PERUN_PLUGIN_LIBADD) -lm
TESTS += %reldir%/tests/t8001-check-aat.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/t8001-check-aat.sh
