# SPDX-License-Identifier: GPL-3.0-or-later
# Plugin ABI regression tests (DESIGN.md section 2): a frozen ABI 1.0
# plugin that every 1.x core must keep loading, and deliberately broken
# plugins the loader must reject with its exact messages.  They are built
# as shared modules (-rpath makes libtool build a .so) but never installed.
ABI_TEST_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS) -rpath /nowhere

check_LTLIBRARIES += %reldir%/abi_1_0.la
%canon_reldir%_abi_1_0_la_SOURCES = %reldir%/plugin-abi-1.0.c
%canon_reldir%_abi_1_0_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
%canon_reldir%_abi_1_0_la_LIBADD = $(top_builddir)/sdk/libperun.la
check_LTLIBRARIES += %reldir%/check_1_3.la
%canon_reldir%_check_1_3_la_SOURCES = %reldir%/plugin-check-abi-1.3.c
%canon_reldir%_check_1_3_la_LDFLAGS = $(ABI_TEST_LDFLAGS)

# The library missing_dep needs at run time: it is linked by its file, but
# its soname names a file that exists nowhere, so loading the plugin fails
# as it does when a dependency is not installed.  (A libtool library would
# be found through the build tree's runpath.)
%reldir%/gone/libabigone.so: %reldir%/abi-dep.c
	$(AM_V_CCLD)$(MKDIR_P) %reldir%/gone && \
	$(CC) $(CFLAGS) -fPIC -shared -Wl,-soname,libperun-abi-test-gone.so.0 \
		-o $@ $(srcdir)/%reldir%/abi-dep.c
CLEANFILES += %reldir%/gone/libabigone.so
EXTRA_DIST += %reldir%/abi-dep.c

# One source, one defect per plugin (see the top of plugin-bad.c).
check_LTLIBRARIES += %reldir%/bad_magic.la
%canon_reldir%_bad_magic_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_bad_magic_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=bad_magic -DDESC_MAGIC=0xdeadbeefu
%canon_reldir%_bad_magic_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/abi_major_next.la
%canon_reldir%_abi_major_next_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_abi_major_next_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=abi_major_next -DDESC_MAJOR='(PERUN_PLUGIN_ABI_MAJOR + 1)'
%canon_reldir%_abi_major_next_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/abi_minor_next.la
%canon_reldir%_abi_minor_next_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_abi_minor_next_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=abi_minor_next -DDESC_MINOR='(PERUN_PLUGIN_ABI_MINOR + 1)'
%canon_reldir%_abi_minor_next_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/name_mismatch.la
%canon_reldir%_name_mismatch_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_name_mismatch_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=name_mismatch -DDESC_NAME='"other_name"'
%canon_reldir%_name_mismatch_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/no_show.la
%canon_reldir%_no_show_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_no_show_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=no_show -DNO_SHOW
%canon_reldir%_no_show_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/small_size.la
%canon_reldir%_small_size_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_small_size_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=small_size -DDESC_SIZE='offsetof(struct perun_plugin, name)'
%canon_reldir%_small_size_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/unknown_kind.la
%canon_reldir%_unknown_kind_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_unknown_kind_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=unknown_kind -DDESC_KIND=99
%canon_reldir%_unknown_kind_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/no_describe.la
%canon_reldir%_no_describe_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_no_describe_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=no_describe -DEXPORT_NAME=built_as_other
%canon_reldir%_no_describe_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/dup_view.la
%canon_reldir%_dup_view_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_dup_view_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=dup_view -DEXPORT_NAME=dup -DDESC_NAME='"dup"'
%canon_reldir%_dup_view_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/dup_collect.la
%canon_reldir%_dup_collect_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_dup_collect_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=dup_collect -DEXPORT_NAME=dup -DDESC_NAME='"dup"' -DDESC_KIND=PERUN_KIND_COLLECT
%canon_reldir%_dup_collect_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/missing_dep.la
%canon_reldir%_missing_dep_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_missing_dep_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=missing_dep -DUSE_DEP
%canon_reldir%_missing_dep_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
%canon_reldir%_missing_dep_la_LIBADD = -L%reldir%/gone -labigone
EXTRA_%canon_reldir%_missing_dep_la_DEPENDENCIES = %reldir%/gone/libabigone.so
check_LTLIBRARIES += %reldir%/crash_describe.la
%canon_reldir%_crash_describe_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_crash_describe_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=crash_describe -DCRASH_IN=CRASH_DESCRIBE
%canon_reldir%_crash_describe_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/crash_show.la
%canon_reldir%_crash_show_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_crash_show_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=crash_show -DCRASH_IN=CRASH_SHOW
%canon_reldir%_crash_show_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/crash_collect.la
%canon_reldir%_crash_collect_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_crash_collect_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=crash_collect -DCRASH_IN=CRASH_COLLECT -DDESC_KIND=PERUN_KIND_COLLECT
%canon_reldir%_crash_collect_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/hang_collect.la
%canon_reldir%_hang_collect_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_hang_collect_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=hang_collect -DHANG_IN_COLLECT -DDESC_KIND=PERUN_KIND_COLLECT
%canon_reldir%_hang_collect_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/crash_vcs.la
%canon_reldir%_crash_vcs_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_crash_vcs_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=crash_vcs -DCRASH_VCS -DDESC_KIND=PERUN_KIND_VCS
%canon_reldir%_crash_vcs_la_LDFLAGS = $(ABI_TEST_LDFLAGS)
check_LTLIBRARIES += %reldir%/undefined_symbol.la
%canon_reldir%_undefined_symbol_la_SOURCES = %reldir%/plugin-bad.c
%canon_reldir%_undefined_symbol_la_CPPFLAGS = $(AM_CPPFLAGS) -DPLUGIN_NAME=undefined_symbol -DUSE_UNDEFINED
%canon_reldir%_undefined_symbol_la_LDFLAGS = $(ABI_TEST_LDFLAGS)

TESTS += %reldir%/t0810-plugins-abi.sh %reldir%/t0820-plugins-build.sh
EXTRA_DIST += %reldir%/t0810-plugins-abi.sh %reldir%/t0820-plugins-build.sh
