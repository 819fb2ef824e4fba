dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl Valgrind is needed when the collector runs, not to build it.
PERUN_PLUGIN([instructions], [collect], [yes],
	[instructions a command and its functions execute (Valgrind)])
