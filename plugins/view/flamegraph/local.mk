# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_FLAMEGRAPH
plugin_view_LTLIBRARIES += %reldir%/flamegraph.la
%canon_reldir%_flamegraph_la_SOURCES = %reldir%/flamegraph.c
nodist_%canon_reldir%_flamegraph_la_SOURCES = %reldir%/flamegraph-js.h
%canon_reldir%_flamegraph_la_CPPFLAGS = $(PERUN_LIB_VIEW_CPPFLAGS) -I$(top_builddir)/%reldir%
%canon_reldir%_flamegraph_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_flamegraph_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS) -pthread
%canon_reldir%_flamegraph_la_LIBADD = $(PERUN_LIB_VIEW_LIBADD) $(PERUN_PLUGIN_LIBADD) -lm
$(%canon_reldir%_flamegraph_la_OBJECTS): %reldir%/flamegraph-js.h
CLEANFILES += %reldir%/flamegraph-js.h

TESTS += %reldir%/tests/t8100-flamegraph.sh %reldir%/tests/t8110-flamegraph-diff.sh \
	%reldir%/tests/t8120-flamegraph-numbers.sh %reldir%/tests/t8130-flamegraph-kept.sh
endif
# The page script, as a C string literal.
%reldir%/flamegraph-js.h: %reldir%/flamegraph.js
	$(AM_V_GEN)$(MKDIR_P) %reldir% && \
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' \
		$(srcdir)/%reldir%/flamegraph.js >$@.tmp && mv $@.tmp $@
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/flamegraph.js \
	%reldir%/tests/t8100-flamegraph.sh %reldir%/tests/t8110-flamegraph-diff.sh \
	%reldir%/tests/t8120-flamegraph-numbers.sh %reldir%/tests/t8130-flamegraph-kept.sh \
	%reldir%/tests/flame-check.py bench/bench-flamegraph.sh bench/gen-stacks-profile.py
