# SPDX-License-Identifier: GPL-3.0-or-later
# Perun's libraries' arithmetic is followed operation by operation: no fused
# multiply-add may merge two roundings into one.
KERNEL_REGRESSION_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS) -ffp-contract=off
if BUILD_PLUGIN_KERNEL_REGRESSION
plugin_postprocess_LTLIBRARIES += %reldir%/kernel_regression.la
%canon_reldir%_kernel_regression_la_SOURCES = %reldir%/kernel_regression.c \
	%reldir%/kernel.c %reldir%/kernel.h
%canon_reldir%_kernel_regression_la_CFLAGS = $(KERNEL_REGRESSION_CFLAGS)
%canon_reldir%_kernel_regression_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_kernel_regression_la_LIBADD = $(PERUN_PLUGIN_LIBADD) $(GSL_LIBS) -lm

# Unit tests: kernel.c's windowed sums and estimators against dense ones.
check_PROGRAMS += %reldir%/tests/test-kernel
%canon_reldir%_tests_test_kernel_SOURCES = %reldir%/tests/test-kernel.c
EXTRA_%canon_reldir%_tests_test_kernel_SOURCES = %reldir%/kernel.c %reldir%/kernel.h
%canon_reldir%_tests_test_kernel_CFLAGS = $(KERNEL_REGRESSION_CFLAGS)
%canon_reldir%_tests_test_kernel_LDADD = $(top_builddir)/sdk/libperun.la $(JANSSON_LIBS) \
	$(GSL_LIBS) -lm
TESTS += %reldir%/tests/test-kernel %reldir%/tests/t6400-postprocessby-kernel-regression.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/cases \
	%reldir%/tests/expected %reldir%/tests/gen-expected.py \
	%reldir%/tests/regen-expected.sh %reldir%/tests/t6400-postprocessby-kernel-regression.sh
