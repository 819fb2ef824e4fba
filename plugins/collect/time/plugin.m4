dnl SPDX-License-Identifier: GPL-3.0-or-later
PERUN_PLUGIN([time], [collect], [yes], [wall, user and system time of a command])
dnl perun-spawn links statically where the C library allows it: its
dnl resident size is the floor of every max-rss the collector measures.
AC_MSG_CHECKING([whether programs can be linked statically])
perun_save_LDFLAGS=$LDFLAGS
LDFLAGS="$LDFLAGS -static"
AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <spawn.h>]],
		[[return posix_spawn(0, 0, 0, 0, 0, 0);]])],
	[PERUN_SPAWN_LDFLAGS=-all-static; AC_MSG_RESULT([yes])],
	[PERUN_SPAWN_LDFLAGS=; AC_MSG_RESULT([no])])
LDFLAGS=$perun_save_LDFLAGS
AC_SUBST([PERUN_SPAWN_LDFLAGS])
