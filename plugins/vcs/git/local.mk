# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_GIT
plugin_vcs_LTLIBRARIES += %reldir%/git.la
%canon_reldir%_git_la_SOURCES = %reldir%/git.c
%canon_reldir%_git_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_git_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_git_la_LIBADD = $(PERUN_PLUGIN_LIBADD)
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md
