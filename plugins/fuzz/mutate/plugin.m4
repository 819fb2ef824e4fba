dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl libyaml (regex rules) is a dependency of perun itself; gcov is needed
dnl only at run time and only for coverage-guided fuzzing.
PERUN_PLUGIN([mutate], [fuzz], [yes], [performance fuzzer with mutation rules (perun fuzz)])
