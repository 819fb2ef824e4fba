dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl plugins/lib/view's configure check (a library, not a plugin: no switch).
dnl The graphical views inline Chart.js (Debian: libjs-chart.js) into their
dnl pages at run time; PERUN_CHARTJS is where it is looked for by default
dnl (the environment variable of the same name overrides it at run time).
AC_ARG_WITH([chartjs],
	[AS_HELP_STRING([--with-chartjs=FILE],
		[Chart.js (UMD build) the views inline (default: /usr/share/javascript/chart.js/chart.min.js)])],
	[PERUN_CHARTJS=$withval],
	[PERUN_CHARTJS=/usr/share/javascript/chart.js/chart.min.js])
AC_SUBST([PERUN_CHARTJS])
AS_IF([test -r "$PERUN_CHARTJS"], [perun_have_chartjs=yes], [perun_have_chartjs=no])
AS_IF([test "x$perun_have_chartjs" = xno],
	[AC_MSG_WARN([Chart.js not found at $PERUN_CHARTJS (Debian: libjs-chart.js): the graphical views will be built but report it when run])])
