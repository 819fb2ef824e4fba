/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The command line of a collection (cmd, args and workload) as the argv of
 * a program to run, split like a shell would without running one, and the
 * program found in $PATH once, before anything is measured.  Shared by the
 * collectors that run the profiled command themselves (time, counters).
 */
#ifndef PERUN_LIB_CMDLINE_H
#define PERUN_LIB_CMDLINE_H

#include <wordexp.h>

#include <perun/perun.h>

struct cmdline {
	wordexp_t words[3]; /* cmd, args and workload split into words */
	int have_words[3];
	char **argv; /* all their words, borrowed from words[] */
	char *path;  /* argv[0] resolved through $PATH */
};

/*
 * Fill cl (zeroed by the caller) from cmd, args and workload (either may be
 * NULL or ""): a bad quote or a missing program is an error naming it.
 * cl is released with cmdline_release also after a failure.
 */
int cmdline_init(struct cmdline *cl, const char *cmd, const char *args, const char *workload,
		 struct perun_error *err);

void cmdline_release(struct cmdline *cl);

#endif
