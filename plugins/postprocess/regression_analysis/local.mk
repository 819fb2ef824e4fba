# SPDX-License-Identifier: GPL-3.0-or-later
# Python's arithmetic is reproduced operation by operation: no fused
# multiply-add may merge two roundings into one.
# The models themselves are plugins/lib/models' libmodels.la.
REGRESSION_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS) -ffp-contract=off
REGRESSION_CPPFLAGS = $(AM_CPPFLAGS) $(PERUN_LIB_MODELS_CPPFLAGS)
if BUILD_PLUGIN_REGRESSION_ANALYSIS
plugin_postprocess_LTLIBRARIES += %reldir%/regression_analysis.la
%canon_reldir%_regression_analysis_la_SOURCES = %reldir%/regression_analysis.c
%canon_reldir%_regression_analysis_la_CPPFLAGS = $(REGRESSION_CPPFLAGS)
%canon_reldir%_regression_analysis_la_CFLAGS = $(REGRESSION_CFLAGS)
%canon_reldir%_regression_analysis_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_regression_analysis_la_LIBADD = $(PERUN_LIB_MODELS_LIBADD) $(PERUN_PLUGIN_LIBADD)

# Unit tests: the plugin's sources linked into a driver that calls its ops.
check_PROGRAMS += %reldir%/tests/test-regression
%canon_reldir%_tests_test_regression_SOURCES = %reldir%/tests/test-regression.c \
	%reldir%/regression_analysis.c
%canon_reldir%_tests_test_regression_CPPFLAGS = $(REGRESSION_CPPFLAGS) \
	-DTEST_SRCDIR='"$(abs_top_srcdir)"'
%canon_reldir%_tests_test_regression_CFLAGS = $(REGRESSION_CFLAGS)
%canon_reldir%_tests_test_regression_LDADD = $(PERUN_LIB_MODELS_LIBADD) \
	$(top_builddir)/sdk/libperun.la $(JANSSON_LIBS)
TESTS += %reldir%/tests/test-regression %reldir%/tests/t6100-postprocessby-regression.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/cases \
	%reldir%/tests/cases-ordered \
	%reldir%/tests/expected %reldir%/tests/gen-expected.py \
	%reldir%/tests/regen-expected.sh %reldir%/tests/t6100-postprocessby-regression.sh
