# SPDX-License-Identifier: GPL-3.0-or-later
KPERF_SOURCES = %reldir%/kperf.c %reldir%/kperf.h %reldir%/kperf-stack.h \
	%reldir%/sampler.c %reldir%/engine_bpf.c %reldir%/unwind.c %reldir%/procmaps.c \
	%reldir%/kallsyms.c %reldir%/stacks.c

if BUILD_PLUGIN_KPERF
plugin_collect_LTLIBRARIES += %reldir%/kperf.la
%canon_reldir%_kperf_la_SOURCES = $(KPERF_SOURCES)
%canon_reldir%_kperf_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(LIBBPF_CFLAGS) $(LIBDW_CFLAGS)
%canon_reldir%_kperf_la_CPPFLAGS = $(AM_CPPFLAGS) $(PERUN_LIB_COUNTERS_CPPFLAGS) \
	$(PERUN_LIB_CMDLINE_CPPFLAGS) -I$(builddir)/%reldir% -I$(srcdir)/%reldir%
%canon_reldir%_kperf_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_kperf_la_LIBADD = $(PERUN_PLUGIN_LIBADD) $(PERUN_LIB_COUNTERS_LIBADD) \
	$(PERUN_LIB_CMDLINE_LIBADD) $(LIBBPF_LIBS) $(LIBDW_LIBS) -liberty

# The BPF program (plugins/lib/bpf) and its skeleton; generated.
%reldir%/kperf.bpf.o: %reldir%/kperf.bpf.c %reldir%/kperf-stack.h $(PERUN_BPF_VMLINUX)
	$(AM_V_GEN)$(PERUN_BPF_COMPILE) -I$(srcdir)/%reldir% \
		-c $(srcdir)/%reldir%/kperf.bpf.c -o $@
%reldir%/kperf.bpf.skel.h: %reldir%/kperf.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton $< name kperf_bpf_skel >$@.tmp && mv $@.tmp $@
# Through a variable: automake would drop its own compile rule for a
# target it sees spelled out.
KPERF_SKEL_USERS = %reldir%/kperf_la-engine_bpf.lo
$(KPERF_SKEL_USERS): %reldir%/kperf.bpf.skel.h
CLEANFILES += %reldir%/kperf.bpf.o %reldir%/kperf.bpf.skel.h

endif
TESTS += %reldir%/tests/t5500-collect-kperf.sh %reldir%/tests/t5510-kperf-errors.sh
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/kperf.bpf.c \
	%reldir%/tests/t5500-collect-kperf.sh %reldir%/tests/t5510-kperf-errors.sh \
	%reldir%/tests/kperf-lib.sh %reldir%/tests/hot.c bench/bench-kperf.sh
