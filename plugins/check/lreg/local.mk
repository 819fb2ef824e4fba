# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_LREG
plugin_check_LTLIBRARIES += %reldir%/lreg.la
%canon_reldir%_lreg_la_SOURCES = %reldir%/lreg.c
%canon_reldir%_lreg_la_CPPFLAGS = $(AM_CPPFLAGS) $(PERUN_LIB_CHECK_CPPFLAGS) $(PERUN_LIB_MODELS_CPPFLAGS)
%canon_reldir%_lreg_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS) -ffp-contract=off
%canon_reldir%_lreg_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_lreg_la_LIBADD = $(PERUN_LIB_CHECK_LIBADD) \
	$(PERUN_LIB_CHECK_REGRESS_LIBADD) $(PERUN_PLUGIN_LIBADD)
TESTS += %reldir%/tests/t8004-check-lreg.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/t8004-check-lreg.sh
