# SPDX-License-Identifier: GPL-3.0-or-later
CPD_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS)
if BUILD_PLUGIN_CPD
plugin_check_LTLIBRARIES += %reldir%/cpd.la
%canon_reldir%_cpd_la_SOURCES = %reldir%/cpd.c
%canon_reldir%_cpd_la_CFLAGS = $(CPD_CFLAGS)
%canon_reldir%_cpd_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_cpd_la_LIBADD = $(PERUN_PLUGIN_LIBADD) $(GSL_LIBS) -lm

# Unit tests: the plugin's source compiled into a driver that calls its ops.
check_PROGRAMS += %reldir%/tests/test-cpd
%canon_reldir%_tests_test_cpd_SOURCES = %reldir%/tests/test-cpd.c
%canon_reldir%_tests_test_cpd_CFLAGS = $(CPD_CFLAGS)
%canon_reldir%_tests_test_cpd_LDADD = $(top_builddir)/sdk/libperun.la $(JANSSON_LIBS) \
	$(GSL_LIBS) -lm
TESTS += %reldir%/tests/test-cpd
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md
