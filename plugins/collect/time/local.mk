# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_TIME
plugin_collect_LTLIBRARIES += %reldir%/time.la
%canon_reldir%_time_la_SOURCES = %reldir%/time.c
%canon_reldir%_time_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_time_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_time_la_LIBADD = $(PERUN_PLUGIN_LIBADD)

# Unit tests: the plugin's source linked into a driver that calls its ops.
check_PROGRAMS += %reldir%/tests/time-helper %reldir%/tests/test-time
%canon_reldir%_tests_test_time_SOURCES = %reldir%/tests/test-time.c %reldir%/time.c
%canon_reldir%_tests_test_time_CPPFLAGS = $(AM_CPPFLAGS) \
	-DTIME_HELPER='"$(abs_builddir)/%reldir%/tests/time-helper"'
%canon_reldir%_tests_test_time_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_tests_test_time_LDADD = $(top_builddir)/sdk/libperun.la $(JANSSON_LIBS)
%canon_reldir%_tests_time_helper_SOURCES = %reldir%/tests/time-helper.c
TESTS += %reldir%/tests/test-time %reldir%/tests/t5000-collect-time.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md \
	%reldir%/tests/t5000-collect-time.sh
