/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The runs and sessions of perun serve, independent of HTTP.
 *
 * A session is a named group of runs.  A run is a request to collect a
 * profile (collector and options, postprocessors and options, command,
 * arguments, workload, environment); a worker thread executes the runs
 * one at a time by spawning this perun program ('perun collect', then
 * 'perun postprocessby' for each postprocessor) in the instance, so the
 * profile lands in the store as a pending profile.  Everything persists
 * under .perun/serve/:
 *
 *   sessions/<id>.json   {"id", "name", "created"}
 *   runs/<id>.json       {"id", "session", "created", "status", "request",
 *                         "started", "ended", "exit_code", "error", "profile"}
 *   runs/<id>.log        the output (stdout and stderr) of the run
 *
 * each JSON file written atomically.  While a run goes each line of its
 * output is an event, numbered from 1; a line of 'counters --interval-ms'
 * also carries its sample.  A reader waits for the events after a number.
 *
 * All functions are safe to call from several threads at once.
 */
#ifndef PERUN_SERVE_RUNS_H
#define PERUN_SERVE_RUNS_H

#include <jansson.h>

#include <perun/error.h>

struct perun_serve_runs;

/* Open the runs of the instance at root (its .perun/serve is made when
 * missing), mark the runs that were running when a server stopped as
 * failed, queue again the queued ones and start the worker.  exe is the
 * perun program the runs spawn (NULL: /proc/self/exe).  read_only: none
 * of that, the runs are only read (the caller refuses changes).  The
 * caller owns *out and frees it with perun_serve_runs_close. */
int perun_serve_runs_open(struct perun_serve_runs **out, const char *root, const char *exe,
			  int read_only, struct perun_error *err);
/* Stop the worker (a running run is killed and marked failed) and free. */
void perun_serve_runs_close(struct perun_serve_runs *rs);

/* Sessions.  Each *out is a new reference the caller owns. */
int perun_serve_session_create(struct perun_serve_runs *rs, const char *name, json_t **out,
			       struct perun_error *err);
/* The sessions whose name or whose runs' commands contain query (case
 * insensitive; NULL or "" for all), newest first, each with its "runs"
 * count. */
int perun_serve_sessions_list(struct perun_serve_runs *rs, const char *query, json_t **out,
			      struct perun_error *err);
int perun_serve_session_get(struct perun_serve_runs *rs, const char *id, json_t **out,
			    struct perun_error *err);
int perun_serve_session_rename(struct perun_serve_runs *rs, const char *id, const char *name,
			       json_t **out, struct perun_error *err);
/* Delete the session and its runs with their files (a running one is
 * stopped first). */
int perun_serve_session_delete(struct perun_serve_runs *rs, const char *id,
			       struct perun_error *err);

/* Runs.  request is checked (PERUN_EINVAL naming the field otherwise) and
 * the new run, queued, goes to *out. */
int perun_serve_run_submit(struct perun_serve_runs *rs, const json_t *request, json_t **out,
			   struct perun_error *err);
/* The runs of session (NULL: all), newest first. */
int perun_serve_runs_list(struct perun_serve_runs *rs, const char *session, json_t **out,
			  struct perun_error *err);
int perun_serve_run_get(struct perun_serve_runs *rs, const char *id, json_t **out,
			struct perun_error *err);
/* Delete the run, its log and its profile while still pending; a queued
 * or running run is cancelled first. */
int perun_serve_run_delete(struct perun_serve_runs *rs, const char *id, struct perun_error *err);

enum perun_serve_run_file {
	PERUN_SERVE_RUN_LOG,
	PERUN_SERVE_RUN_PROFILE,
};
/* The path of the run's log or of its (pending) profile, into path. */
int perun_serve_run_file(struct perun_serve_runs *rs, const char *id,
			 enum perun_serve_run_file which, char *path, size_t size,
			 struct perun_error *err);

/* The events of run id numbered after `after`, waiting up to timeout_ms
 * for one when there is none yet.  *events (a new array of {"n", "line"
 * [, "sample": {"t", "event", "value", "unit"}] [, "top": kperf's top
 * functions so far]}) holds at most max of
 * them; *ended is set when the run ended and *events holds its last. */
int perun_serve_run_events(struct perun_serve_runs *rs, const char *id, unsigned long after,
			   size_t max, int timeout_ms, json_t **events, int *ended,
			   struct perun_error *err);

/* One line of 'counters --interval-ms' output ("<seconds> <count> [msec]
 * <event> [(<pct>%)]", as perf stat -I prints) as a new sample object,
 * or NULL when line is not one. */
json_t *perun_serve_counters_sample(const char *line);

/* Whether name is a usable session name: not empty, at most 200 bytes,
 * no '/', no "..", no control character. */
int perun_serve_name_ok(const char *name);

/* The runs of the running perun serve (serve_runs_api.c): opened on the
 * instance at root before serving, closed after. */
int perun_serve_runs_start(const char *root, int read_only, struct perun_error *err);
void perun_serve_runs_stop(void);

#endif
