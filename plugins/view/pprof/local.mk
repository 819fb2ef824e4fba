# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_PPROF
plugin_view_LTLIBRARIES += %reldir%/pprof.la
%canon_reldir%_pprof_la_SOURCES = %reldir%/pprof.c
nodist_%canon_reldir%_pprof_la_SOURCES = %reldir%/profile.pb-c.c %reldir%/profile.pb-c.h
%canon_reldir%_pprof_la_CPPFLAGS = $(PERUN_LIB_VIEW_CPPFLAGS) -I$(top_builddir)/%reldir%
%canon_reldir%_pprof_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(PROTOBUF_C_CFLAGS) $(ZLIB_CFLAGS)
%canon_reldir%_pprof_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_pprof_la_LIBADD = $(PERUN_LIB_VIEW_LIBADD) $(PERUN_PLUGIN_LIBADD) \
	$(PROTOBUF_C_LIBS) $(ZLIB_LIBS) -lm
$(%canon_reldir%_pprof_la_OBJECTS): %reldir%/profile.pb-c.h
CLEANFILES += %reldir%/profile.pb-c.c %reldir%/profile.pb-c.h

TESTS += %reldir%/tests/t8152-export-pprof.sh
endif
# protoc-c writes both files; the header stands for the pair.
%reldir%/profile.pb-c.c: %reldir%/profile.pb-c.h
%reldir%/profile.pb-c.h: %reldir%/profile.proto
	$(AM_V_GEN)$(MKDIR_P) %reldir% && \
	$(PROTOC_C) --proto_path=$(srcdir)/%reldir% --c_out=%reldir% $(srcdir)/%reldir%/profile.proto
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/profile.proto \
	%reldir%/tests/t8152-export-pprof.sh %reldir%/tests/pprof-read.py
