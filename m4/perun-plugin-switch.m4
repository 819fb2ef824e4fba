dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl PERUN_PLUGIN([name], [kind], [deps-found yes/no], [help])
dnl   --enable-<name>[=force] / --disable-<name>; configure fails when a
dnl   plugin asked for explicitly lacks its dependencies.  Defines the
dnl   automake conditional BUILD_PLUGIN_<NAME> and records a summary line.
AC_DEFUN([PERUN_PLUGINS_INIT], [
	AC_ARG_ENABLE([all-plugins],
		[AS_HELP_STRING([--enable-all-plugins=auto|yes|no],
			[default for every plugin switch (auto)])],
		[], [enable_all_plugins=auto])
	perun_plugin_summary=""
])

AC_DEFUN([PERUN_PLUGIN], [
	m4_pushdef([perun_pvar], m4_translit([$1], [-], [_]))
	m4_pushdef([perun_PVAR], m4_toupper(m4_translit([$1], [-], [_])))
	AC_ARG_ENABLE([$1],
		[AS_HELP_STRING([--enable-$1], [$2 plugin: $4])],
		[enable_[]perun_pvar=$enableval],
		[enable_[]perun_pvar=$enable_all_plugins])
	perun_plugin_deps="$3"
	perun_plugin_build=no
	perun_plugin_reason=""
	AS_CASE([$enable_[]perun_pvar],
		[force], [perun_plugin_build=yes; perun_plugin_reason="(forced)"],
		[yes], [AS_IF([test "x$perun_plugin_deps" = xyes],
			[perun_plugin_build=yes],
			[AC_MSG_ERROR([plugin '$1' was requested but its dependencies are missing])])],
		[no], [perun_plugin_reason="(disabled)"],
		[AS_IF([test "x$perun_plugin_deps" = xyes],
			[perun_plugin_build=yes],
			[perun_plugin_reason="(dependencies not found)"])])
	AM_CONDITIONAL([BUILD_PLUGIN_]perun_PVAR, [test "x$perun_plugin_build" = xyes])
	perun_plugin_summary="$perun_plugin_summary
    m4_format([%-12s %-22s], [$2], [$1]) $perun_plugin_build $perun_plugin_reason"
	m4_popdef([perun_PVAR])
	m4_popdef([perun_pvar])
])

AC_DEFUN([PERUN_PLUGINS_SUMMARY], [
	AC_MSG_NOTICE([summary of plugins to build:$perun_plugin_summary])
])
