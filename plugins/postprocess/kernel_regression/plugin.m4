dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl GSL: SVD and LU solves, sorting, statistics, the seeded sub-samples.
PKG_CHECK_MODULES([GSL], [gsl], [perun_have_gsl=yes], [perun_have_gsl=no])
PERUN_PLUGIN([kernel_regression], [postprocess], [$perun_have_gsl],
	[non-parametric kernel models of resources (needs GSL)])
