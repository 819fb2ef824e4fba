/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What serve_runs.c and serve_sessions.c share; not used elsewhere. */
#ifndef PERUN_SERVE_RUNS_INTERNAL_H
#define PERUN_SERVE_RUNS_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include "serve_runs.h"

#define SERVE_ID_LEN 16
#define SERVE_CACHE  8

/* The events of one run, in memory while it goes and, once read, after. */
struct serve_events {
	char id[SERVE_ID_LEN + 1];
	json_t *events; /* array; event n is at index n - 1 */
	int ended;
	unsigned long used; /* for eviction: the last use */
};

struct perun_serve_runs {
	char *root;		/* the instance */
	char *dir;		/* root/.perun/serve */
	char *exe;		/* the perun the runs spawn */
	pthread_mutex_t lock;	/* guards all below and the files of serve/ */
	pthread_cond_t changed; /* a run queued or ended, or an event came */
	pthread_t worker;
	int worker_started, stop;
	char (*queue)[SERVE_ID_LEN + 1]; /* queued run ids, oldest first */
	size_t nqueue;
	char current[SERVE_ID_LEN + 1]; /* the running run, "" when none */
	pid_t current_pid;		/* its process group, 0 between steps */
	int cancel;			/* current was deleted: stop it */
	struct serve_events cache[SERVE_CACHE];
	unsigned long clock;
};

/* A fresh random id of SERVE_ID_LEN hex digits. */
void serve_new_id(char id[SERVE_ID_LEN + 1]);
int serve_id_ok(const char *id);
/* The current time as "YYYY-MM-DDTHH:MM:SS.mmmZ". */
void serve_now(char buf[32]);
/* dir/<kind>/<id>.<ext> into path. */
int serve_path(const struct perun_serve_runs *rs, const char *kind, const char *id, const char *ext,
	       char *path, size_t size, struct perun_error *err);
/* Load or atomically save one JSON file; *out is a new reference. */
int serve_load(const char *path, json_t **out, struct perun_error *err);
int serve_save(const char *path, const json_t *obj, struct perun_error *err);
/* Every JSON object in dir/<kind>/, sorted newest "created" first. */
json_t *serve_load_all(const struct perun_serve_runs *rs, const char *kind);
/* Delete run id and its files; the lock is held.  A running or queued
 * run is cancelled. */
int serve_run_delete_locked(struct perun_serve_runs *rs, const char *id, struct perun_error *err);

#endif
