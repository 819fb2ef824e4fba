/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The checks of what perun serve takes from a request (serve_request.c). */
#ifndef PERUN_SERVE_REQUEST_H
#define PERUN_SERVE_REQUEST_H

#include <jansson.h>

#include <perun/error.h>

/* Why a request path is refused ("has a '.' or '..' component"), or
 * NULL for one to route. */
const char *perun_serve_path_problem(const char *path);

/* The checked, normal form of a run request (every key present) in *out,
 * or a negative error naming the field: unknown fields, names that are
 * not names, option values of the wrong kind, a command that no program
 * answers (its first word, from root or PATH) unless the run attaches
 * to a process (a collector option pid). */
int perun_serve_run_request_check(const char *root, const json_t *req, json_t **out,
				  struct perun_error *err);

#endif
