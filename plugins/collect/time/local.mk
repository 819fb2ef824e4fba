# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_TIME
plugin_collect_LTLIBRARIES += %reldir%/time.la
%canon_reldir%_time_la_SOURCES = %reldir%/time.c
%canon_reldir%_time_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_time_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_time_la_LIBADD = $(PERUN_PLUGIN_LIBADD)
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md
