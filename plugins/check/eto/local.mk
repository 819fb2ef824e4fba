# SPDX-License-Identifier: GPL-3.0-or-later
# numpy's and pandas' arithmetic is reproduced operation by operation: no
# fused multiply-add may merge two roundings into one.
ETO_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) -ffp-contract=off
if BUILD_PLUGIN_ETO
plugin_check_LTLIBRARIES += %reldir%/eto.la
%canon_reldir%_eto_la_SOURCES = %reldir%/eto.c
%canon_reldir%_eto_la_CFLAGS = $(ETO_CFLAGS)
%canon_reldir%_eto_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_eto_la_LIBADD = $(PERUN_PLUGIN_LIBADD) -lm

# Unit tests: the plugin's source compiled into a driver that calls its ops.
check_PROGRAMS += %reldir%/tests/test-eto
%canon_reldir%_tests_test_eto_SOURCES = %reldir%/tests/test-eto.c
%canon_reldir%_tests_test_eto_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_SRCDIR='"$(abs_top_srcdir)"'
%canon_reldir%_tests_test_eto_CFLAGS = $(ETO_CFLAGS)
%canon_reldir%_tests_test_eto_LDADD = $(top_builddir)/sdk/libperun.la $(JANSSON_LIBS) -lm
TESTS += %reldir%/tests/test-eto %reldir%/tests/t7800-check-eto.sh \
	%reldir%/tests/t7801-check-eto-ours.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/cases \
	%reldir%/tests/expected %reldir%/tests/gen-expected.py \
	%reldir%/tests/regen-expected.sh %reldir%/tests/gen-cases.py \
	%reldir%/tests/cases.list %reldir%/tests/t7800-check-eto.sh %reldir%/tests/t7801-check-eto-ours.sh
