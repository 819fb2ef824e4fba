# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_LOC
plugin_check_LTLIBRARIES += %reldir%/loc.la
%canon_reldir%_loc_la_SOURCES = %reldir%/loc.c
%canon_reldir%_loc_la_CPPFLAGS = $(AM_CPPFLAGS) $(PERUN_LIB_CHECK_CPPFLAGS)
%canon_reldir%_loc_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS) -ffp-contract=off
%canon_reldir%_loc_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_loc_la_LIBADD = $(PERUN_LIB_CHECK_LIBADD) \
	$(PERUN_PLUGIN_LIBADD) $(GSL_LIBS) -lm
TESTS += %reldir%/tests/t8007-check-loc.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/t8007-check-loc.sh
