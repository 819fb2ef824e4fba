# SPDX-License-Identifier: GPL-3.0-or-later
# What the model-based check plugins share, linked into each of them.
noinst_LTLIBRARIES += %reldir%/libcheckkit.la
%canon_reldir%_libcheckkit_la_SOURCES = %reldir%/checkkit.c %reldir%/checkkit.h
%canon_reldir%_libcheckkit_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) -ffp-contract=off
EXTRA_DIST += %reldir%/check-test-lib.sh
EXTRA_DIST += bench/bench-check.sh
