# SPDX-License-Identifier: GPL-3.0-or-later
# The libFuzzer targets: built by configure --enable-fuzzing (CC=clang;
# ASan and UBSan); fuzz/build.sh makes such a build beside any other.
# Each target replays its regression corpus (every input that ever
# failed) in tests/t0970-fuzz-targets.sh and make fuzz-smoke.
FUZZ_TARGETS = profile_load config_yaml index_read store_object selector perf_script \
	chrome_trace serve_request
# (automake's default "cru" makes binutils warn about its u)
ARFLAGS = cr
EXTRA_DIST += %reldir%/README.md %reldir%/build.sh %reldir%/replay.sh \
	%reldir%/fuzz_profile_load.c %reldir%/fuzz_config_yaml.c \
	%reldir%/fuzz_index_read.c %reldir%/fuzz_store_object.c %reldir%/fuzz_selector.c \
	%reldir%/fuzz_perf_script.c %reldir%/fuzz_chrome_trace.c %reldir%/fuzz_serve_request.c \
	%reldir%/corpus %reldir%/regression

if ENABLE_FUZZING
FUZZ_CFLAGS = $(AM_CFLAGS) -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined -I$(top_srcdir)/core \
	$(JANSSON_CFLAGS) $(YAML_CFLAGS) $(ZLIB_CFLAGS) $(LIBDEFLATE_CFLAGS) $(ISAL_CFLAGS) $(ZSTD_CFLAGS) $(NETTLE_CFLAGS) -pthread
FUZZ_LINK_LIBS = %reldir%/libfuzz.a $(JANSSON_LIBS) $(YAML_LIBS) $(ZLIB_LIBS) $(LIBDEFLATE_LIBS) $(ISAL_LIBS) $(ZSTD_LIBS) $(NETTLE_LIBS) \
	-lm -lpthread
FUZZ_LINK_FLAGS = -fsanitize=fuzzer,address,undefined
# libperun and the core parsers, compiled once with the sanitizers.
noinst_LIBRARIES += %reldir%/libfuzz.a
%canon_reldir%_libfuzz_a_SOURCES = $(sdk_libperun_la_SOURCES) \
	core/durable.c core/index.c core/store.c core/store_segments.c core/config_yaml.c \
	core/selector.c \
	core/perf_script.c core/folded_stacks.c core/compressed.c core/import_chrome.c \
	core/serve_request.c
%canon_reldir%_libfuzz_a_CFLAGS = $(FUZZ_CFLAGS)
noinst_PROGRAMS += %reldir%/fuzz_profile_load %reldir%/fuzz_config_yaml \
	%reldir%/fuzz_index_read %reldir%/fuzz_store_object %reldir%/fuzz_selector \
	%reldir%/fuzz_perf_script %reldir%/fuzz_chrome_trace %reldir%/fuzz_serve_request
%canon_reldir%_fuzz_profile_load_CFLAGS = $(FUZZ_CFLAGS)
%canon_reldir%_fuzz_profile_load_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_profile_load_LDADD = $(FUZZ_LINK_LIBS)
%canon_reldir%_fuzz_config_yaml_CFLAGS = $(FUZZ_CFLAGS)
%canon_reldir%_fuzz_config_yaml_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_config_yaml_LDADD = $(FUZZ_LINK_LIBS)
%canon_reldir%_fuzz_index_read_CFLAGS = $(FUZZ_CFLAGS)
%canon_reldir%_fuzz_index_read_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_index_read_LDADD = $(FUZZ_LINK_LIBS)
%canon_reldir%_fuzz_store_object_CFLAGS = $(FUZZ_CFLAGS)
%canon_reldir%_fuzz_store_object_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_store_object_LDADD = $(FUZZ_LINK_LIBS)
%canon_reldir%_fuzz_selector_CFLAGS = $(FUZZ_CFLAGS)
%canon_reldir%_fuzz_selector_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_selector_LDADD = $(FUZZ_LINK_LIBS)
%canon_reldir%_fuzz_perf_script_CFLAGS = $(FUZZ_CFLAGS)
%canon_reldir%_fuzz_perf_script_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_perf_script_LDADD = $(FUZZ_LINK_LIBS)
%canon_reldir%_fuzz_chrome_trace_CFLAGS = $(FUZZ_CFLAGS)
%canon_reldir%_fuzz_chrome_trace_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_chrome_trace_LDADD = $(FUZZ_LINK_LIBS)
%canon_reldir%_fuzz_serve_request_CFLAGS = $(FUZZ_CFLAGS)
%canon_reldir%_fuzz_serve_request_LDFLAGS = $(FUZZ_LINK_FLAGS)
%canon_reldir%_fuzz_serve_request_LDADD = $(FUZZ_LINK_LIBS)
# Where the targets are: here, or in the build fuzz/build.sh makes.
FUZZ_BINDIR = %reldir%
fuzz-targets: %reldir%/fuzz_profile_load$(EXEEXT) %reldir%/fuzz_config_yaml$(EXEEXT) \
	%reldir%/fuzz_index_read$(EXEEXT) %reldir%/fuzz_store_object$(EXEEXT) \
	%reldir%/fuzz_selector$(EXEEXT) %reldir%/fuzz_perf_script$(EXEEXT) \
	%reldir%/fuzz_chrome_trace$(EXEEXT) %reldir%/fuzz_serve_request$(EXEEXT)
fuzz-bin: fuzz-targets
else
FUZZ_BINDIR = %reldir%/out
fuzz-targets:
	@echo "fuzz-targets: configure CC=clang --enable-fuzzing (or run fuzz/build.sh)" >&2; exit 2
fuzz-bin:
	$(SHELL) $(srcdir)/%reldir%/build.sh $(abs_builddir)/%reldir%/out
endif

# make fuzz-smoke: replay the regression corpus, then run each target for
# a while from its seeds (FUZZ_SECONDS each, default 30); the long runs
# are bench/bench-fuzz.sh.
FUZZ_SECONDS = 30
fuzz-smoke: fuzz-bin
	$(SHELL) $(srcdir)/%reldir%/replay.sh $(FUZZ_BINDIR) $(srcdir)/%reldir%/regression
	for t in $(FUZZ_TARGETS); do \
		$(MKDIR_P) %reldir%/new/$$t && \
		$(FUZZ_BINDIR)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) %reldir%/new/$$t \
			$(srcdir)/%reldir%/corpus/$$t $(srcdir)/%reldir%/regression/$$t || exit 1; \
	done
.PHONY: fuzz-smoke fuzz-targets fuzz-bin
