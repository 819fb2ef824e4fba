# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_MUTATE
plugin_fuzz_LTLIBRARIES += %reldir%/mutate.la
%canon_reldir%_mutate_la_SOURCES = %reldir%/mutate.c %reldir%/mutate.h %reldir%/rules.c \
	%reldir%/rules.h %reldir%/run.c %reldir%/report.c
%canon_reldir%_mutate_la_CPPFLAGS = $(PERUN_LIB_VIEW_CPPFLAGS)
%canon_reldir%_mutate_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(YAML_CFLAGS)
%canon_reldir%_mutate_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_mutate_la_LIBADD = $(PERUN_PLUGIN_LIBADD) $(PERUN_LIB_VIEW_LIBADD) $(YAML_LIBS) -lm
check_PROGRAMS += %reldir%/tests/test-rules
%canon_reldir%_tests_test_rules_SOURCES = %reldir%/tests/test-rules.c %reldir%/rules.c
%canon_reldir%_tests_test_rules_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
%canon_reldir%_tests_test_rules_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
%canon_reldir%_tests_test_rules_LDADD = $(top_builddir)/sdk/libperun.la $(JANSSON_LIBS) $(YAML_LIBS)
TESTS += %reldir%/tests/test-rules %reldir%/tests/t9600-fuzz-errors.sh \
	%reldir%/tests/t9601-fuzz-slow-paths.sh \
	%reldir%/tests/t9602-fuzz-seed-repeats.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/progs \
	%reldir%/tests/t9600-fuzz-errors.sh %reldir%/tests/t9601-fuzz-slow-paths.sh \
	%reldir%/tests/t9602-fuzz-seed-repeats.sh
