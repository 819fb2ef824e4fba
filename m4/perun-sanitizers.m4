# SPDX-License-Identifier: GPL-3.0-or-later
# PERUN_SANITIZERS
#   --enable-sanitizers: build perun, libperun, every plugin and the test
#   programs with AddressSanitizer and UBSan (scripts/run-sanitized-tests.sh).
#   Sets SANITIZER_CFLAGS and SANITIZER_LDFLAGS, empty when disabled.  The
#   code that runs inside a profiled program (the LD_PRELOAD runtimes) and
#   perun-spawn leave them out: the program is not instrumented, and ASan
#   must be the first library of a process it runs in.
AC_DEFUN([PERUN_SANITIZERS], [
	AC_ARG_ENABLE([sanitizers],
		[AS_HELP_STRING([--enable-sanitizers],
			[build with AddressSanitizer and UndefinedBehaviorSanitizer])],
		[], [enable_sanitizers=no])
	SANITIZER_CFLAGS=
	SANITIZER_LDFLAGS=
	AS_IF([test "x$enable_sanitizers" = xyes], [
		SANITIZER_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
		SANITIZER_LDFLAGS="-fsanitize=address,undefined"
		AC_MSG_CHECKING([whether $CC links with $SANITIZER_CFLAGS])
		perun_save_CFLAGS=$CFLAGS
		perun_save_LDFLAGS=$LDFLAGS
		CFLAGS="$CFLAGS $SANITIZER_CFLAGS"
		LDFLAGS="$LDFLAGS $SANITIZER_LDFLAGS"
		AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])], [AC_MSG_RESULT([yes])],
			[AC_MSG_RESULT([no])
			 AC_MSG_ERROR([--enable-sanitizers: $CC cannot build with ASan and UBSan (Debian: libasan and libubsan come with gcc)])])
		CFLAGS=$perun_save_CFLAGS
		LDFLAGS=$perun_save_LDFLAGS])
	AC_SUBST([SANITIZER_CFLAGS])
	AC_SUBST([SANITIZER_LDFLAGS])
])
