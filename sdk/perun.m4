# SPDX-License-Identifier: GPL-3.0-or-later
# perun.m4 - configure macros for out-of-tree Perun plugins.
#
# PERUN_PLUGIN_INIT([min-abi])
#   Finds the Perun plugin SDK with pkg-config and sets PERUN_CFLAGS,
#   PERUN_LIBS, PERUN_PLUGIN_LDFLAGS and perun_plugindir (where plugins are
#   installed: the system directory, or --with-perun-plugindir=DIR, e.g.
#   $XDG_DATA_HOME/perun/plugins for a per-user install).
AC_DEFUN([PERUN_PLUGIN_INIT], [
	PKG_PROG_PKG_CONFIG
	PKG_CHECK_MODULES([PERUN], [perun-plugin])
	PKG_CHECK_VAR([perun_system_plugindir], [perun-plugin], [pluginsdir])
	PKG_CHECK_VAR([perun_plugin_abi], [perun-plugin], [plugin_abi])
	m4_ifnblank([$1], [
		AC_MSG_CHECKING([for perun plugin ABI >= $1])
		AS_VERSION_COMPARE([$perun_plugin_abi], [$1],
			[AC_MSG_RESULT([no, $perun_plugin_abi])
			 AC_MSG_ERROR([perun plugin ABI $perun_plugin_abi is older than $1])],
			[AC_MSG_RESULT([yes])], [AC_MSG_RESULT([yes])])
	])
	AC_ARG_WITH([perun-plugindir],
		[AS_HELP_STRING([--with-perun-plugindir=DIR],
			[install plugins into DIR instead of perun's system directory])],
		[perun_plugindir=$withval], [perun_plugindir=$perun_system_plugindir])
	AC_SUBST([perun_plugindir])
	PERUN_PLUGIN_LDFLAGS="-module -avoid-version -no-undefined -shared -export-symbols-regex '^perun_plugin_[[a-z0-9_]]+_describe\$\$'"
	AC_SUBST([PERUN_PLUGIN_LDFLAGS])
])
