dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl GSL: histogram bins, sorting and medians.
PKG_CHECK_MODULES([GSL], [gsl], [perun_have_gsl=yes], [perun_have_gsl=no])
PERUN_PLUGIN([regressogram], [postprocess], [$perun_have_gsl],
	[regressogram models of resources (needs GSL)])
