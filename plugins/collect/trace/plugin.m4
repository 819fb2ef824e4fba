dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl trace: the BPF build of plugins/lib/bpf, libelf and libiberty's
dnl demangler.
perun_have_trace=$perun_have_bpf
perun_trace_missing="$perun_bpf_missing"
PKG_CHECK_MODULES([LIBELF], [libelf], [],
	[perun_have_trace=no; perun_trace_missing="$perun_trace_missing libelf-dev"])
AC_CHECK_HEADER([libiberty/demangle.h], [],
	[perun_have_trace=no; perun_trace_missing="$perun_trace_missing libiberty-dev"])
dnl Tests with USDT probes need <sys/sdt.h> (systemtap-sdt-dev).
AC_CHECK_HEADER([sys/sdt.h], [perun_have_sdt=yes], [perun_have_sdt=no])
AC_SUBST([PERUN_HAVE_SDT], [$perun_have_sdt])
AS_IF([test "x$perun_have_trace" != xyes],
	[AC_MSG_NOTICE([trace collector: missing$perun_trace_missing])])
PERUN_PLUGIN([trace], [collect], [$perun_have_trace],
	[function and USDT tracing with eBPF, SystemTap or -finstrument-functions])
