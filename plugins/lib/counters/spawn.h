/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A command started held before its exec, so that perf events can be
 * opened on its pid (enable_on_exec) before it runs anything: everything
 * of the command and nothing of perun is measured.  Shared by counting
 * (count.c) and sampling (the kperf collector).
 */
#ifndef PERUN_LIB_COUNTERS_SPAWN_H
#define PERUN_LIB_COUNTERS_SPAWN_H

#include <sys/types.h>

#include <perun/perun.h>

struct counters_child {
	pid_t pid;  /* 0 when none */
	int pidfd;  /* readable when it exits */
	int go;	    /* written to let it exec; -1 once done */
	int report; /* an exec error comes back here */
};

/*
 * Fork argv (path resolved) with stdin from /dev/null and stdout and
 * stderr to output_fd (-1: /dev/null), held until counters_child_go.
 */
int counters_child_spawn(struct counters_child *c, char *const *argv, const char *path,
			 int output_fd, struct perun_error *err);

/* Let it exec; fails naming argv0 when the exec did. */
int counters_child_go(struct counters_child *c, const char *argv0, struct perun_error *err);

/* Wait for its end: its exit status, or -N when signal N killed it. */
int counters_child_reap(struct counters_child *c);

/* Kill and reap it if it still runs; close what is left. */
void counters_child_release(struct counters_child *c);

/* A pidfd of a running process (readable when it exits), or a negative
 * error: "no process with pid N". */
int counters_pid_watch(int pid, struct perun_error *err);

/* What a collector of these events runs: the command repeat times after
 * warmup unrecorded runs, or a running process for duration seconds. */
struct counters_runs {
	long long repeat, warmup;
	int pid;
	double duration;
};

/* The options "repeat", "warmup", "pid" and "duration" of params, checked
 * together (the counters and kperf collectors declare them alike). */
int counters_runs_read(const struct perun_params *params, struct counters_runs *runs,
		       struct perun_error *err);

#endif
