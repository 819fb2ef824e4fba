# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_BMOE
plugin_check_LTLIBRARIES += %reldir%/bmoe.la
%canon_reldir%_bmoe_la_SOURCES = %reldir%/bmoe.c
%canon_reldir%_bmoe_la_CPPFLAGS = $(AM_CPPFLAGS) $(PERUN_LIB_CHECK_CPPFLAGS)
%canon_reldir%_bmoe_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_bmoe_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_bmoe_la_LIBADD = $(PERUN_LIB_CHECK_LIBADD) \
	$(PERUN_PLUGIN_LIBADD) -lm
TESTS += %reldir%/tests/t8002-check-bmoe.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/t8002-check-bmoe.sh
