# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_FOLDED
plugin_view_LTLIBRARIES += %reldir%/folded.la
%canon_reldir%_folded_la_SOURCES = %reldir%/folded.c
%canon_reldir%_folded_la_CPPFLAGS = $(PERUN_LIB_VIEW_CPPFLAGS)
%canon_reldir%_folded_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_folded_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_folded_la_LIBADD = $(PERUN_LIB_VIEW_LIBADD) $(PERUN_PLUGIN_LIBADD) -lm

TESTS += %reldir%/tests/t8150-export-folded.sh %reldir%/tests/t8155-folded-speedscope.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/t8150-export-folded.sh \
	%reldir%/tests/t8155-folded-speedscope.sh
