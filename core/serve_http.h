/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun serve: the HTTP side the handlers see.  A handler gets a request
 * (method, path, its path parameters, query parameters and body) and
 * answers with one of the reply helpers; the router (serve_router.c) does
 * the rest on libmicrohttpd: the access token, the CSRF token of
 * state-changing requests, --read-only, the body size limit and the JSON
 * errors of bad requests.  The routes are listed in serve_routes.h.
 *
 * Handlers run in the connection's own thread (one per connection), so a
 * slow client never holds another up.  The core and the plugins were made
 * for one thread: a handler calls into them between perun_serve_lock()
 * and perun_serve_unlock().
 */
#ifndef PERUN_CORE_SERVE_HTTP_H
#define PERUN_CORE_SERVE_HTTP_H

#include <stddef.h>

#include <jansson.h>

#include "command.h"

/* Bodies larger than this are refused with 413. */
#define PERUN_SERVE_BODY_MAX (1024 * 1024)
/* At most this many path parameters in a pattern ("/api/profiles/{id}"). */
#define PERUN_SERVE_PARAMS_MAX 4

struct perun_serve;	    /* the running server */
struct perun_serve_request; /* one request, valid during its handler */
struct perun_serve_reply;   /* what the handler answers */

/* Options the server was started with, for the handlers. */
struct perun_serve_config {
	const char *listen; /* "127.0.0.1:8080" as given */
	int read_only;
	struct perun_cli *cli;
	char *assets_dir; /* where the pages are: build tree or $(pkgdatadir)/serve */
};

const struct perun_serve_config *perun_serve_config(const struct perun_serve_request *req);
const char *perun_serve_method(const struct perun_serve_request *req);
/* The path as requested, without the query. */
const char *perun_serve_path(const struct perun_serve_request *req);
/* The path parameter "{name}" of the route, or NULL. */
const char *perun_serve_param(const struct perun_serve_request *req, const char *name);
/* A query parameter (URL-decoded), or def when absent. */
const char *perun_serve_query(const struct perun_serve_request *req, const char *name,
			      const char *def);
/* Call fn for each query parameter (URL-decoded; value "" when it has
 * none) in the order given; a non-zero return stops and is returned. */
typedef int (*perun_serve_query_fn)(const char *name, const char *value, void *data);
int perun_serve_query_each(const struct perun_serve_request *req, perun_serve_query_fn fn,
			   void *data);
/* A query parameter as a whole number in [min, max]: def when absent,
 * -1 after replying 400 when it is not one. */
int perun_serve_query_long(const struct perun_serve_request *req, struct perun_serve_reply *reply,
			   const char *name, long def, long min, long max, long *out);
/* The body (NUL-terminated; len without the NUL); "" when there is none. */
const char *perun_serve_body(const struct perun_serve_request *req, size_t *len);
/* The body parsed as JSON (a new reference), or NULL after replying 400. */
json_t *perun_serve_body_json(const struct perun_serve_request *req,
			      struct perun_serve_reply *reply);
/* The CSRF token to embed in pages (X-CSRF-Token of state-changing requests). */
const char *perun_serve_csrf(const struct perun_serve_request *req);

/* Reply helpers: each sets the whole reply; the last one called wins. */
/* JSON (takes the reference) with status, e.g. 200 or 201. */
void perun_serve_reply_json(struct perun_serve_reply *reply, unsigned status, json_t *doc);
/* {"error": "<message>"} with status. */
void perun_serve_reply_error(struct perun_serve_reply *reply, unsigned status, const char *fmt, ...)
	PERUN_PRINTF(3, 4);
/* A perun_error as {"error"}: 404 for PERUN_ENOTFOUND, 400 for
 * PERUN_EINVAL, 500 otherwise. */
void perun_serve_reply_perun_error(struct perun_serve_reply *reply, const struct perun_error *err);
/* A buffer (taken over, freed with free) of the MIME type. */
void perun_serve_reply_buffer(struct perun_serve_reply *reply, unsigned status, const char *mime,
			      char *data, size_t len);
/* A file by path, its MIME type from its extension; 404 when it is not. */
void perun_serve_reply_file(struct perun_serve_reply *reply, const char *path);

/* A reply of one's own, to call a handler's helpers for their answer
 * (e.g. to try a view): its status (0 while unset) and body. */
struct perun_serve_reply *perun_serve_reply_new(void);
unsigned perun_serve_reply_status(const struct perun_serve_reply *reply);
const char *perun_serve_reply_body(const struct perun_serve_reply *reply, size_t *len);
void perun_serve_reply_free(struct perun_serve_reply *reply);

/*
 * A streamed reply (Server-Sent Events: mime "text/event-stream"): fn is
 * called in the connection's thread to fill buf with up to max bytes and
 * returns how many, 0 to be called again (it may block a while: wait for
 * data with a timeout so that a stopping server is noticed, see
 * perun_serve_stopping), or -1 at the end of the stream.  free_fn(data)
 * runs once the connection is done with it (closed by either side).
 */
typedef long (*perun_serve_stream_fn)(void *data, char *buf, size_t max);
void perun_serve_reply_stream(struct perun_serve_reply *reply, const char *mime,
			      perun_serve_stream_fn fn, void *data, void (*free_fn)(void *));
/* Set once the server is stopping: stream callbacks end then. */
int perun_serve_stopping(void);

/* Calls into the core and plugins are made holding this lock. */
void perun_serve_lock(void);
void perun_serve_unlock(void);

/* A handler: answers req through reply (an unanswered request gets 500). */
typedef void (*perun_serve_handler)(struct perun_serve_request *req,
				    struct perun_serve_reply *reply);

enum perun_serve_route_flags {
	/* Served without the access token (the pages' static assets are
	 * not: only a login hint is). */
	PERUN_SERVE_PUBLIC = 1u << 0,
	/* A pattern ending in "{name*}" matches the rest of the path. */
	PERUN_SERVE_REST = 1u << 1,
};

struct perun_serve_route {
	const char *method; /* "GET", "POST", "PUT", "DELETE" */
	const char *pattern;
	perun_serve_handler handler;
	unsigned flags;
};

/* Run the server until SIGINT/SIGTERM; prints the URL with the token.
 * warm (or NULL) runs in a thread of its own meanwhile, to fill caches. */
int perun_serve_run(const struct perun_serve_config *config, void (*warm)(void),
		    struct perun_error *err);

#endif
