dnl SPDX-License-Identifier: GPL-3.0-or-later
PERUN_PLUGIN([flamegraph], [view], [yes], [call stacks as an interactive SVG flame graph])
