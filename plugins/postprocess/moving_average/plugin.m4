dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl GSL: the moving median.
PKG_CHECK_MODULES([GSL], [gsl], [perun_have_gsl=yes], [perun_have_gsl=no])
PERUN_PLUGIN([moving_average], [postprocess], [$perun_have_gsl],
	[moving-average models of resources: sma, smm, ema (needs GSL)])
