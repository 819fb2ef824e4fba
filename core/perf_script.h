/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * "perf script" text as folded stacks, read as stackcollapse-perf.pl
 * (FlameGraph) reads it, so that "perun import perf script" stores what
 * Python Perun stored through that script, without Perl and in one pass
 * whose memory grows with the distinct stacks only.
 */
#ifndef PERUN_CORE_PERF_SCRIPT_H
#define PERUN_CORE_PERF_SCRIPT_H

#include <perun/error.h>

#include "compressed.h"
#include "folded_stacks.h"

/* stackcollapse-perf.pl's options of the same names. */
struct perf_script_options {
	int pid;	   /* --pid: "comm-pid" as the process frame */
	int tid;	   /* --tid: "comm-pid/tid" */
	int kernel;	   /* --kernel: kernel frames end in _[k] */
	int jit;	   /* --jit: frames of /tmp/perf-<pid>.map end in _[j] */
	int addrs;	   /* --addrs: "[module <address>]" for unknown symbols */
	int srcline;	   /* --srcline: a source line follows each frame line */
	const char *event; /* --event-filter; NULL or "": the first event seen */
};

/* Add the samples of the "perf script" text in (named name in errors) to
 * out; a negative code with err naming name and the line otherwise. */
int perf_script_collapse(struct compressed_file *in, const char *name,
			 const struct perf_script_options *opts, struct folded_stacks *out,
			 struct perun_error *err);

#endif
