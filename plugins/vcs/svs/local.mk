# SPDX-License-Identifier: GPL-3.0-or-later
if BUILD_PLUGIN_SVS
plugin_vcs_LTLIBRARIES += %reldir%/svs.la
%canon_reldir%_svs_la_SOURCES = %reldir%/svs.c
%canon_reldir%_svs_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
%canon_reldir%_svs_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_svs_la_LIBADD = $(PERUN_PLUGIN_LIBADD)

# The shared vcs test driver, with this plugin linked in.
check_PROGRAMS += %reldir%/tests/svs-test
%canon_reldir%_tests_svs_test_SOURCES = plugins/lib/vcs/vcs-driver.c %reldir%/svs.c
%canon_reldir%_tests_svs_test_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) \
	-DVCS_DESCRIBE=perun_plugin_svs_describe
%canon_reldir%_tests_svs_test_LDADD = sdk/libperun.la $(JANSSON_LIBS)
TESTS += %reldir%/tests/t7200-vcs-svs.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/tests/t7200-vcs-svs.sh
