dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl The @name@ fuzz plugin's configure switch, --enable-@name@ / --disable-@name@.
dnl A plugin with dependencies checks them here first (see
dnl plugins/postprocess/moving_average/plugin.m4) and passes the result
dnl instead of [yes].
PERUN_PLUGIN([@name@], [fuzz], [yes], [grows its seed by doubling (perun fuzz --fuzzer @name@)])
