# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_BARS
plugin_view_LTLIBRARIES += %reldir%/bars.la
%canon_reldir%_bars_la_SOURCES = %reldir%/bars.c
%canon_reldir%_bars_la_CPPFLAGS = $(PERUN_LIB_VIEW_CPPFLAGS)
%canon_reldir%_bars_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_bars_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_bars_la_LIBADD = $(PERUN_LIB_VIEW_LIBADD) $(PERUN_PLUGIN_LIBADD) -lm

TESTS += %reldir%/tests/t8220-bars.sh %reldir%/tests/t8221-bars-flow-title.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/t8220-bars.sh \
	%reldir%/tests/t8221-bars-flow-title.sh
