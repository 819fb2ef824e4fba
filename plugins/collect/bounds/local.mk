# SPDX-License-Identifier: GPL-3.0-or-later
# The bounds collect plugin: libclang parses, Z3 proves (plugin.m4).
if BUILD_PLUGIN_BOUNDS
plugin_collect_LTLIBRARIES += %reldir%/bounds.la
%canon_reldir%_bounds_la_SOURCES = %reldir%/bounds.c %reldir%/analyse.c %reldir%/analyse.h \
	%reldir%/sym.c %reldir%/sym.h
%canon_reldir%_bounds_la_CPPFLAGS = $(AM_CPPFLAGS) $(LIBCLANG_CFLAGS) $(Z3_CFLAGS)
%canon_reldir%_bounds_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_bounds_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_bounds_la_LIBADD = $(PERUN_PLUGIN_LIBADD) $(LIBCLANG_LIBS) $(Z3_LIBS)
# Unit tests of the symbolic bounds, with Z3.
check_PROGRAMS += %reldir%/tests/test-sym
%canon_reldir%_tests_test_sym_SOURCES = %reldir%/tests/test-sym.c %reldir%/sym.c %reldir%/sym.h
%canon_reldir%_tests_test_sym_CPPFLAGS = $(AM_CPPFLAGS) $(Z3_CFLAGS)
%canon_reldir%_tests_test_sym_LDADD = $(Z3_LIBS)
TESTS += %reldir%/tests/test-sym %reldir%/tests/t9100-bounds.sh %reldir%/tests/t9101-bounds-corpus.sh \
	%reldir%/tests/t9102-bounds-check.sh %reldir%/tests/t9103-bounds-soundness.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/t9100-bounds.sh \
	%reldir%/tests/t9101-bounds-corpus.sh %reldir%/tests/data/corpus.c \
	%reldir%/tests/t9102-bounds-check.sh %reldir%/tests/t9103-bounds-soundness.sh \
	%reldir%/tests/gen-loops.py %reldir%/tests/test-sym.c \
	%reldir%/tests/data/int_partitioning.c %reldir%/tests/data/broken.c bench/bench-bounds.sh
