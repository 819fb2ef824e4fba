# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_TIME
plugin_collect_LTLIBRARIES += %reldir%/time.la
%canon_reldir%_time_la_SOURCES = %reldir%/time.c %reldir%/spawn-proto.h
%canon_reldir%_time_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_time_la_CPPFLAGS = $(AM_CPPFLAGS) $(PERUN_LIB_CMDLINE_CPPFLAGS) \
	-DPERUN_SPAWN_PATH='"$(pkglibexecdir)/perun-spawn"'
%canon_reldir%_time_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_time_la_LIBADD = $(PERUN_PLUGIN_LIBADD) $(PERUN_LIB_CMDLINE_LIBADD)

# The spawner every run is started from: plain libc, linked statically
# where that works (configure), so that its resident size, the floor of
# every max-rss measured, is as small as can be.  Staged as stage/libexec
# beside stage/plugins, where the plugin looks first.  Never sanitized: ASan
# cannot link statically and would be the floor instead.
pkglibexec_PROGRAMS += %reldir%/perun-spawn
%canon_reldir%_perun_spawn_SOURCES = %reldir%/perun-spawn.c %reldir%/spawn-proto.h
%canon_reldir%_perun_spawn_CFLAGS = $(PERUN_CFLAGS) -Os
%canon_reldir%_perun_spawn_LDFLAGS = $(PERUN_SPAWN_LDFLAGS)
noinst_DATA += stage/libexec/perun-spawn
stage/libexec/perun-spawn: %reldir%/perun-spawn$(EXEEXT)
	@$(MKDIR_P) stage/libexec && \
	ln -sf "$(abs_builddir)/%reldir%/perun-spawn$(EXEEXT)" $@

# Unit tests: the plugin's source linked into a driver that calls its ops.
check_PROGRAMS += %reldir%/tests/time-helper %reldir%/tests/test-time
%canon_reldir%_tests_test_time_SOURCES = %reldir%/tests/test-time.c %reldir%/time.c
%canon_reldir%_tests_test_time_CPPFLAGS = $(AM_CPPFLAGS) $(PERUN_LIB_CMDLINE_CPPFLAGS) \
	-DTIME_HELPER='"$(abs_builddir)/%reldir%/tests/time-helper"' \
	-DPERUN_SPAWN_PATH='"$(abs_builddir)/%reldir%/perun-spawn"'
%canon_reldir%_tests_test_time_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_tests_test_time_LDADD = $(PERUN_LIB_CMDLINE_LIBADD) \
	$(top_builddir)/sdk/libperun.la $(JANSSON_LIBS)
%canon_reldir%_tests_time_helper_SOURCES = %reldir%/tests/time-helper.c
# The profiled program, never sanitized: ASan's shadow and allocator would
# add megabytes to the max-rss t5000 checks to the MiB.
%canon_reldir%_tests_time_helper_CFLAGS = $(PERUN_CFLAGS)
%canon_reldir%_tests_time_helper_LDFLAGS =
TESTS += %reldir%/tests/test-time %reldir%/tests/t5000-collect-time.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md \
	%reldir%/tests/t5000-collect-time.sh
