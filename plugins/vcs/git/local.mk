# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_GIT
plugin_vcs_LTLIBRARIES += %reldir%/git.la
%canon_reldir%_git_la_SOURCES = %reldir%/git.c
%canon_reldir%_git_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(LIBGIT2_CFLAGS)
%canon_reldir%_git_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_git_la_LIBADD = $(PERUN_PLUGIN_LIBADD) $(LIBGIT2_LIBS)

# The test driver links the plugin source in and calls it through its
# descriptor; the shell test compares what it prints with git's answers.
check_PROGRAMS += %reldir%/tests/git-test
%canon_reldir%_tests_git_test_SOURCES = plugins/lib/vcs/vcs-driver.c %reldir%/git.c
%canon_reldir%_tests_git_test_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(LIBGIT2_CFLAGS) \
	-DVCS_DESCRIBE=perun_plugin_git_describe -DVCS_DRIVER_LIBGIT2
%canon_reldir%_tests_git_test_LDADD = sdk/libperun.la $(JANSSON_LIBS) $(LIBGIT2_LIBS)
TESTS += %reldir%/tests/t7100-vcs-git.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/t7100-vcs-git.sh
