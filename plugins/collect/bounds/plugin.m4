dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl bounds parses C with libclang and discharges guards with Z3.  Debian
dnl ships libclang without a .pc file, under /usr/lib/llvm-<N>: llvm-config
dnl (versioned first) names the directories (no rpath: the soname,
dnl libclang-<N>.so.<M>, is in the system path); LIBCLANG_CFLAGS/LIBCLANG_LIBS
dnl given to configure win.  Z3 has a .pc file; plain -lz3 is the fallback.
AC_ARG_VAR([LIBCLANG_CFLAGS], [C compiler flags for libclang])
AC_ARG_VAR([LIBCLANG_LIBS], [linker flags for libclang])
AC_ARG_VAR([LLVM_CONFIG], [llvm-config of the LLVM whose libclang bounds uses])
perun_bounds_deps=yes
AS_IF([test -z "$LIBCLANG_LIBS"], [
	AC_PATH_PROGS([LLVM_CONFIG],
		[llvm-config-16 llvm-config-15 llvm-config-14 llvm-config-13 llvm-config])
	AS_IF([test -n "$LLVM_CONFIG"], [
		perun_llvm_inc=`$LLVM_CONFIG --includedir`
		perun_llvm_lib=`$LLVM_CONFIG --libdir`
		LIBCLANG_CFLAGS="-I$perun_llvm_inc"
		LIBCLANG_LIBS="-L$perun_llvm_lib -lclang"
	])
])
perun_save_CPPFLAGS=$CPPFLAGS
perun_save_LIBS=$LIBS
CPPFLAGS="$CPPFLAGS $LIBCLANG_CFLAGS"
LIBS="$LIBCLANG_LIBS $LIBS"
AC_MSG_CHECKING([for libclang])
AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <clang-c/Index.h>]],
		[[CXIndex i = clang_createIndex(0, 0); clang_disposeIndex(i);]])],
	[AC_MSG_RESULT([yes])],
	[AC_MSG_RESULT([no]); perun_bounds_deps=no])
CPPFLAGS=$perun_save_CPPFLAGS
LIBS=$perun_save_LIBS
PKG_CHECK_MODULES([Z3], [z3], [], [
	AC_CHECK_HEADER([z3.h],
		[AC_CHECK_LIB([z3], [Z3_mk_context], [Z3_CFLAGS=; Z3_LIBS=-lz3],
			[perun_bounds_deps=no])],
		[perun_bounds_deps=no])])
AS_IF([test "x$perun_bounds_deps" != xyes],
	[AC_MSG_NOTICE([bounds: libclang (libclang-dev) or Z3 (libz3-dev) not found])])
PERUN_PLUGIN([bounds], [collect], [$perun_bounds_deps],
	[static loop bounds of C sources (needs libclang and Z3)])
