# SPDX-License-Identifier: GPL-3.0-or-later
# Performance events by name and counting them (plugins/lib/counters/
# README.md): libcounters.la, a convenience library linked into the
# counters collector and perun-events, and ready for a web front end.
if BUILD_LIB_COUNTERS
noinst_LTLIBRARIES += %reldir%/libcounters.la
%canon_reldir%_libcounters_la_SOURCES = \
	%reldir%/events.h %reldir%/internal.h %reldir%/resolve.c %reldir%/sysfs.c \
	%reldir%/event_list.c %reldir%/count.h %reldir%/count.c %reldir%/stats.c \
	%reldir%/spawn.h %reldir%/spawn.c
%canon_reldir%_libcounters_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_libcounters_la_LIBADD = $(LIBPFM_LIBS) -lm
endif
PERUN_LIB_COUNTERS_CPPFLAGS = -I$(top_srcdir)/%reldir%
PERUN_LIB_COUNTERS_LIBADD = $(top_builddir)/%reldir%/libcounters.la
EXTRA_DIST += %reldir%/lib.m4 %reldir%/README.md
