dnl SPDX-License-Identifier: GPL-3.0-or-later
dnl kperf: perf events through plugins/lib/counters (libpfm4), the BPF
dnl build of plugins/lib/bpf, elfutils' libdw (symbols, dwarf unwinding)
dnl and libiberty's demangler.
perun_have_kperf=$perun_have_bpf
perun_kperf_missing="$perun_bpf_missing"
AS_IF([test "x$perun_have_libpfm" = xyes], [],
	[perun_have_kperf=no; perun_kperf_missing="$perun_kperf_missing libpfm4-dev"])
PKG_CHECK_MODULES([LIBDW], [libdw], [],
	[perun_have_kperf=no; perun_kperf_missing="$perun_kperf_missing libdw-dev"])
AC_CHECK_HEADER([libiberty/demangle.h], [],
	[perun_have_kperf=no; perun_kperf_missing="$perun_kperf_missing libiberty-dev"])
AS_IF([test "x$perun_have_kperf" != xyes],
	[AC_MSG_NOTICE([kperf collector: missing$perun_kperf_missing])])
PERUN_PLUGIN([kperf], [collect], [$perun_have_kperf],
	[sampled call stacks of a command (perf record -g), BPF or dwarf unwinding])
