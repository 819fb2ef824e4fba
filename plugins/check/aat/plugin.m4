dnl SPDX-License-Identifier: GPL-3.0-or-later
PERUN_PLUGIN([aat], [check], [yes], [average amount threshold degradation check])
