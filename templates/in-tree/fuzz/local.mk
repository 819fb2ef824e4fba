# SPDX-License-Identifier: GPL-3.0-or-later
# The @name@ fuzz plugin (grows its seed by doubling): its rules for the one non-recursive build.
# Included through plugins/plugins.am, which ./autogen.sh writes; built when
# configure enables it (plugin.m4 defines BUILD_PLUGIN_@NAME@).
if BUILD_PLUGIN_@NAME@
plugin_fuzz_LTLIBRARIES += %reldir%/@name@.la
%canon_reldir%_@name@_la_SOURCES = %reldir%/@name@.c
%canon_reldir%_@name@_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_@name@_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_@name@_la_LIBADD = $(PERUN_PLUGIN_LIBADD)
TESTS += %reldir%/tests/t9600-@name@.sh
endif
# Distributed whether it is built or not.
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/t9600-@name@.sh
