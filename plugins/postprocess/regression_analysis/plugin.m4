dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl GSL: the seeded shuffle of the randomised methods (MT19937).
PKG_CHECK_MODULES([GSL], [gsl], [perun_have_gsl=yes], [perun_have_gsl=no])
PERUN_PLUGIN([regression_analysis], [postprocess], [$perun_have_gsl],
	[parametric regression models of resources (needs GSL)])
