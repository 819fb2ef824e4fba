dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl plugins/lib/counters: event names and counting for the counters
dnl collector and perun-events need libpfm4 (libpfm4-dev, no pkg-config
dnl file) and Linux's perf_event_open.
perun_have_libpfm=yes
AC_CHECK_HEADER([perfmon/pfmlib_perf_event.h], [], [perun_have_libpfm=no])
AC_CHECK_LIB([pfm], [pfm_get_os_event_encoding], [LIBPFM_LIBS=-lpfm], [perun_have_libpfm=no])
AC_CHECK_HEADER([sys/signalfd.h], [], [perun_have_libpfm=no])
AC_SUBST([LIBPFM_LIBS])
AS_IF([test "x$perun_have_libpfm" != xyes],
	[AC_MSG_NOTICE([counters collector: missing libpfm4-dev])])
AM_CONDITIONAL([BUILD_LIB_COUNTERS], [test "x$perun_have_libpfm" = xyes])
