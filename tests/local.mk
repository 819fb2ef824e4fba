# SPDX-License-Identifier: GPL-3.0-or-later
# Tests: TAP through automake's tap-driver.  Shell tests are
# tests/tNNNN-<command>-<detail>.sh on tests/test-lib.sh; each plugin adds
# its own from its local.mk.
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
TEST_EXTENSIONS = .sh
SH_LOG_DRIVER = $(LOG_DRIVER)
AM_TESTS_ENVIRONMENT = srcdir='$(abs_top_srcdir)'; export srcdir; \
	abs_top_builddir='$(abs_top_builddir)'; export abs_top_builddir; \
	PERUN_TESTDATA='$(PERUN_TESTDATA)'; export PERUN_TESTDATA; \
	PERUN_CHARTJS='$(PERUN_CHARTJS)'; export PERUN_CHARTJS;
SH_LOG_COMPILER = $(SHELL)

EXTRA_DIST += %reldir%/test-lib.sh %reldir%/fixtures/gen-profiles.py

# Core tests that need no shared data (each makes its own profiles).
CORE_TESTS = tests/t0004-build-lists.sh tests/t0005-layers.sh tests/t0006-plugin-sources.sh \
	tests/t0007-libperun-symbols.sh tests/t0008-standalone-tests.sh \
	tests/t0100-init.sh tests/t0110-suggestions.sh \
	tests/t0120-pager.sh tests/t0130-plugin-help.sh tests/t0200-config.sh \
	tests/t0401-selectors.sh tests/t0402-store-objects.sh tests/t0403-fsck-gc.sh \
	tests/t0404-faults.sh tests/t0405-alloc-faults.sh tests/t0406-store-segmented.sh tests/t0520-annotate.sh tests/t0521-import-chrome.sh tests/t0522-annotate-python.sh tests/t0523-annotate-importers.sh tests/t0970-fuzz-targets.sh \
	tests/t2003-check-nothing-compared.sh tests/t2004-check-strategies.sh \
	tests/t2005-check-sarif.sh tests/t2007-check-noise.sh tests/t2008-check-rule-options.sh
TESTS += $(CORE_TESTS)
EXTRA_DIST += $(CORE_TESTS) tests/annotate tests/schemas/sarif-2.1.0-rtm.5.json tests/schemas/README.md
check_PROGRAMS += tests/config-test
tests_config_test_SOURCES = tests/config-test.c tests/tap.h core/config.c core/config.h \
	core/config_template.c core/config_yaml.c core/config_yaml.h
tests_config_test_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(YAML_CFLAGS) -I$(top_srcdir)/core
tests_config_test_LDADD = sdk/libperun.la $(JANSSON_LIBS) $(YAML_LIBS)
TESTS += tests/config-test

# Helpers the shell tests drive.
# The fault-injection shim t0404 preloads (a module: libtool builds a .so).
check_LTLIBRARIES += %reldir%/helpers/fault-inject.la
%canon_reldir%_helpers_fault_inject_la_SOURCES = %reldir%/helpers/fault-inject.c
# Not sanitized: preloaded, it comes before perun's ASan runtime.
%canon_reldir%_helpers_fault_inject_la_CFLAGS = $(PERUN_CFLAGS)
%canon_reldir%_helpers_fault_inject_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
%canon_reldir%_helpers_fault_inject_la_LIBADD = -ldl
check_PROGRAMS += %reldir%/helpers/profile-tool
%canon_reldir%_helpers_profile_tool_SOURCES = %reldir%/helpers/profile-tool.c
%canon_reldir%_helpers_profile_tool_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_helpers_profile_tool_LDADD = sdk/libperun.la $(JANSSON_LIBS)
# Drives core/serve_runs.c (perun serve's runs and sessions) without HTTP.
check_PROGRAMS += %reldir%/helpers/serve-runs-driver
%canon_reldir%_helpers_serve_runs_driver_SOURCES = %reldir%/helpers/serve-runs-driver.c \
	core/serve_runs.c core/serve_runs.h core/serve_runs_internal.h core/serve_sessions.c \
	core/serve_request.c core/serve_request.h
%canon_reldir%_helpers_serve_runs_driver_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) -I$(top_srcdir)/core -pthread
%canon_reldir%_helpers_serve_runs_driver_LDADD = sdk/libperun.la $(JANSSON_LIBS)
%canon_reldir%_helpers_serve_runs_driver_LDFLAGS = $(AM_LDFLAGS) -pthread
check_PROGRAMS += %reldir%/helpers/models-cmp
%canon_reldir%_helpers_models_cmp_SOURCES = %reldir%/helpers/models-cmp.c
%canon_reldir%_helpers_models_cmp_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_helpers_models_cmp_LDADD = sdk/libperun.la $(JANSSON_LIBS) -lm
EXTRA_DIST += %reldir%/helpers/nonparam-oracle.py %reldir%/helpers/upstream_stubs.py \
	%reldir%/helpers/speedscope-read.mjs %reldir%/helpers/speedscope-lib.sh \
	%reldir%/helpers/trace-engine-read.mjs \
	%reldir%/helpers/points-profile.sh \
	%reldir%/helpers/postprocess-lib.sh %reldir%/helpers/regen-cases.sh

# libperun's flattening and string buffer, against Python Perun's results.
check_PROGRAMS += %reldir%/flatten-test
%canon_reldir%_flatten_test_SOURCES = %reldir%/flatten-test.c %reldir%/tap.h
%canon_reldir%_flatten_test_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_flatten_test_LDADD = sdk/libperun.la $(JANSSON_LIBS)
TESTS += %reldir%/flatten-test

# libperun's postprocessor points, numpy's sums and sklearn's r^2.
check_PROGRAMS += %reldir%/array-test
%canon_reldir%_array_test_SOURCES = %reldir%/array-test.c %reldir%/tap.h
%canon_reldir%_array_test_LDADD = sdk/libperun.la
TESTS += %reldir%/array-test
check_PROGRAMS += %reldir%/points-test
%canon_reldir%_points_test_SOURCES = %reldir%/points-test.c %reldir%/tap.h
%canon_reldir%_points_test_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_points_test_LDADD = sdk/libperun.la $(JANSSON_LIBS) -lm
TESTS += %reldir%/points-test

# perun_profile_foreach_resource on a loaded profile against its tree.
check_PROGRAMS += %reldir%/profile-rows-test
%canon_reldir%_profile_rows_test_SOURCES = %reldir%/profile-rows-test.c %reldir%/tap.h
%canon_reldir%_profile_rows_test_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_profile_rows_test_LDADD = sdk/libperun.la $(JANSSON_LIBS)
TESTS += %reldir%/profile-rows-test

# perun_profile_types and the points read from it, compact form against tree.
check_PROGRAMS += %reldir%/profile-types-test
%canon_reldir%_profile_types_test_SOURCES = %reldir%/profile-types-test.c %reldir%/tap.h
%canon_reldir%_profile_types_test_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_profile_types_test_LDADD = sdk/libperun.la $(JANSSON_LIBS)
TESTS += %reldir%/profile-types-test

# perun_profile_add_columns against the same rows added one by one.
check_PROGRAMS += %reldir%/profile-columns-test
%canon_reldir%_profile_columns_test_SOURCES = %reldir%/profile-columns-test.c %reldir%/tap.h
%canon_reldir%_profile_columns_test_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_profile_columns_test_LDADD = sdk/libperun.la $(JANSSON_LIBS)
TESTS += %reldir%/profile-columns-test

TESTS += %reldir%/t0300-profile-format.sh
EXTRA_DIST += %reldir%/t0300-profile-format.sh
TESTS += %reldir%/t0301-profile-reader.sh
EXTRA_DIST += %reldir%/t0301-profile-reader.sh
# A loaded profile's resources in the tape against the same as a tree.
check_PROGRAMS += %reldir%/profile-tape-test
%canon_reldir%_profile_tape_test_SOURCES = %reldir%/profile-tape-test.c %reldir%/tap.h
%canon_reldir%_profile_tape_test_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_profile_tape_test_LDADD = sdk/libperun.la $(JANSSON_LIBS) -lm
TESTS += %reldir%/profile-tape-test %reldir%/t0302-profile-tape.sh %reldir%/t0303-profile-streamed.sh
EXTRA_DIST += %reldir%/t0302-profile-tape.sh %reldir%/t0303-profile-streamed.sh

TESTS += tests/t0900-docs.sh
TESTS += tests/t1000-run-job.sh tests/t1001-run-matrix.sh tests/t1002-run-shard.sh \
	tests/t1003-run-rounds.sh
EXTRA_DIST += tests/t1000-run-job.sh tests/t1001-run-matrix.sh tests/t1002-run-shard.sh \
	tests/t1003-run-rounds.sh
TESTS += tests/t3000-serve-api.sh tests/t3001-serve-pages.sh
EXTRA_DIST += tests/t3000-serve-api.sh tests/t3001-serve-pages.sh tests/helpers/serve-lib.sh
TESTS += tests/t2000-check-profiles.sh tests/t2001-check-history.sh tests/t2002-check-upstream.sh
EXTRA_DIST += tests/t2000-check-profiles.sh tests/t2001-check-history.sh \
	tests/t2002-check-upstream.sh
# A check plugin reporting the series perun check all gives it.
check_LTLIBRARIES += tests/check/series_probe.la
tests_check_series_probe_la_SOURCES = tests/check/series-probe.c
tests_check_series_probe_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_check_series_probe_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS) -rpath /nowhere
tests_check_series_probe_la_LIBADD = $(top_builddir)/sdk/libperun.la
EXTRA_DIST += tests/t0900-docs.sh
TESTS += %reldir%/t0400-store.sh
TESTS += %reldir%/t0430-share.sh %reldir%/t0431-share-ci-examples.sh \
	%reldir%/t0432-share-http.sh %reldir%/t0433-share-fetched-baselines.sh %reldir%/t0434-share-ssh.sh \
	%reldir%/t0440-worktree-dirty.sh
EXTRA_DIST += %reldir%/t0430-share.sh %reldir%/t0431-share-ci-examples.sh \
	%reldir%/t0432-share-http.sh %reldir%/t0433-share-fetched-baselines.sh %reldir%/t0434-share-ssh.sh \
	%reldir%/t0440-worktree-dirty.sh
TESTS += %reldir%/t0420-showdiff.sh
EXTRA_DIST += %reldir%/t0420-showdiff.sh
TESTS += %reldir%/t0450-utils-temp.sh
EXTRA_DIST += %reldir%/t0450-utils-temp.sh
TESTS += %reldir%/t0451-utils-stats.sh
EXTRA_DIST += %reldir%/t0451-utils-stats.sh
TESTS += %reldir%/t0500-import-heaptrack.sh
EXTRA_DIST += %reldir%/t0500-import-heaptrack.sh
TESTS += %reldir%/t0510-import-perf.sh
EXTRA_DIST += %reldir%/t0510-import-perf.sh %reldir%/import-perf/regenerate.sh \
	%reldir%/import-perf/threads.c %reldir%/import-perf/recurse.c \
	%reldir%/import-perf/ev.event-filtertask-clock.folded \
	%reldir%/import-perf/ev.folded \
	%reldir%/import-perf/ev.script \
	%reldir%/import-perf/quirks.addrs.folded \
	%reldir%/import-perf/quirks.all.folded \
	%reldir%/import-perf/quirks.event-filtertask-clock.folded \
	%reldir%/import-perf/quirks.folded \
	%reldir%/import-perf/quirks.jit.folded \
	%reldir%/import-perf/quirks.kernel.folded \
	%reldir%/import-perf/quirks.pid.folded \
	%reldir%/import-perf/quirks.script \
	%reldir%/import-perf/quirks.tid.folded \
	%reldir%/import-perf/rd.folded \
	%reldir%/import-perf/rd.script \
	%reldir%/import-perf/tk-pid.pid.folded \
	%reldir%/import-perf/tk-pid.script \
	%reldir%/import-perf/tk-pid.tid.folded \
	%reldir%/import-perf/tk.folded \
	%reldir%/import-perf/tk.kernel.folded \
	%reldir%/import-perf/tk.script \
	%reldir%/import-perf/tk.tid.folded \
	%reldir%/import-perf/tu-srcline.script \
	%reldir%/import-perf/tu-srcline.srcline.folded \
	%reldir%/import-perf/tu.folded \
	%reldir%/import-perf/tu.script
EXTRA_DIST += %reldir%/t0400-store.sh %reldir%/helpers/pidx.py %reldir%/helpers/git-http-server.py

# The standalone plugin template, built against the installed SDK.
TESTS += tests/t0950-sdk-out-of-tree.sh
EXTRA_DIST += tests/t0950-sdk-out-of-tree.sh
# In-tree plugins made from templates/in-tree build without a build file edit.
TESTS += tests/t0960-in-tree-templates.sh
EXTRA_DIST += tests/t0960-in-tree-templates.sh
TESTS += %reldir%/t0410-store-crash-safety.sh
EXTRA_DIST += %reldir%/t0410-store-crash-safety.sh
TESTS += %reldir%/t0010-configure-switches.sh
EXTRA_DIST += %reldir%/t0010-configure-switches.sh
TESTS += tests/t2100-check-e2e.sh tests/t2102-check-e2e-annotated.sh tests/t2101-check-e2e-library.sh
EXTRA_DIST += tests/t2100-check-e2e.sh tests/t2102-check-e2e-annotated.sh tests/t2101-check-e2e-library.sh
# The headless-Chromium harness of the view tests (skips without Chromium).
TESTS += %reldir%/t8200-browser-check.sh
EXTRA_DIST += %reldir%/t8200-browser-check.sh %reldir%/helpers/browser-check.py \
	%reldir%/helpers/browser-lib.sh
# perun serve: its runs and sessions (the library, the API, the Runs page).
SERVE_RUNS_TESTS = %reldir%/t8450-serve-runs.sh %reldir%/t8451-serve-runs-api.sh \
	%reldir%/t8452-serve-runs-browser.sh
TESTS += $(SERVE_RUNS_TESTS)
EXTRA_DIST += $(SERVE_RUNS_TESTS) %reldir%/helpers/serve-runs-lib.sh %reldir%/helpers/browser-steps.py
# False alarms of every check method on a seeded synthetic history of
# identical and planted versions (issue 22; the cases that fail today are TODO).
TESTS += tests/t2006-check-false-alarms.sh
EXTRA_DIST += tests/t2006-check-false-alarms.sh tests/helpers/false-alarm-history.py
