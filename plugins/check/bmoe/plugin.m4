dnl SPDX-License-Identifier: GPL-3.0-or-later
PERUN_PLUGIN([bmoe], [check], [yes], [best model order equality degradation check])
