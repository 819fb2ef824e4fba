/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The trace collector's parts: probes, ELF symbols, engines, transformation. */
#ifndef PERUN_TRACE_H
#define PERUN_TRACE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <perun/perun.h>

#include "trace-event.h"

/* Largest number of probe ids (the BPF cookie keeps 20 bits of them). */
#define TRACE_MAX_IDS (1u << PERUN_TRACE_ID_BITS)

enum trace_probe_kind {
	TRACE_PROBE_FUNC = 0,
	TRACE_PROBE_USDT = 1,	  /* single, or the begin of a pair */
	TRACE_PROBE_USDT_END = 2, /* the end of a pair: .pair is its begin */
	TRACE_PROBE_POINT = 3,	  /* a dynamic location, timed between hits */
};

struct trace_probe {
	enum trace_probe_kind kind;
	char *name;		   /* mangled symbol or USDT name */
	char *uid;		   /* demangled name, "begin#end" for USDT pairs */
	char *lib;		   /* path of the binary or library */
	const char *location;	   /* basename of lib */
	char *provider;		   /* USDT provider */
	unsigned long long offset; /* file offset of the function or probe */
	unsigned long long size;   /* function size (instrument lookups) */
	unsigned sample;	   /* record every sample-th call */
	int pair;		   /* paired USDT: index of the other end, else -1 */
	int async;		   /* a pair of <perun/annotate.h>'s async region: its
				      ends are matched by the id, on any thread */
};

struct trace_probes {
	struct trace_probe *v;
	size_t n, alloc;
};

struct trace_config {
	const char *engine; /* ebpf, instrument, stap */
	const char *strategy;
	char **argv;  /* the command split into words */
	char *binary; /* resolved path of the profiled binary */
	char **libs;  /* resolved paths of --libs */
	size_t nlibs;
	unsigned global_sampling;
	int with_usdt;
	double timeout; /* seconds, 0: none */
	const char *output_handling;
	int keep_temps, zip_temps, verbose_trace, watchdog, quiet, no_profile;
	int stap_cache_off;
	const char *workload;
	char *tmpdir; /* temporary files of this collection */
	FILE *log;    /* --watchdog log in tmpdir, or NULL */
	volatile int *interrupted;
};

/* elfsyms.c ------------------------------------------------------------ */

struct trace_symbol {
	char *name;		   /* as in the symbol table */
	unsigned long long offset; /* file offset */
	unsigned long long size;
	int global; /* 'T' (global), 'W' (weak) or 't' (local) */
};

struct trace_usdt_note {
	char *provider, *name;
	unsigned long long offset; /* file offset of the probe's nop */
};

/* Function symbols of path (sorted by offset); *stripped set when the
 * file has only a dynamic symbol table.  Caller frees with
 * trace_symbols_free. */
int trace_elf_functions(const char *path, struct trace_symbol **out, size_t *n, int *stripped,
			struct perun_error *err);
void trace_symbols_free(struct trace_symbol *syms, size_t n);
/* USDT probes of path from .note.stapsdt; caller frees with
 * trace_usdt_free. */
int trace_elf_usdt(const char *path, struct trace_usdt_note **out, size_t *n,
		   struct perun_error *err);
void trace_usdt_free(struct trace_usdt_note *notes, size_t n);
/* Does path's dynamic symbol table need symbol from elsewhere? */
int trace_elf_references(const char *path, const char *symbol);
/* Demangled C++ name, or a copy of name; caller frees. */
char *trace_demangle(const char *name);

/* probes.c ------------------------------------------------------------- */

/* Build the probe table from the strategy and the --func/--usdt/--dynamic
 * rules in params. */
int trace_probes_build(struct trace_probes *probes, const struct trace_config *cfg,
		       const struct perun_params *params, struct perun_error *err);
void trace_probes_release(struct trace_probes *probes);
/* Write the probe table as text (the kept "probes" temp file). */
void trace_probes_write(const struct trace_probes *probes, FILE *f);

/* process.c ------------------------------------------------------------ */

/*
 * The profiled command, forked and stopped before exec, so that probes can
 * be set up for its pid first.  env entries are added to its environment.
 */
struct trace_child {
	pid_t pid;
	int exited;
	int status;
	int timed_out;
	int interrupted;
	int execfd; /* reports a failed exec */
	unsigned long long start_ns, end_ns;
};

int trace_child_spawn(struct trace_child *child, const struct trace_config *cfg, char *const *env,
		      struct perun_error *err);
/* Let the child exec; 0, or the errno of its failed exec. */
int trace_child_continue(struct trace_child *child);
/* Wait for the child to end, killing it at the timeout or on interrupt;
 * poll is called about every 100 ms (and gets the time to wait in ms). */
int trace_child_wait(struct trace_child *child, const struct trace_config *cfg,
		     int (*poll)(void *data, int timeout_ms), void *data, struct perun_error *err);
void trace_child_kill(struct trace_child *child);
unsigned long long trace_now_ns(void);
/* The executable execvp would run for name (realpath), or NULL; caller
 * frees. */
char *trace_which(const char *name);
/* Message for how the child ended, "" when it exited with status 0. */
void trace_child_describe(const struct trace_child *child, char *buf, size_t len);

/* transform.c ---------------------------------------------------------- */

struct trace_transform_stats {
	size_t events, resources, unmatched, open_at_end;
};

struct trace_transform_input {
	const struct trace_probes *probes;
	const char *workload;
	const char *location;	     /* of thread and process records */
	unsigned long long start_ns; /* the time origin of timestamps */
};

/*
 * The transformation event by event, as an engine gives them: begin (NULL
 * without memory; in and stats are kept), add each event (0, or -1 without
 * memory, which end then reports), end: the resources into profile, and t
 * freed whatever happens (with profile NULL, only that).
 */
struct trace_transform;
struct trace_transform *trace_transform_begin(const struct trace_transform_input *in,
					      struct trace_transform_stats *stats);
int trace_transform_add(struct trace_transform *t, const struct perun_trace_event *e);
int trace_transform_end(struct trace_transform *t, struct perun_profile *profile,
			struct perun_error *err);
/* Turn raw events into resources of profile. */
int trace_transform(const struct perun_trace_event *ev, size_t n,
		    const struct trace_transform_input *in, struct perun_profile *profile,
		    struct trace_transform_stats *stats, struct perun_error *err);
/* The same for the events in a raw data file written by an engine. */
int trace_transform_file(const char *path, const struct trace_transform_input *in,
			 struct perun_profile *profile, struct trace_transform_stats *stats,
			 struct perun_error *err);

/* engines -------------------------------------------------------------- */

/* Where the instrument engine puts each event as it symbolises it: put
 * returns 0, or -1 when the event cannot be taken (memory, a write). */
struct trace_sink {
	int (*put)(void *data, const struct perun_trace_event *e);
	void *data;
};

/* Each fills child; ebpf and stap write the raw events to
 * <tmpdir>/raw.events, instrument gives them to sink. */
int trace_engine_ebpf(const struct trace_config *cfg, const struct trace_probes *probes,
		      struct trace_child *child, struct perun_error *err);
int trace_engine_instrument(const struct trace_config *cfg, const struct trace_probes *probes,
			    struct trace_child *child, const struct trace_sink *sink,
			    struct perun_error *err);
int trace_engine_stap(const struct trace_config *cfg, const struct trace_probes *probes,
		      struct trace_child *child, struct perun_error *err);
/* Generate the SystemTap script for probes into f. */
void trace_stap_script(const struct trace_config *cfg, const struct trace_probes *probes, FILE *f);

/* trace.c: watchdog log line (no-op without --watchdog). */
void trace_log(const struct trace_config *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define TRACE_RAW_FILE "raw.events"

#endif
