dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl trace: libbpf and libelf, libiberty's demangler, and at build time clang
dnl (BPF target), bpftool (skeleton, vmlinux.h) and the kernel's BTF.
perun_have_trace=yes
perun_trace_missing=""
PKG_CHECK_MODULES([LIBBPF], [libbpf >= 1.0], [],
	[perun_have_trace=no; perun_trace_missing="$perun_trace_missing libbpf-dev"])
PKG_CHECK_MODULES([LIBELF], [libelf], [],
	[perun_have_trace=no; perun_trace_missing="$perun_trace_missing libelf-dev"])
AC_CHECK_HEADER([libiberty/demangle.h], [],
	[perun_have_trace=no; perun_trace_missing="$perun_trace_missing libiberty-dev"])
AC_PATH_PROG([CLANG], [clang])
AS_IF([test -n "$CLANG" && command -v "$CLANG" >/dev/null], [],
	[perun_have_trace=no; perun_trace_missing="$perun_trace_missing clang"])
AC_PATH_PROG([BPFTOOL], [bpftool], [], [$PATH:/usr/sbin:/sbin])
AS_IF([test -n "$BPFTOOL" && command -v "$BPFTOOL" >/dev/null], [],
	[perun_have_trace=no; perun_trace_missing="$perun_trace_missing bpftool"])
AC_ARG_VAR([PERUN_VMLINUX_BTF], [kernel BTF that vmlinux.h of the trace plugin is made from (default /sys/kernel/btf/vmlinux)])
AS_IF([test -z "$PERUN_VMLINUX_BTF"], [PERUN_VMLINUX_BTF=/sys/kernel/btf/vmlinux])
AS_IF([test -r "$PERUN_VMLINUX_BTF"], [],
	[perun_have_trace=no; perun_trace_missing="$perun_trace_missing $PERUN_VMLINUX_BTF"])
dnl The BPF target has no arch headers of its own: asm/ comes from the host's.
perun_multiarch=`$CC -print-multiarch 2>/dev/null`
AC_SUBST([BPF_CPPFLAGS], ["${perun_multiarch:+-I/usr/include/$perun_multiarch}"])
AS_CASE([$host_cpu],
	[x86_64|i?86], [BPF_ARCH=x86],
	[aarch64], [BPF_ARCH=arm64],
	[powerpc*], [BPF_ARCH=powerpc],
	[s390*], [BPF_ARCH=s390],
	[BPF_ARCH=$host_cpu])
AC_SUBST([BPF_ARCH])
dnl Tests with USDT probes need <sys/sdt.h> (systemtap-sdt-dev).
AC_CHECK_HEADER([sys/sdt.h], [perun_have_sdt=yes], [perun_have_sdt=no])
AC_SUBST([PERUN_HAVE_SDT], [$perun_have_sdt])
AS_IF([test "x$perun_have_trace" != xyes],
	[AC_MSG_NOTICE([trace collector: missing$perun_trace_missing])])
PERUN_PLUGIN([trace], [collect], [$perun_have_trace],
	[function and USDT tracing with eBPF, SystemTap or -finstrument-functions])
