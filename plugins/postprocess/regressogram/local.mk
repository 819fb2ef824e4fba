# SPDX-License-Identifier: GPL-3.0-or-later
# numpy's and scipy's arithmetic is reproduced operation by operation: no
# fused multiply-add may merge two roundings into one.
REGRESSOGRAM_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS) -ffp-contract=off
if BUILD_PLUGIN_REGRESSOGRAM
plugin_postprocess_LTLIBRARIES += %reldir%/regressogram.la
%canon_reldir%_regressogram_la_SOURCES = %reldir%/regressogram.c
%canon_reldir%_regressogram_la_CFLAGS = $(REGRESSOGRAM_CFLAGS)
%canon_reldir%_regressogram_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_regressogram_la_LIBADD = $(PERUN_PLUGIN_LIBADD) $(GSL_LIBS) -lm
TESTS += %reldir%/tests/t6200-postprocessby-regressogram.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/cases %reldir%/tests/points \
	%reldir%/tests/expected \
	%reldir%/tests/regen-expected.sh %reldir%/tests/t6200-postprocessby-regressogram.sh
