# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_COUNTERS
plugin_collect_LTLIBRARIES += %reldir%/counters.la
%canon_reldir%_counters_la_SOURCES = %reldir%/counters.c
%canon_reldir%_counters_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_counters_la_CPPFLAGS = $(AM_CPPFLAGS) $(PERUN_LIB_COUNTERS_CPPFLAGS) \
	$(PERUN_LIB_CMDLINE_CPPFLAGS)
%canon_reldir%_counters_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_counters_la_LIBADD = $(PERUN_PLUGIN_LIBADD) $(PERUN_LIB_COUNTERS_LIBADD) \
	$(PERUN_LIB_CMDLINE_LIBADD)

# "perun events": perun runs perun-<name> from PATH for commands it lacks;
# built at the top of the build tree, beside perun, where tests find it.
bin_PROGRAMS += perun-events
perun_events_SOURCES = %reldir%/perun-events.c
perun_events_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(ZLIB_CFLAGS)
perun_events_CPPFLAGS = $(AM_CPPFLAGS) $(PERUN_LIB_COUNTERS_CPPFLAGS)
perun_events_LDADD = $(PERUN_LIB_COUNTERS_LIBADD) $(top_builddir)/sdk/libperun.la $(JANSSON_LIBS) \
	$(ZLIB_LIBS)

check_PROGRAMS += %reldir%/tests/counters-helper
%canon_reldir%_tests_counters_helper_SOURCES = %reldir%/tests/counters-helper.c
%canon_reldir%_tests_counters_helper_CFLAGS = $(PERUN_CFLAGS)
%canon_reldir%_tests_counters_helper_LDFLAGS = -pthread
TESTS += %reldir%/tests/t5100-collect-counters.sh %reldir%/tests/t5101-events.sh \
	%reldir%/tests/t5102-check-counters.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md \
	%reldir%/tests/t5100-collect-counters.sh %reldir%/tests/t5101-events.sh \
	%reldir%/tests/t5102-check-counters.sh bench/bench-counters.sh
