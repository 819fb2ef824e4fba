dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl counters: libpfm4 and perf_event_open, through plugins/lib/counters.
PERUN_PLUGIN([counters], [collect], [$perun_have_libpfm],
	[hardware and software event counts of a command (perf stat)])
