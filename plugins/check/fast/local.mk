# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_FAST
plugin_check_LTLIBRARIES += %reldir%/fast.la
%canon_reldir%_fast_la_SOURCES = %reldir%/fast.c
%canon_reldir%_fast_la_CPPFLAGS = $(AM_CPPFLAGS) $(PERUN_LIB_CHECK_CPPFLAGS) $(PERUN_LIB_MODELS_CPPFLAGS)
%canon_reldir%_fast_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS) -ffp-contract=off
%canon_reldir%_fast_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_fast_la_LIBADD = $(PERUN_LIB_CHECK_LIBADD) \
	$(PERUN_LIB_CHECK_REGRESS_LIBADD) $(PERUN_PLUGIN_LIBADD)
TESTS += %reldir%/tests/t8005-check-fast.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/t8005-check-fast.sh
