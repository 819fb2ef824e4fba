/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun serve's pages: plain HTML and JavaScript embedded at build time
 * (core/serve-assets/), reading the JSON API.  The views they show are
 * the view plugins' own pages, with Chart.js inlined from Debian's
 * libjs-chart.js as perun show does.
 */
#include <stdlib.h>
#include <string.h>

#include "serve_assets.h"
#include "serve_routes.h"
#include "xalloc.h"

static void reply_asset(struct perun_serve_reply *reply, const char *name, const char *mime)
{
	for (const struct perun_serve_asset *a = perun_serve_assets; a->name; a++) {
		if (strcmp(a->name, name))
			continue;
		char *copy = perun_xmalloc(a->len + 1);
		memcpy(copy, a->data, a->len + 1);
		perun_serve_reply_buffer(reply, 200, mime, copy, a->len);
		return;
	}
	perun_serve_reply_error(reply, 404, "no asset '%s'", name);
}

void serve_page_project(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	(void)req;
	reply_asset(reply, "project.html", "text/html; charset=utf-8");
}

void serve_page_profile(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	(void)req;
	reply_asset(reply, "profile.html", "text/html; charset=utf-8");
}

void serve_page_compare(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	(void)req;
	reply_asset(reply, "compare.html", "text/html; charset=utf-8");
}

void serve_page_runs(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	(void)req;
	reply_asset(reply, "runs.html", "text/html; charset=utf-8");
}

void serve_page_asset(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	const char *file = perun_serve_param(req, "file");
	const char *dot = strrchr(file, '.');
	if (strchr(file, '/') || !dot || strstr(file, ".html")) {
		perun_serve_reply_error(reply, 404, "no asset '%s'", file);
		return;
	}
	reply_asset(reply, file,
		    !strcmp(dot, ".js")	   ? "text/javascript; charset=utf-8"
		    : !strcmp(dot, ".css") ? "text/css; charset=utf-8"
					   : "application/octet-stream");
}
