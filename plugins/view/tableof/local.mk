# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_TABLEOF
plugin_view_LTLIBRARIES += %reldir%/tableof.la
%canon_reldir%_tableof_la_SOURCES = %reldir%/tableof.c
%canon_reldir%_tableof_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_tableof_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_tableof_la_LIBADD = $(PERUN_PLUGIN_LIBADD) -lm

TESTS += %reldir%/tests/t5100-tableof-tables.sh %reldir%/tests/t5101-tableof-booleans.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md \
	%reldir%/tests/t5100-tableof-tables.sh %reldir%/tests/cases \
	%reldir%/tests/expected %reldir%/tests/gen-expected.py \
	%reldir%/tests/regen-expected.sh %reldir%/tests/t5101-tableof-booleans.sh \
	%reldir%/tests/booleans.perf %reldir%/tests/booleans.formats
