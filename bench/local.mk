# SPDX-License-Identifier: GPL-3.0-or-later
# The benchmarks' programs (bench/*.sh build and run them; never part of the
# tests).  They are here, not in the plugins' local.mk, because a plugin's
# fragment lists only its own sources (tests/t0006-plugin-sources.sh); a
# benchmark may compile a plugin's sources to time them in process.

if BUILD_PLUGIN_REGRESSION_ANALYSIS
# bench/bench-regression.sh builds and runs this.
check_PROGRAMS += bench/bench-regression
bench_bench_regression_SOURCES = bench/bench-regression.c \
	plugins/postprocess/regression_analysis/regression_analysis.c
bench_bench_regression_CPPFLAGS = $(REGRESSION_CPPFLAGS)
bench_bench_regression_CFLAGS = $(REGRESSION_CFLAGS) -O2
bench_bench_regression_LDADD = $(PERUN_LIB_MODELS_LIBADD) \
	$(top_builddir)/sdk/libperun.la $(JANSSON_LIBS)
endif

if BUILD_PLUGIN_KERNEL_REGRESSION
# bench/bench-kernel-regression.sh builds and runs this.
check_PROGRAMS += bench/bench-kernel-regression
bench_bench_kernel_regression_SOURCES = bench/bench-kernel-regression.c \
	plugins/postprocess/kernel_regression/kernel.c plugins/postprocess/kernel_regression/kernel.h
bench_bench_kernel_regression_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/plugins/postprocess/kernel_regression
bench_bench_kernel_regression_CFLAGS = $(KERNEL_REGRESSION_CFLAGS) -O2
bench_bench_kernel_regression_LDADD = $(top_builddir)/sdk/libperun.la $(JANSSON_LIBS) \
	$(GSL_LIBS) -lm
endif

if BUILD_PLUGIN_TRACE
# bench/bench-trace.sh runs this.
check_PROGRAMS += bench/bench-trace-transform
bench_bench_trace_transform_SOURCES = bench/bench-trace-transform.c \
	plugins/collect/trace/transform.c plugins/collect/trace/trace.h
bench_bench_trace_transform_CFLAGS = $(TRACE_CFLAGS) -O2
bench_bench_trace_transform_LDADD = $(top_builddir)/sdk/libperun.la $(JANSSON_LIBS)
endif

if BUILD_PLUGIN_CPD
# bench/bench-check-history.sh builds and runs this;
# it calls the staged cpd and eto plugins through the ABI.
check_PROGRAMS += bench/bench-check-history
bench_bench_check_history_SOURCES = bench/bench-check-history.c
bench_bench_check_history_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS) -O2
bench_bench_check_history_LDADD = $(top_builddir)/sdk/libperun.la $(JANSSON_LIBS) -ldl -lm
endif

# bench/bench-regressogram.sh and bench-moving-average.sh build and run this
# (the postprocess phase of a plugin, in process).
check_PROGRAMS += bench/bench-postprocess
bench_bench_postprocess_SOURCES = bench/bench-postprocess.c
bench_bench_postprocess_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
bench_bench_postprocess_LDADD = $(top_builddir)/sdk/libperun.la $(JANSSON_LIBS) -ldl
EXTRA_DIST += bench/bench-regressogram.sh bench/bench-moving-average.sh \
	bench/bench-regression.sh bench/bench-kernel-regression.sh \
	bench/bench-trace.sh bench/bench-check-history.sh \
	bench/bench-lib.sh bench/bench-store.sh bench/bench-share.sh
# bench/bench-false-alarms.sh: a real history profiled on this machine.
EXTRA_DIST += bench/bench-false-alarms.sh bench/false-alarms/gen-history.py \
	bench/false-alarms/classify.py
EXTRA_DIST += bench/bench-annotate.sh
# The instructions collector against cachegrind and cg_annotate.
EXTRA_DIST += bench/bench-instructions.sh
# bench/bench-serve.sh: perun serve under 100 clients (wrk).
EXTRA_DIST += bench/bench-serve.sh
# bench/bench-perun-fuzz.sh: the paper's Tables III and IV with perun fuzz.
EXTRA_DIST += bench/bench-perun-fuzz.sh bench/perun-fuzz/regex.cc bench/perun-fuzz/wordfreq.c \
	bench/perun-fuzz/nop.c bench/perun-fuzz/spawn-loop.c bench/perun-fuzz/cputime.c
# bench/bench-serve-runs.sh: perun serve, a counter sample to an SSE client.
EXTRA_DIST += bench/bench-serve-runs.sh
