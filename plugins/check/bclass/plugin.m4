dnl SPDX-License-Identifier: GPL-3.0-or-later
PERUN_PLUGIN([bclass], [check], [yes], [complexity classes of bounds profiles])
