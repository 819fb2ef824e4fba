dnl SPDX-License-Identifier: GPL-3.0-or-later
PERUN_PLUGIN([eto], [check], [yes], [exclusive-time outliers between trace profiles])
