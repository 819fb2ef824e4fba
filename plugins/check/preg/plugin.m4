dnl SPDX-License-Identifier: GPL-3.0-or-later
PKG_CHECK_MODULES([GSL], [gsl], [perun_have_gsl=yes], [perun_have_gsl=no])
PERUN_PLUGIN([preg], [check], [$perun_have_gsl], [polynomial regression degradation check (needs GSL)])
