dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl libunwind (fast local unwinding in the preloaded recorder), elfutils'
dnl libdw and libelf (symbols, sources and lines after the run) and
dnl libiberty (c++filt's demangler).
perun_have_memory_deps=yes
PKG_CHECK_MODULES([LIBUNWIND], [libunwind], [], [perun_have_memory_deps=no])
PKG_CHECK_MODULES([LIBDW], [libdw libelf], [], [perun_have_memory_deps=no])
AC_CHECK_HEADER([libiberty/demangle.h], [], [perun_have_memory_deps=no])
perun_save_LIBS=$LIBS
AC_SEARCH_LIBS([cplus_demangle], [iberty], [], [perun_have_memory_deps=no])
LIBS=$perun_save_LIBS
AC_SUBST([LIBIBERTY_LIBS], [-liberty])
PERUN_PLUGIN([memory], [collect], [$perun_have_memory_deps],
	[allocations of C/C++ programs with their call stacks (needs libunwind, libdw, libiberty)])
