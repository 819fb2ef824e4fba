# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_INSTRUCTIONS
plugin_collect_LTLIBRARIES += %reldir%/instructions.la
%canon_reldir%_instructions_la_SOURCES = %reldir%/instructions.c %reldir%/cachegrind.c \
	%reldir%/cachegrind.h
%canon_reldir%_instructions_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_instructions_la_CPPFLAGS = $(AM_CPPFLAGS) $(PERUN_LIB_CMDLINE_CPPFLAGS)
%canon_reldir%_instructions_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_instructions_la_LIBADD = $(PERUN_PLUGIN_LIBADD) $(PERUN_LIB_CMDLINE_LIBADD)
TESTS += %reldir%/tests/t5600-collect-instructions.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md \
	%reldir%/tests/t5600-collect-instructions.sh
