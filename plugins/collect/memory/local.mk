# SPDX-License-Identifier: GPL-3.0-or-later
# The collector plugin, and the library it preloads into the profiled
# program, installed as $(pkglibdir)/runtime/libperun-malloc.so and staged
# as stage/runtime/libperun-malloc.so (the plugin finds it relative to
# itself: ../../runtime from plugins/collect).
memory_runtimedir = $(pkglibdir)/runtime
if BUILD_PLUGIN_MEMORY
plugin_collect_LTLIBRARIES += %reldir%/memory.la
%canon_reldir%_memory_la_SOURCES = %reldir%/memory.c %reldir%/trace.c \
	%reldir%/trace.h %reldir%/record.h %reldir%/symbols.c %reldir%/symbols.h \
	%reldir%/stacks.c %reldir%/stacks.h %reldir%/live-map.c %reldir%/live-map.h \
	%reldir%/aggregate.c %reldir%/per-event.c
%canon_reldir%_memory_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DPERUN_MEMORY_RUNTIME='"$(memory_runtimedir)/libperun-malloc.so"'
%canon_reldir%_memory_la_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) $(LIBDW_CFLAGS)
%canon_reldir%_memory_la_LDFLAGS = $(PERUN_PLUGIN_LDFLAGS)
%canon_reldir%_memory_la_LIBADD = $(PERUN_PLUGIN_LIBADD) $(LIBDW_LIBS) \
	$(LIBIBERTY_LIBS) -lm

# Nothing of libperun in the program's address space: libunwind only, and
# only the allocators exported.  No sanitizers ($(PERUN_CFLAGS), not
# $(AM_CFLAGS)): an ASan runtime must be the first library of the process,
# and the profiled program is not built with it.
memory_runtime_LTLIBRARIES = %reldir%/libperun-malloc.la
noinst_DATA += stage/runtime/libperun-malloc.so
stage/runtime/libperun-malloc.so: %reldir%/libperun-malloc.la
	@$(MKDIR_P) stage/runtime && \
	ln -sf "$(abs_builddir)/%reldir%/.libs/libperun-malloc.so" $@
%canon_reldir%_libperun_malloc_la_SOURCES = %reldir%/recorder.c %reldir%/record.h
%canon_reldir%_libperun_malloc_la_CFLAGS = $(PERUN_CFLAGS) $(LIBUNWIND_CFLAGS) \
	-fvisibility=hidden -fno-omit-frame-pointer -O2
%canon_reldir%_libperun_malloc_la_LDFLAGS = -module -avoid-version -no-undefined \
	-shared
%canon_reldir%_libperun_malloc_la_LIBADD = $(LIBUNWIND_LIBS) -ldl -lpthread

TESTS += %reldir%/tests/t5400-collect-memory.sh \
	%reldir%/tests/t5401-collect-memory-threads.sh \
	%reldir%/tests/t5402-collect-memory-errors.sh \
	%reldir%/tests/t5403-collect-memory-aggregated.sh
endif
EXTRA_DIST += %reldir%/plugin.m4 %reldir%/README.md \
	%reldir%/tests/t5400-collect-memory.sh \
	%reldir%/tests/t5401-collect-memory-threads.sh \
	%reldir%/tests/t5402-collect-memory-errors.sh \
	%reldir%/tests/t5403-collect-memory-aggregated.sh \
	%reldir%/tests/lib-memory.sh %reldir%/tests/progs \
	bench/bench-memory.sh
