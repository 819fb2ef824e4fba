# SPDX-License-Identifier: GPL-3.0-or-later
# The command line of a collection as argv (plugins/lib/cmdline/README.md):
# libcmdline.la, a libtool convenience library linked into the collectors
# that run the profiled command themselves.
noinst_LTLIBRARIES += %reldir%/libcmdline.la
%canon_reldir%_libcmdline_la_SOURCES = %reldir%/cmdline.c %reldir%/cmdline.h
%canon_reldir%_libcmdline_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
PERUN_LIB_CMDLINE_CPPFLAGS = -I$(top_srcdir)/%reldir%
PERUN_LIB_CMDLINE_LIBADD = $(top_builddir)/%reldir%/libcmdline.la
EXTRA_DIST += %reldir%/README.md
