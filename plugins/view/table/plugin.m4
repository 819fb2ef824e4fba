dnl SPDX-License-Identifier: GPL-3.0-or-later
PERUN_PLUGIN([table], [view], [yes], [showdiff: top-N records of both profiles with shares])
