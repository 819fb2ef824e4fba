dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl Chart.js is read at run time (plugins/lib/view/lib.m4).
PERUN_PLUGIN([scatter], [view], [yes], [resources and models as scatter plots per uid])
