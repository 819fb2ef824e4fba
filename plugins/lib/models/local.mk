# SPDX-License-Identifier: GPL-3.0-or-later
# libmodels.la: the regression models (plugins/lib/models/README.md), a
# libtool convenience library linked into the regression_analysis
# postprocessor and the fast and lreg checks.  Python's arithmetic is
# reproduced operation by operation: no fused multiply-add may merge two
# roundings into one, hence -ffp-contract=off here and in every user.
if BUILD_LIB_MODELS
noinst_LTLIBRARIES += %reldir%/libmodels.la
%canon_reldir%_libmodels_la_SOURCES = %reldir%/regression.c %reldir%/regression.h
%canon_reldir%_libmodels_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS) -ffp-contract=off
endif
# Users include "regression.h" with this and link this.
PERUN_LIB_MODELS_CPPFLAGS = -I$(top_srcdir)/%reldir%
PERUN_LIB_MODELS_LIBADD = $(top_builddir)/%reldir%/libmodels.la $(GSL_LIBS) -lm
EXTRA_DIST += %reldir%/lib.m4 %reldir%/README.md
