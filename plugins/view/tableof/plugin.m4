dnl SPDX-License-Identifier: GPL-3.0-or-later
PERUN_PLUGIN([tableof], [view], [yes], [resources and models as tables])
