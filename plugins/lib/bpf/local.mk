# SPDX-License-Identifier: GPL-3.0-or-later
# The build of BPF programs, shared by the plugins that have one (trace,
# kperf): vmlinux.h made once from the kernel's BTF, and the command that
# compiles a .bpf.c for the BPF target (CO-RE).  A plugin adds its rules:
#   x.bpf.o: x.bpf.c $(PERUN_BPF_VMLINUX)  ->  $(PERUN_BPF_COMPILE) -c ...
#   x.skel.h: x.bpf.o                       ->  $(BPFTOOL) gen skeleton ...
PERUN_BPF_VMLINUX = %reldir%/vmlinux.h
# The object's BTF (-g, which CO-RE needs) names its sources: mapped to
# relative paths, so that the plugins embedding it do not depend on where
# they were built (reproducible Debian packages).
PERUN_BPF_COMPILE = $(CLANG) -g -O2 -Wall -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
	-ffile-prefix-map=$(abs_top_builddir)=. -ffile-prefix-map=$(abs_top_srcdir)=. \
	$(BPF_CPPFLAGS) $(LIBBPF_CFLAGS) -I$(builddir)/%reldir%
if BUILD_LIB_BPF
%reldir%/vmlinux.h:
	$(AM_V_GEN)$(MKDIR_P) $(@D) && \
	$(BPFTOOL) btf dump file $(PERUN_VMLINUX_BTF) format c >$@.tmp && mv $@.tmp $@
CLEANFILES += %reldir%/vmlinux.h
endif
EXTRA_DIST += %reldir%/lib.m4
