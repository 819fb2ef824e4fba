# SPDX-License-Identifier: GPL-3.0-or-later
# Helpers shared by the view plugins, linked into each of them (a libtool
# convenience library: no installed library, no exported symbols).
noinst_LTLIBRARIES += %reldir%/libperunview.la
%canon_reldir%_libperunview_la_SOURCES = \
	%reldir%/output.c %reldir%/output.h \
	%reldir%/stacks.c %reldir%/stacks.h \
	%reldir%/view-common.h %reldir%/html.c %reldir%/svg.c %reldir%/data.c \
	%reldir%/aggview.c %reldir%/diffdata.c
%canon_reldir%_libperunview_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
# Where Chart.js is looked for unless $PERUN_CHARTJS says (plugin.m4).
%canon_reldir%_libperunview_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DPERUN_CHARTJS_PATH='"$(PERUN_CHARTJS)"'
# Views include "stacks.h", "output.h", ... with this.
PERUN_VIEW_COMMON_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/%reldir%
PERUN_VIEW_COMMON_LIBADD = $(top_builddir)/%reldir%/libperunview.la
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md \
	bench/bench-views.sh bench/gen-scatter-profile.py
