/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The sources of "perun import <source> <file>": each reads a foreign
 * tool's data file into a Perun profile (import_<source>.c).  A new source
 * (perf, ...) is one more entry in perun_import_sources (cmd_import.c).
 */
#ifndef PERUN_CORE_IMPORT_H
#define PERUN_CORE_IMPORT_H

#include <perun/perun.h>

#include "command.h"

struct perun_import_source {
	const char *name;
	const char *summary;
	const char *profile_type; /* the header type of its profiles */
	const char *units;	  /* the header units, as JSON */
	/* Fill profile's resources and its header's cmd/args from path; a
	 * negative code with err naming path and the problem otherwise. */
	int (*read)(const char *path, struct perun_profile *profile, struct perun_error *err);
	/* Instead of read, for a source of one or more files. */
	int (*read_many)(char *const *paths, int n, struct perun_profile *profile,
			 struct perun_error *err);
};

extern const struct perun_import_source perun_import_heaptrack;
extern const struct perun_import_source perun_import_chrome;
/* "perun import perf record|script|stack" (import_perf.c). */
extern const struct perun_command perun_import_perf;

#endif
