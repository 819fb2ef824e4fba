# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_SCATTER
plugin_view_LTLIBRARIES += %reldir%/scatter.la
%canon_reldir%_scatter_la_SOURCES = %reldir%/scatter.c
%canon_reldir%_scatter_la_CPPFLAGS = $(PERUN_LIB_VIEW_CPPFLAGS)
%canon_reldir%_scatter_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_scatter_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_scatter_la_LIBADD = $(PERUN_LIB_VIEW_LIBADD) $(PERUN_PLUGIN_LIBADD) -lm

TESTS += %reldir%/tests/t8210-scatter.sh %reldir%/tests/t8212-scatter-legend.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/t8210-scatter.sh \
	%reldir%/tests/t8212-scatter-legend.sh
