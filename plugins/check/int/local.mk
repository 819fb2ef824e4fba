# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_INT
plugin_check_LTLIBRARIES += %reldir%/int.la
%canon_reldir%_int_la_SOURCES = %reldir%/int.c
%canon_reldir%_int_la_CPPFLAGS = $(AM_CPPFLAGS) $(PERUN_LIB_CHECK_CPPFLAGS)
%canon_reldir%_int_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS) -ffp-contract=off
%canon_reldir%_int_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_int_la_LIBADD = $(PERUN_LIB_CHECK_LIBADD) \
	$(PERUN_PLUGIN_LIBADD) $(GSL_LIBS) -lm
TESTS += %reldir%/tests/t8006-check-int.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/t8006-check-int.sh
