dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl plugins/lib/models: the regression models need GSL (the seeded MT19937
dnl shuffle); the library is built whenever GSL is found, for the plugins
dnl that link it (regression_analysis, fast, lreg).
PKG_CHECK_MODULES([GSL], [gsl], [perun_have_gsl=yes], [perun_have_gsl=no])
AM_CONDITIONAL([BUILD_LIB_MODELS], [test "x$perun_have_gsl" = xyes])
