# SPDX-License-Identifier: GPL-3.0-or-later
# The perun program.
bin_PROGRAMS += perun
perun_SOURCES = \
	core/main.c core/pager.c core/pager.h \
	core/crash.c core/crash.h core/crash_report.c core/crash_report.h \
	core/commands.c core/command_list.h \
	core/command.h core/options.c core/exit_code.c \
	core/plugin_loader.c core/plugin_loader.h \
	core/config.c core/config.h core/config_template.c \
	core/config_yaml.c core/config_yaml.h \
	core/vcs.c core/vcs.h \
	core/instance.c core/instance.h core/xalloc.c core/xalloc.h \
	core/cmd_util.c core/cmd_util.h \
	core/format.c core/format.h \
	core/durable.c core/durable.h \
	core/store.c core/store.h core/store_segments.c core/store_segments.h core/store_scan.c core/store_scan.h \
	core/store_check.c core/store_check.h core/cmd_fsck.c core/cmd_gc.c \
	core/index.c core/index.h \
	core/profiles.c core/profiles.h core/selector.c core/selector.h \
	core/runner.c core/runner.h \
	core/jobs.c core/jobs.h core/supervise.c core/supervise.h core/workload.c core/workload.h core/cmd_run.c \
	core/share.c core/share.h core/cmd_share.c core/worktree.c core/worktree.h \
	core/cmd_add.c core/cmd_rm.c core/cmd_status.c core/cmd_log.c core/json_reports.h \
	core/views.c core/views.h core/cmd_show.c core/cmd_showdiff.c core/cmd_collect.c core/cmd_fuzz.c core/cmd_postprocessby.c \
	core/cmd_init.c core/cmd_config.c \
	core/cmd_plugins.c core/plugin_help.c core/plugin_help.h \
	core/cmd_docs.c core/cmd_utils.c core/cmd_utils_create.c core/cmd_utils_temp.c \
	core/cmd_utils_stats.c core/utils_store.c core/utils_store.h \
	core/cmd_import.c core/import.h core/import_heaptrack.c core/import_chrome.c core/compressed.c core/compressed.h \
	core/import_perf.c core/import_entries.c core/import_entries.h \
	core/perf_script.c core/perf_script.h core/folded_stacks.c core/folded_stacks.h \
	core/check.c core/check.h core/check_changes.c core/check_output.c core/cmd_check.c \
	core/check_history.c core/check_history.h core/check_evidence.c core/check_evidence.h \
	core/cmd_serve.c \
	core/serve_runs.c core/serve_runs.h core/serve_runs_internal.h core/serve_sessions.c \
	core/serve_request.c core/serve_request.h
perun_CFLAGS = $(AM_CFLAGS) $(LIBGIT2_CFLAGS) $(JANSSON_CFLAGS) $(YAML_CFLAGS) $(ZLIB_CFLAGS) $(LIBDEFLATE_CFLAGS) $(ISAL_CFLAGS) $(ZSTD_CFLAGS) $(NETTLE_CFLAGS) $(GSL_CFLAGS) -pthread
perun_LDADD = sdk/libperun.la $(LIBGIT2_LIBS) $(JANSSON_LIBS) $(YAML_LIBS) $(ZLIB_LIBS) $(LIBDEFLATE_LIBS) $(ISAL_LIBS) $(ZSTD_LIBS) $(NETTLE_LIBS) $(GSL_LIBS) -lm
# check profiles parses its two profiles in two threads.
perun_LDFLAGS = $(AM_LDFLAGS) -pthread

# perun serve (core/serve_*.c) where libmicrohttpd is; its pages are
# embedded at build time (core/serve_assets.c, from core/serve-assets/).
if HAVE_LIBMICROHTTPD
perun_SOURCES += core/serve_http.h core/serve_routes.h core/serve_router.c \
	core/serve_api.c core/serve_pages.c core/serve_assets.h core/serve_runs_api.c
nodist_perun_SOURCES = core/serve_assets.c
perun_CFLAGS += $(MHD_CFLAGS)
perun_LDADD += $(MHD_LIBS)
endif
serve_assets = core/serve-assets/project.html core/serve-assets/profile.html \
	core/serve-assets/compare.html \
	core/serve-assets/perun.css core/serve-assets/perun.js
# The Runs page (serve_runs_api.c).
serve_assets += core/serve-assets/runs.html core/serve-assets/runs.js
EXTRA_DIST += $(serve_assets) scripts/embed-assets.sh
CLEANFILES += core/serve_assets.c
core/serve_assets.c: $(serve_assets) $(top_srcdir)/scripts/embed-assets.sh
	$(AM_V_GEN)mkdir -p core && (cd $(top_srcdir) && $(SHELL) scripts/embed-assets.sh $(serve_assets)) >$@.tmp && mv $@.tmp $@
