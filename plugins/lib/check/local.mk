# SPDX-License-Identifier: GPL-3.0-or-later
# What the check plugins share (plugins/lib/check/README.md): two libtool
# convenience libraries, linked into the checks that use them.  Perun's
# arithmetic is reproduced operation by operation: -ffp-contract=off.
# libcheckkit.la: models of a profile, pairing, detection (bmoe, preg,
# lreg, fast, int, loc).
noinst_LTLIBRARIES += %reldir%/libcheckkit.la
%canon_reldir%_libcheckkit_la_SOURCES = %reldir%/checkkit.c %reldir%/checkkit.h
%canon_reldir%_libcheckkit_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) -ffp-contract=off
# libcheckregress.la: regression over the error of two models (fast, lreg),
# on plugins/lib/models; built with it (GSL).
if BUILD_LIB_MODELS
noinst_LTLIBRARIES += %reldir%/libcheckregress.la
%canon_reldir%_libcheckregress_la_SOURCES = %reldir%/ck_regress.c %reldir%/ck_regress.h
%canon_reldir%_libcheckregress_la_CPPFLAGS = $(AM_CPPFLAGS) $(PERUN_LIB_MODELS_CPPFLAGS)
%canon_reldir%_libcheckregress_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS) -ffp-contract=off
endif
# Checks include "checkkit.h" (and "ck_regress.h") with this and link these.
PERUN_LIB_CHECK_CPPFLAGS = -I$(top_srcdir)/%reldir%
PERUN_LIB_CHECK_LIBADD = $(top_builddir)/%reldir%/libcheckkit.la
PERUN_LIB_CHECK_REGRESS_LIBADD = $(top_builddir)/%reldir%/libcheckregress.la \
	$(PERUN_LIB_MODELS_LIBADD)
EXTRA_DIST += %reldir%/README.md %reldir%/check-test-lib.sh
EXTRA_DIST += bench/bench-check.sh
