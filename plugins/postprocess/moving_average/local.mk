# SPDX-License-Identifier: GPL-3.0-or-later
# pandas' arithmetic is reproduced operation by operation: no fused
# multiply-add may merge two roundings into one.
MOVING_AVERAGE_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(GSL_CFLAGS) -ffp-contract=off
if BUILD_PLUGIN_MOVING_AVERAGE
plugin_postprocess_LTLIBRARIES += %reldir%/moving_average.la
%canon_reldir%_moving_average_la_SOURCES = %reldir%/moving_average.c
%canon_reldir%_moving_average_la_CFLAGS = $(MOVING_AVERAGE_CFLAGS)
%canon_reldir%_moving_average_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_moving_average_la_LIBADD = $(PERUN_PLUGIN_LIBADD) $(GSL_LIBS) -lm
TESTS += %reldir%/tests/t6300-postprocessby-moving-average.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/cases \
	%reldir%/tests/expected %reldir%/tests/regen-expected.sh %reldir%/tests/points \
	%reldir%/tests/t6300-postprocessby-moving-average.sh
