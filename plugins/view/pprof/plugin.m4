dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl protobuf-c: the library and protoc-c, which compiles profile.proto at
dnl build time; zlib (a core dependency) compresses.
PKG_CHECK_MODULES([PROTOBUF_C], [libprotobuf-c], [perun_have_protobuf_c=yes],
	[perun_have_protobuf_c=no])
AC_PATH_PROG([PROTOC_C], [protoc-c])
AS_IF([test -z "$PROTOC_C"], [perun_have_protobuf_c=no])
PERUN_PLUGIN([pprof], [view], [$perun_have_protobuf_c],
	[export call stacks as pprof profiles (needs libprotobuf-c-dev, protobuf-c-compiler)])
