dnl SPDX-License-Identifier: GPL-3.0-or-later
PERUN_PLUGIN([folded], [view], [yes], [export call stacks as folded stacks])
