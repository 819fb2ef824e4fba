/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun serve on libmicrohttpd: the listening socket, the access and CSRF
 * tokens, the route table of serve_routes.h, the request accessors and
 * the reply helpers of serve_http.h.  One thread per connection, so that a
 * slow (or streaming) client holds no other up.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <microhttpd.h>

#include "cmd_util.h"
#include "serve_http.h"
#include "serve_request.h"
#include "serve_routes.h"
#include "xalloc.h"

#define TOKEN_BYTES 24
#define COOKIE_NAME "perun_token"

struct perun_serve {
	const struct perun_serve_config *config;
	char token[TOKEN_BYTES * 2 + 1];
	char csrf[TOKEN_BYTES * 2 + 1];
};

struct perun_serve_reply {
	unsigned status;
	char *mime;
	char *data; /* freed with free */
	size_t len;
	char *location; /* a redirect */
	int set_cookie; /* give the access token as a cookie */
	int cache;	/* static assets may be cached */
	perun_serve_stream_fn stream;
	void *stream_data;
	void (*stream_free)(void *);
	int set;
};

struct perun_serve_request {
	struct perun_serve *srv;
	struct MHD_Connection *conn;
	const char *method, *path;
	const struct perun_serve_route *route;
	char *param_names[PERUN_SERVE_PARAMS_MAX], *param_values[PERUN_SERVE_PARAMS_MAX];
	size_t nparams;
	char *body;
	size_t body_len;
	int too_big;
};

static struct perun_serve server;
static volatile sig_atomic_t stopping;
static pthread_mutex_t core_lock = PTHREAD_MUTEX_INITIALIZER;

void perun_serve_lock(void)
{
	pthread_mutex_lock(&core_lock);
}

void perun_serve_unlock(void)
{
	pthread_mutex_unlock(&core_lock);
}

int perun_serve_stopping(void)
{
	return stopping;
}

/* ---- Tokens ---- */

static int random_hex(char *out, size_t nbytes, struct perun_error *err)
{
	unsigned char raw[64];
	size_t got = 0;
	while (got < nbytes) {
		ssize_t n = getrandom(raw + got, nbytes - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return perun_error_set(err, PERUN_EGENERIC,
					       "serve: cannot draw a random token: %s",
					       strerror(errno));
		got += (size_t)n;
	}
	for (size_t i = 0; i < nbytes; i++)
		sprintf(out + 2 * i, "%02x", raw[i]);
	return 0;
}

/* Compared in time independent of where they differ. */
static int token_equal(const char *given, const char *token)
{
	if (!given)
		return 0;
	size_t n = strlen(token);
	if (strlen(given) != n)
		return 0;
	unsigned char diff = 0;
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)given[i] ^ (unsigned char)token[i];
	return !diff;
}

/* ---- Requests ---- */

const struct perun_serve_config *perun_serve_config(const struct perun_serve_request *req)
{
	return req->srv->config;
}

const char *perun_serve_method(const struct perun_serve_request *req)
{
	return req->method;
}

const char *perun_serve_path(const struct perun_serve_request *req)
{
	return req->path;
}

const char *perun_serve_param(const struct perun_serve_request *req, const char *name)
{
	for (size_t i = 0; i < req->nparams; i++)
		if (!strcmp(req->param_names[i], name))
			return req->param_values[i];
	return NULL;
}

const char *perun_serve_query(const struct perun_serve_request *req, const char *name,
			      const char *def)
{
	const char *v = MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
	return v ? v : def;
}

struct query_walk {
	perun_serve_query_fn fn;
	void *data;
	int rc;
};

static enum MHD_Result query_one(void *cls, enum MHD_ValueKind kind, const char *key,
				 const char *value)
{
	(void)kind;
	struct query_walk *w = cls;
	w->rc = w->fn(key, value ? value : "", w->data);
	return w->rc ? MHD_NO : MHD_YES;
}

int perun_serve_query_each(const struct perun_serve_request *req, perun_serve_query_fn fn,
			   void *data)
{
	struct query_walk w = { fn, data, 0 };
	MHD_get_connection_values(req->conn, MHD_GET_ARGUMENT_KIND, query_one, &w);
	return w.rc;
}

int perun_serve_query_long(const struct perun_serve_request *req, struct perun_serve_reply *reply,
			   const char *name, long def, long min, long max, long *out)
{
	const char *v = perun_serve_query(req, name, NULL);
	*out = def;
	if (!v)
		return 0;
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (!*v || *end || errno || n < min || n > max) {
		perun_serve_reply_error(reply, 400,
					"query parameter '%s': '%s' is not a number in %ld..%ld",
					name, v, min, max);
		return -1;
	}
	*out = n;
	return 0;
}

const char *perun_serve_body(const struct perun_serve_request *req, size_t *len)
{
	if (len)
		*len = req->body_len;
	return req->body ? req->body : "";
}

json_t *perun_serve_body_json(const struct perun_serve_request *req,
			      struct perun_serve_reply *reply)
{
	json_error_t jerr;
	json_t *doc = json_loadb(req->body ? req->body : "", req->body_len, JSON_REJECT_DUPLICATES,
				 &jerr);
	if (!doc)
		perun_serve_reply_error(reply, 400, "the body is not JSON: %s (line %d, column %d)",
					jerr.text, jerr.line, jerr.column);
	return doc;
}

const char *perun_serve_csrf(const struct perun_serve_request *req)
{
	return req->srv->csrf;
}

/* ---- Replies ---- */

static void reply_reset(struct perun_serve_reply *reply)
{
	free(reply->mime);
	free(reply->data);
	free(reply->location);
	if (reply->stream_free)
		reply->stream_free(reply->stream_data);
	int cookie = reply->set_cookie;
	memset(reply, 0, sizeof(*reply));
	reply->set_cookie = cookie;
	reply->set = 1;
}

void perun_serve_reply_buffer(struct perun_serve_reply *reply, unsigned status, const char *mime,
			      char *data, size_t len)
{
	reply_reset(reply);
	reply->status = status;
	reply->mime = perun_xstrdup(mime);
	reply->data = data;
	reply->len = len;
}

void perun_serve_reply_json(struct perun_serve_reply *reply, unsigned status, json_t *doc)
{
	char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(doc);
	if (!text) {
		status = 500;
		text = perun_xstrdup("{\"error\":\"out of memory\"}");
	}
	perun_serve_reply_buffer(reply, status, "application/json", text, strlen(text));
}

void perun_serve_reply_error(struct perun_serve_reply *reply, unsigned status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	perun_serve_reply_json(reply, status, json_pack("{s:s}", "error", msg));
}

void perun_serve_reply_perun_error(struct perun_serve_reply *reply, const struct perun_error *err)
{
	unsigned status = err->code == PERUN_ENOTFOUND ? 404
			  : err->code == PERUN_EINVAL  ? 400
						       : 500;
	perun_serve_reply_error(reply, status, "%s", err->message[0] ? err->message : "failed");
}

static const struct {
	const char *ext, *mime;
} mime_types[] = {
	{ ".html", "text/html; charset=utf-8" }, { ".js", "text/javascript; charset=utf-8" },
	{ ".css", "text/css; charset=utf-8" },	 { ".svg", "image/svg+xml" },
	{ ".json", "application/json" },	 { ".png", "image/png" },
	{ ".txt", "text/plain; charset=utf-8" },
};

static const char *mime_of(const char *path)
{
	const char *dot = strrchr(path, '.');
	for (size_t i = 0; dot && i < sizeof(mime_types) / sizeof(mime_types[0]); i++)
		if (!strcmp(dot, mime_types[i].ext))
			return mime_types[i].mime;
	return "application/octet-stream";
}

void perun_serve_reply_file(struct perun_serve_reply *reply, const char *path)
{
	char *text;
	size_t len;
	struct perun_error err = { 0 };
	if (perun_file_read(path, &text, &len, &err)) {
		perun_serve_reply_error(reply, 404, "no file '%s'", path);
		return;
	}
	perun_serve_reply_buffer(reply, 200, mime_of(path), text, len);
	reply->cache = 1;
}

void perun_serve_reply_stream(struct perun_serve_reply *reply, const char *mime,
			      perun_serve_stream_fn fn, void *data, void (*free_fn)(void *))
{
	reply_reset(reply);
	reply->status = 200;
	reply->mime = perun_xstrdup(mime);
	reply->stream = fn;
	reply->stream_data = data;
	reply->stream_free = free_fn;
}

struct perun_serve_reply *perun_serve_reply_new(void)
{
	return perun_xcalloc(1, sizeof(struct perun_serve_reply));
}

unsigned perun_serve_reply_status(const struct perun_serve_reply *reply)
{
	return reply->status;
}

const char *perun_serve_reply_body(const struct perun_serve_reply *reply, size_t *len)
{
	if (len)
		*len = reply->len;
	return reply->data ? reply->data : "";
}

void perun_serve_reply_free(struct perun_serve_reply *reply)
{
	if (!reply)
		return;
	reply_reset(reply);
	free(reply);
}

/* ---- Routing ---- */

static const struct perun_serve_route routes[] = {
#define PERUN_SERVE_ROUTE_ENTRY(method, pattern, handler, flags)                                   \
	{ method, pattern, handler, flags },
	PERUN_SERVE_ROUTES(PERUN_SERVE_ROUTE_ENTRY)
#undef PERUN_SERVE_ROUTE_ENTRY
};

static void params_release(struct perun_serve_request *req)
{
	for (size_t i = 0; i < req->nparams; i++) {
		free(req->param_names[i]);
		free(req->param_values[i]);
	}
	req->nparams = 0;
}

/* Does path match pattern?  Fills req's path parameters when it does. */
static int route_match(struct perun_serve_request *req, const struct perun_serve_route *r,
		       const char *path)
{
	const char *p = r->pattern, *s = path;
	params_release(req);
	while (*p) {
		if (*p != '{') {
			if (*p++ != *s++)
				return 0;
			continue;
		}
		const char *close = strchr(p, '}');
		int rest = close[-1] == '*';
		size_t name_len = (size_t)(close - p - 1 - rest);
		size_t len = rest ? strlen(s) : strcspn(s, "/");
		if (!len || req->nparams == PERUN_SERVE_PARAMS_MAX)
			return 0;
		req->param_names[req->nparams] = perun_xstrndup(p + 1, name_len);
		req->param_values[req->nparams] = perun_xstrndup(s, len);
		req->nparams++;
		s += len;
		p = close + 1;
	}
	return !*s;
}

static int state_changing(const char *method)
{
	return !strcmp(method, "POST") || !strcmp(method, "PUT") || !strcmp(method, "DELETE");
}

/* 0 when the request carries the access token, else the status to refuse with. */
static unsigned check_token(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	const char *q = MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, "token");
	const char *cookie = MHD_lookup_connection_value(req->conn, MHD_COOKIE_KIND, COOKIE_NAME);
	const char *auth = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
						       MHD_HTTP_HEADER_AUTHORIZATION);
	const char *bearer = auth && !strncmp(auth, "Bearer ", 7) ? auth + 7 : NULL;
	if (token_equal(q, req->srv->token)) {
		if (!token_equal(cookie, req->srv->token))
			reply->set_cookie = 1;
		return 0;
	}
	if (token_equal(bearer, req->srv->token) || token_equal(cookie, req->srv->token))
		return 0;
	return q || bearer || cookie ? 403 : 401;
}

struct location {
	char *text;
	size_t len;
	FILE *f;
};

/* One query parameter of the URL redirected to, the token left out. */
static enum MHD_Result add_to_location(void *cls, enum MHD_ValueKind kind, const char *key,
				       const char *value)
{
	(void)kind;
	struct location *loc = cls;
	if (!strcmp(key, "token"))
		return MHD_YES;
	fputc(ftell(loc->f) ? '&' : '?', loc->f);
	for (int part = 0; part < 2; part++) {
		const char *text = part ? value : key;
		if (part && !value)
			break;
		if (part)
			fputc('=', loc->f);
		for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
			if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			    (*c >= '0' && *c <= '9') || strchr("-._~@^", *c))
				fputc(*c, loc->f);
			else
				fprintf(loc->f, "%%%02X", *c);
		}
	}
	return MHD_YES;
}

/* The path requested with its query but without the token. */
static char *location_without_token(struct perun_serve_request *req)
{
	struct location loc = { 0 };
	loc.f = open_memstream(&loc.text, &loc.len);
	if (!loc.f)
		return perun_xstrdup(req->path);
	MHD_get_connection_values(req->conn, MHD_GET_ARGUMENT_KIND, add_to_location, &loc);
	fclose(loc.f);
	char *url = perun_xmalloc(strlen(req->path) + loc.len + 1);
	sprintf(url, "%s%s", req->path, loc.text ? loc.text : "");
	free(loc.text);
	return url;
}

static void dispatch(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	const char *problem = perun_serve_path_problem(req->path);
	if (problem) {
		perun_serve_reply_error(reply, 400, "path '%s' %s", req->path, problem);
		return;
	}
	int allowed = !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD") ||
		      state_changing(req->method);
	if (!allowed) {
		perun_serve_reply_error(reply, 405, "method %s is not served", req->method);
		return;
	}
	const char *method = !strcmp(req->method, "HEAD") ? "GET" : req->method;
	const struct perun_serve_route *found = NULL;
	int other_method = 0;
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]) && !found; i++) {
		if (!route_match(req, &routes[i], req->path))
			continue;
		if (!strcmp(routes[i].method, method))
			found = &routes[i];
		else
			other_method = 1;
	}
	unsigned refuse =
		found && (found->flags & PERUN_SERVE_PUBLIC) ? 0 : check_token(req, reply);
	if (refuse) {
		perun_serve_reply_error(
			reply, refuse,
			refuse == 401
				? "the access token is missing (see the URL perun serve printed)"
				: "the access token is wrong");
		return;
	}
	if (state_changing(req->method) && req->srv->config->read_only) {
		perun_serve_reply_error(reply, 403, "the server is read-only (--read-only)");
		return;
	}
	if (state_changing(req->method) &&
	    !token_equal(MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, "X-CSRF-Token"),
			 req->srv->csrf)) {
		perun_serve_reply_error(
			reply, 403, "the X-CSRF-Token header is missing or wrong (GET /api/csrf)");
		return;
	}
	if (req->too_big) {
		perun_serve_reply_error(reply, 413, "the body is larger than %d bytes",
					PERUN_SERVE_BODY_MAX);
		return;
	}
	/* Every body the API takes is JSON: handlers get nothing else. */
	if (req->body_len) {
		json_error_t jerr;
		json_t *doc = json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES, &jerr);
		if (!doc) {
			perun_serve_reply_error(reply, 400,
						"the body is not JSON: %s (line %d, column %d)",
						jerr.text, jerr.line, jerr.column);
			return;
		}
		json_decref(doc);
	}
	if (!found) {
		if (other_method)
			perun_serve_reply_error(reply, 405, "%s is not served for '%s'",
						req->method, req->path);
		else
			perun_serve_reply_error(reply, 404, "no such page or API: '%s'", req->path);
		return;
	}
	req->route = found;
	/* A page visited with the token in its URL: the cookie carries it
	 * from now on, and the URL without it stays out of the history. */
	if (reply->set_cookie && strncmp(req->path, "/api/", 5) && !strcmp(method, "GET")) {
		reply_reset(reply);
		reply->status = 303;
		reply->location = location_without_token(req);
		reply->mime = perun_xstrdup("text/plain");
		return;
	}
	found->handler(req, reply);
	if (!reply->set)
		perun_serve_reply_error(reply, 500, "'%s' gave no answer", req->path);
}

/* ---- libmicrohttpd ---- */

struct stream_state {
	perun_serve_stream_fn fn;
	void *data;
	void (*free_fn)(void *);
};

static ssize_t stream_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
	(void)pos;
	struct stream_state *st = cls;
	for (;;) {
		if (stopping)
			return MHD_CONTENT_READER_END_OF_STREAM;
		long n = st->fn(st->data, buf, max);
		if (n < 0)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (n > 0)
			return (ssize_t)n;
	}
}

static void stream_free(void *cls)
{
	struct stream_state *st = cls;
	if (st->free_fn)
		st->free_fn(st->data);
	free(st);
}

static enum MHD_Result send_reply(struct MHD_Connection *conn, struct perun_serve_reply *reply,
				  const char *path)
{
	struct MHD_Response *resp;
	if (reply->stream) {
		struct stream_state *st = perun_xmalloc(sizeof(*st));
		*st = (struct stream_state){ reply->stream, reply->stream_data,
					     reply->stream_free };
		reply->stream = NULL;
		reply->stream_free = NULL;
		resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_reader, st,
							 stream_free);
		if (!resp) {
			stream_free(st);
			return MHD_NO;
		}
		MHD_add_response_header(resp, "X-Accel-Buffering", "no");
	} else {
		resp = MHD_create_response_from_buffer(reply->len, reply->data,
						       MHD_RESPMEM_MUST_FREE);
		if (!resp)
			return MHD_NO;
		reply->data = NULL;
	}
	if (reply->mime)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, reply->mime);
	if (reply->location)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, reply->location);
	if (reply->set_cookie) {
		char cookie[160];
		snprintf(cookie, sizeof(cookie),
			 COOKIE_NAME "=%s; Path=/; HttpOnly; SameSite=Strict", server.token);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_SET_COOKIE, cookie);
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
				reply->cache ? "private, max-age=300" : "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "X-Frame-Options", "SAMEORIGIN");
	/* Pages and the views' HTML load nothing from elsewhere. */
	MHD_add_response_header(resp, "Content-Security-Policy",
				"default-src 'self'; script-src 'self' 'unsafe-inline'; "
				"style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
				"connect-src 'self'; frame-ancestors 'self'; form-action 'self'");
	(void)path;
	enum MHD_Result ret = MHD_queue_response(conn, reply->status ? reply->status : 500, resp);
	MHD_destroy_response(resp);
	return ret;
}

static void request_free(struct perun_serve_request *req)
{
	params_release(req);
	free(req->body);
	free(req);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	(void)cls;
	(void)version;
	struct perun_serve_request *req = *con_cls;
	if (!req) {
		req = perun_xcalloc(1, sizeof(*req));
		req->srv = &server;
		req->conn = conn;
		*con_cls = req;
		const char *clen = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							       MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (clen && strtoull(clen, NULL, 10) > PERUN_SERVE_BODY_MAX)
			req->too_big = 1;
		if (!req->too_big)
			return MHD_YES;
		/* Refused before it is sent, where the client waits for that. */
	} else if (*upload_size) {
		if (req->too_big || req->body_len + *upload_size > PERUN_SERVE_BODY_MAX) {
			req->too_big = 1;
		} else {
			req->body = perun_xrealloc(req->body, req->body_len + *upload_size + 1);
			memcpy(req->body + req->body_len, upload, *upload_size);
			req->body_len += *upload_size;
			req->body[req->body_len] = '\0';
		}
		*upload_size = 0;
		return MHD_YES;
	}
	req->method = method;
	req->path = url;
	struct perun_serve_reply reply = { 0 };
	dispatch(req, &reply);
	enum MHD_Result ret = send_reply(conn, &reply, url);
	reply_reset(&reply);
	free(reply.mime);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)conn;
	(void)toe;
	if (*con_cls)
		request_free(*con_cls);
	*con_cls = NULL;
}

/* Parse "ADDR:PORT", "[ADDR6]:PORT", "ADDR" or ":PORT" and listen there. */
static int listen_on(const char *listen_spec, char *host_out, size_t host_len, int *port_out,
		     struct perun_error *err)
{
	char host[256] = "127.0.0.1", port[16] = "8080";
	const char *colon = strrchr(listen_spec, ':');
	if (listen_spec[0] == '[') {
		const char *close = strchr(listen_spec, ']');
		if (!close || (close[1] && close[1] != ':') ||
		    (size_t)(close - listen_spec) > sizeof(host))
			return perun_error_set(err, PERUN_EINVAL, "--listen '%s': not ADDR:PORT",
					       listen_spec);
		snprintf(host, sizeof(host), "%.*s", (int)(close - listen_spec - 1),
			 listen_spec + 1);
		if (close[1])
			snprintf(port, sizeof(port), "%s", close + 2);
	} else if (colon) {
		if (colon != listen_spec)
			snprintf(host, sizeof(host), "%.*s", (int)(colon - listen_spec),
				 listen_spec);
		snprintf(port, sizeof(port), "%s", colon + 1);
	} else if (*listen_spec) {
		snprintf(host, sizeof(host), "%s", listen_spec);
	}
	char *end;
	long pnum = strtol(port, &end, 10);
	if (!*port || *end || pnum < 0 || pnum > 65535)
		return perun_error_set(err, PERUN_EINVAL,
				       "--listen '%s': port '%s' is not 0..65535", listen_spec,
				       port);
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV },
			*res;
	int gai = getaddrinfo(host, port, &hints, &res);
	if (gai)
		return perun_error_set(err, PERUN_EINVAL, "--listen '%s': address '%s': %s",
				       listen_spec, host, gai_strerror(gai));
	int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 128)) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return perun_error_set(err, PERUN_EGENERIC, "--listen '%s': cannot listen: %s",
				       listen_spec, strerror(e));
	}
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	getnameinfo((struct sockaddr *)&ss, sl, host_out, (socklen_t)host_len, port, sizeof(port),
		    NI_NUMERICHOST | NI_NUMERICSERV);
	*port_out = atoi(port);
	freeaddrinfo(res);
	return fd;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	if (stopping)
		return;
	fputs("perun: serve: ", stderr);
	vfprintf(stderr, fmt, ap);
}

static void *warm_thread(void *fn)
{
	((void (*)(void))fn)();
	return NULL;
}

int perun_serve_run(const struct perun_serve_config *config, void (*warm)(void),
		    struct perun_error *err)
{
	char host[128];
	int port = 0;
	server.config = config;
	if (random_hex(server.token, TOKEN_BYTES, err) || random_hex(server.csrf, TOKEN_BYTES, err))
		return -(err->code);
	int fd = listen_on(config->listen, host, sizeof(host), &port, err);
	if (fd < 0)
		return fd;
	/* The signals are taken by sigwait below, in this thread only: the
	 * server's threads inherit the mask. */
	sigset_t stop_signals, old;
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_signals, &old);
	/* A background job of a shell starts with SIGINT ignored, and an
	 * ignored signal never reaches sigwait: taken as default, blocked. */
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old_int, old_term;
	sigaction(SIGINT, &dfl, &old_int);
	sigaction(SIGTERM, &dfl, &old_term);
	signal(SIGPIPE, SIG_IGN);
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_AUTO |
			MHD_USE_ERROR_LOG,
		0, NULL, NULL, on_request, NULL, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)300, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned)1000, MHD_OPTION_END);
	if (!d) {
		close(fd);
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return perun_error_set(err, PERUN_EGENERIC, "serve: libmicrohttpd did not start");
	}
	pthread_t warmer;
	int warming = warm && !pthread_create(&warmer, NULL, warm_thread, (void *)warm);
	int v6 = strchr(host, ':') != NULL;
	printf("perun serve%s: http://%s%s%s:%d/?token=%s\n",
	       config->read_only ? " (read-only)" : "", v6 ? "[" : "", host, v6 ? "]" : "", port,
	       server.token);
	fflush(stdout);
	int sig;
	while (sigwait(&stop_signals, &sig))
		;
	stopping = 1;
	MHD_stop_daemon(d);
	if (warming)
		pthread_join(warmer, NULL);
	close(fd);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	fprintf(stderr, "perun: serve: stopped (%s)\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
	return 0;
}
