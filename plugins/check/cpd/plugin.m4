dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl GSL: the seeded permutations (MT19937) and Student's t distribution.
PKG_CHECK_MODULES([GSL], [gsl], [perun_have_gsl=yes], [perun_have_gsl=no])
PERUN_PLUGIN([cpd], [check], [$perun_have_gsl],
	[change points in the history of a configuration (needs GSL)])
