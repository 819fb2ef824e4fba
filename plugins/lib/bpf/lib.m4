dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl plugins/lib/bpf: what plugins with BPF programs need (trace, kperf):
dnl libbpf, and at build time clang (BPF target), bpftool (skeletons,
dnl vmlinux.h) and the kernel's BTF.  Sets perun_have_bpf and lists what
dnl is missing in perun_bpf_missing.
perun_have_bpf=yes
perun_bpf_missing=""
PKG_CHECK_MODULES([LIBBPF], [libbpf >= 1.0], [],
	[perun_have_bpf=no; perun_bpf_missing="$perun_bpf_missing libbpf-dev"])
AC_PATH_PROG([CLANG], [clang])
AS_IF([test -n "$CLANG" && command -v "$CLANG" >/dev/null], [],
	[perun_have_bpf=no; perun_bpf_missing="$perun_bpf_missing clang"])
AC_PATH_PROG([BPFTOOL], [bpftool], [], [$PATH:/usr/sbin:/sbin])
AS_IF([test -n "$BPFTOOL" && command -v "$BPFTOOL" >/dev/null], [],
	[perun_have_bpf=no; perun_bpf_missing="$perun_bpf_missing bpftool"])
AC_ARG_VAR([PERUN_VMLINUX_BTF], [kernel BTF that vmlinux.h of the BPF programs is made from (default /sys/kernel/btf/vmlinux)])
AS_IF([test -z "$PERUN_VMLINUX_BTF"], [PERUN_VMLINUX_BTF=/sys/kernel/btf/vmlinux])
AS_IF([test -r "$PERUN_VMLINUX_BTF"], [],
	[perun_have_bpf=no; perun_bpf_missing="$perun_bpf_missing $PERUN_VMLINUX_BTF"])
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
AM_CONDITIONAL([BUILD_LIB_BPF], [test "x$perun_have_bpf" = xyes])
