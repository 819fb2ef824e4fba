dnl SPDX-License-Identifier: GPL-3.0-or-later
PERUN_PLUGIN([report], [view], [yes], [showdiff: all records on one sortable, filterable page])
