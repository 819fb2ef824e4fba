dnl SPDX-License-Identifier: GPL-3.0-or-later
PERUN_PLUGIN([chrome], [view], [yes], [export call stacks as Chrome Trace Event JSON])
