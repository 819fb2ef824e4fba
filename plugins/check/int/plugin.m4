dnl SPDX-License-Identifier: GPL-3.0-or-later
PKG_CHECK_MODULES([GSL], [gsl], [perun_have_gsl=yes], [perun_have_gsl=no])
PERUN_PLUGIN([int], [check], [$perun_have_gsl], [integral comparison degradation check (needs GSL)])
