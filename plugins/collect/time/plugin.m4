dnl SPDX-License-Identifier: GPL-3.0-or-later
PERUN_PLUGIN([time], [collect], [yes], [wall, user and system time of a command])
