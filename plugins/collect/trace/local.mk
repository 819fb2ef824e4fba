# SPDX-License-Identifier: GPL-3.0-or-later
TRACE_SOURCES = %reldir%/trace.c %reldir%/trace.h %reldir%/trace-event.h \
	%reldir%/probes.c %reldir%/elfsyms.c %reldir%/process.c %reldir%/transform.c \
	%reldir%/engine_ebpf.c %reldir%/engine_instrument.c %reldir%/engine_stap.c \
	%reldir%/runtime/instrument-record.h
TRACE_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(LIBBPF_CFLAGS) $(LIBELF_CFLAGS) \
	-I$(builddir)/%reldir% -I$(srcdir)/%reldir% \
	-DPERUN_TRACE_RUNTIME='"$(trace_runtimedir)/libperun-instrument.so"'
TRACE_LIBS = $(LIBBPF_LIBS) $(LIBELF_LIBS) -liberty -ldl
trace_runtimedir = $(pkglibdir)/runtime

if BUILD_PLUGIN_TRACE
plugin_collect_LTLIBRARIES += %reldir%/trace.la
%canon_reldir%_trace_la_SOURCES = $(TRACE_SOURCES)
%canon_reldir%_trace_la_CFLAGS = $(TRACE_CFLAGS)
%canon_reldir%_trace_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_trace_la_LIBADD = $(PERUN_PLUGIN_LIBADD) $(TRACE_LIBS)

# The BPF half (plugins/lib/bpf): the object from clang, the skeleton that
# embeds it from bpftool.  Generated, never committed.
%reldir%/trace.bpf.o: %reldir%/trace.bpf.c %reldir%/trace-event.h $(PERUN_BPF_VMLINUX)
	$(AM_V_GEN)$(PERUN_BPF_COMPILE) -I$(srcdir)/%reldir% \
		-c $(srcdir)/%reldir%/trace.bpf.c -o $@
%reldir%/trace.skel.h: %reldir%/trace.bpf.o
	$(AM_V_GEN)$(BPFTOOL) gen skeleton $< name trace_bpf >$@.tmp && mv $@.tmp $@
# Through a variable: automake would drop its own compile rule for a
# target it sees spelled out.
TRACE_SKEL_USERS = %reldir%/trace_la-engine_ebpf.lo
$(TRACE_SKEL_USERS): %reldir%/trace.skel.h
CLEANFILES += %reldir%/trace.bpf.o %reldir%/trace.skel.h

# The instrument engine's LD_PRELOAD runtime, installed beside the plugins
# and staged as stage/runtime like them; never sanitized (as the memory
# collector's runtime: it lives in the uninstrumented profiled program).
trace_runtime_LTLIBRARIES = %reldir%/libperun-instrument.la
%canon_reldir%_libperun_instrument_la_SOURCES = %reldir%/runtime/instrument.c \
	%reldir%/runtime/instrument-record.h
%canon_reldir%_libperun_instrument_la_CFLAGS = $(PERUN_CFLAGS) -O2 -fno-instrument-functions \
	-fvisibility=hidden
%canon_reldir%_libperun_instrument_la_LDFLAGS = -module -avoid-version -no-undefined -shared \
	-export-symbols-regex '^__cyg_profile_func_(enter|exit)$$'
noinst_DATA += stage/runtime/libperun-instrument.so
stage/runtime/libperun-instrument.so: %reldir%/libperun-instrument.la
	@$(MKDIR_P) stage/runtime && \
	ln -sf "$(abs_builddir)/%reldir%/.libs/libperun-instrument.so" $@

# Unit test: the transformation on hand-made events.
check_PROGRAMS += %reldir%/tests/test-transform
%canon_reldir%_tests_test_transform_SOURCES = %reldir%/tests/test-transform.c \
	%reldir%/transform.c %reldir%/trace.h
%canon_reldir%_tests_test_transform_CFLAGS = $(TRACE_CFLAGS)
%canon_reldir%_tests_test_transform_LDADD = $(top_builddir)/sdk/libperun.la $(JANSSON_LIBS)
TESTS += %reldir%/tests/test-transform
endif
TESTS += %reldir%/tests/t5300-collect-trace-ebpf.sh \
	%reldir%/tests/t5310-collect-trace-instrument.sh \
	%reldir%/tests/t5320-collect-trace-stap.sh \
	%reldir%/tests/t5330-collect-trace-errors.sh \
	%reldir%/tests/t5340-collect-trace-run.sh \
	%reldir%/tests/t5350-collect-trace-annotations.sh
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md %reldir%/trace.bpf.c \
	%reldir%/tests/trace-lib.sh %reldir%/tests/trace-query.py %reldir%/tests/progs \
	%reldir%/tests/t5300-collect-trace-ebpf.sh \
	%reldir%/tests/t5310-collect-trace-instrument.sh \
	%reldir%/tests/t5320-collect-trace-stap.sh \
	%reldir%/tests/t5330-collect-trace-errors.sh \
	%reldir%/tests/t5340-collect-trace-run.sh \
	%reldir%/tests/t5350-collect-trace-annotations.sh
