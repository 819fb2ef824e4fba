# SPDX-License-Identifier: GPL-3.0-or-later
# Helpers shared by the view plugins (plugins/lib/view/README.md): libview.la,
# a libtool convenience library linked into each of them (no installed
# library, no exported symbols).
noinst_LTLIBRARIES += %reldir%/libview.la
%canon_reldir%_libview_la_SOURCES = \
	%reldir%/output.c %reldir%/output.h \
	%reldir%/stacks.c %reldir%/stacks.h %reldir%/kept-tree.c %reldir%/tree-changes.c \
	%reldir%/view-common.h %reldir%/html.c %reldir%/svg.c %reldir%/textfit.c %reldir%/data.c \
	%reldir%/aggview.c %reldir%/diffdata.c
%canon_reldir%_libview_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
# Where Chart.js is looked for unless $PERUN_CHARTJS says (lib.m4).
%canon_reldir%_libview_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DVIEWLIB_CHARTJS_PATH='"$(PERUN_CHARTJS)"'
# Views include "stacks.h", "output.h", ... with this and link this.
PERUN_LIB_VIEW_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/%reldir%
PERUN_LIB_VIEW_LIBADD = $(top_builddir)/%reldir%/libview.la
EXTRA_DIST += %reldir%/lib.m4 %reldir%/README.md \
	bench/bench-views.sh bench/gen-scatter-profile.py
