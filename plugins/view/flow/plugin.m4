dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl Chart.js is read at run time (plugins/lib/view/lib.m4).
PERUN_PLUGIN([flow], [view], [yes], [aggregated resources as areas over x])
