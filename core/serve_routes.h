/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The route table of perun serve, in one place: a route is one line
 * X(method, pattern, handler, flags) here, its handler a function
 * "void handler(struct perun_serve_request *, struct perun_serve_reply *)"
 * in a core/serve_*.c file (declared by this list).  Patterns are matched
 * in order; "{name}" matches one path segment, "{name*}" the rest of the
 * path (PERUN_SERVE_REST).  The router checks the access token (unless
 * PERUN_SERVE_PUBLIC), --read-only and the CSRF token of POST, PUT and
 * DELETE before the handler runs.  docs/perun-serve.md documents the API.
 */
#ifndef PERUN_CORE_SERVE_ROUTES_H
#define PERUN_CORE_SERVE_ROUTES_H

#include "serve_http.h"

#define PERUN_SERVE_ROUTES(X)                                                                      \
	/* Pages (serve_pages.c) */                                                                \
	X("GET", "/", serve_page_project, 0)                                                       \
	X("GET", "/profile", serve_page_profile, 0)                                                \
	X("GET", "/compare", serve_page_compare, 0)                                                \
	X("GET", "/assets/{file*}", serve_page_asset, PERUN_SERVE_REST)                            \
	/* The JSON API (serve_api.c) */                                                           \
	X("GET", "/api/csrf", serve_api_csrf, 0)                                                   \
	X("GET", "/api/info", serve_api_info, 0)                                                   \
	X("GET", "/api/log", serve_api_log, 0)                                                     \
	X("GET", "/api/commits/{rev}/profiles", serve_api_commit_profiles, 0)                      \
	X("GET", "/api/commits/{rev}/check", serve_api_commit_check, 0)                            \
	X("GET", "/api/events", serve_api_events, 0)                                               \
	X("GET", "/api/pending", serve_api_pending, 0)                                             \
	X("GET", "/api/profile", serve_api_profile, 0)                                             \
	X("GET", "/api/profile/resources", serve_api_resources, 0)                                 \
	X("GET", "/api/profile/views", serve_api_views, 0)                                         \
	X("GET", "/api/profile/views/{view}", serve_api_view, 0)                                   \
	X("GET", "/api/compare/views", serve_api_compare_views, 0)                                 \
	X("GET", "/api/compare/views/{view}", serve_api_compare_view, 0)                           \
	X("GET", "/api/plugins", serve_api_plugins, 0)                                             \
	/* Runs, sessions and history (serve_runs_api.c) */                                        \
	X("GET", "/runs", serve_page_runs, 0)                                                      \
	X("GET", "/runs/chart.min.js", serve_page_runs_chartjs, 0)                                 \
	X("GET", "/api/counters/events", serve_api_counters_events, 0)                             \
	X("GET", "/api/sessions", serve_api_sessions, 0)                                           \
	X("POST", "/api/sessions", serve_api_session_create, 0)                                    \
	X("GET", "/api/sessions/{id}", serve_api_session_get, 0)                                   \
	X("PUT", "/api/sessions/{id}", serve_api_session_rename, 0)                                \
	X("DELETE", "/api/sessions/{id}", serve_api_session_delete, 0)                             \
	X("GET", "/api/runs", serve_api_runs, 0)                                                   \
	X("POST", "/api/runs", serve_api_run_submit, 0)                                            \
	X("GET", "/api/runs/{id}", serve_api_run_get, 0)                                           \
	X("DELETE", "/api/runs/{id}", serve_api_run_delete, 0)                                     \
	X("GET", "/api/runs/{id}/log", serve_api_run_log, 0)                                       \
	X("GET", "/api/runs/{id}/profile", serve_api_run_profile, 0)                               \
	X("GET", "/api/runs/{id}/events", serve_api_run_events, 0)

#define PERUN_SERVE_ROUTE_DECLARE(method, pattern, handler, flags)                                 \
	void handler(struct perun_serve_request *req, struct perun_serve_reply *reply);
PERUN_SERVE_ROUTES(PERUN_SERVE_ROUTE_DECLARE)
#undef PERUN_SERVE_ROUTE_DECLARE

/* Run once at the start, beside the first requests: the project page's
 * data (the log with every version's profiles) made before it is asked. */
void serve_api_warm(void);

#endif
