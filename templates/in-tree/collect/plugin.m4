dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl The @name@ collect plugin's configure switch, --enable-@name@ / --disable-@name@.
dnl A plugin with dependencies checks them here first (see
dnl plugins/postprocess/moving_average/plugin.m4) and passes the result
dnl instead of [yes].
PERUN_PLUGIN([@name@], [collect], [yes], [wall time of each run of a command])
