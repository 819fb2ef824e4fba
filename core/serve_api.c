/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun serve's JSON API (docs/perun-serve.md): the data of the CLI
 * commands (log, show, check, plugins) in their --format json shapes,
 * made by the same code.  Each handler opens the instance for itself,
 * holding the core lock (serve_http.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autoconfig.h"
#include "cmd_util.h"
#include "json_reports.h"
#include "plugin_help.h"
#include "plugin_loader.h"
#include "serve_routes.h"
#include "xalloc.h"

/* Open the instance, or reply with its error; 0 when open. */
static int open_instance(struct perun_instance *inst, struct perun_serve_reply *reply)
{
	struct perun_error err = { 0 };
	if (!perun_instance_open(inst, &err))
		return 0;
	perun_serve_reply_perun_error(reply, &err);
	return -1;
}

void serve_api_csrf(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	perun_serve_reply_json(reply, 200, json_pack("{s:s}", "csrf", perun_serve_csrf(req)));
}

void serve_api_info(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_instance inst;
	struct perun_error err = { 0 };
	char head[65] = "";
	perun_serve_lock();
	if (open_instance(&inst, reply)) {
		perun_serve_unlock();
		return;
	}
	/* A repository without commits has no HEAD yet: null then. */
	int no_head = perun_resolve_minor(&inst, NULL, head, &err);
	json_t *doc = json_pack(
		"{s:i,s:s,s:s,s:s,s:o,s:b,s:s}", "schema", 1, "version", PACKAGE_VERSION, "root",
		inst.root, "vcs", inst.vcs.type ? inst.vcs.type : "", "head",
		no_head ? json_null() : json_string(head), "read_only",
		perun_serve_config(req)->read_only, "listen", perun_serve_config(req)->listen);
	perun_instance_close(&inst);
	perun_serve_unlock();
	perun_serve_reply_json(reply, 200, doc);
}

void serve_api_log(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	struct perun_instance inst;
	struct perun_error err = { 0 };
	json_t *doc;
	perun_serve_lock();
	if (open_instance(&inst, reply)) {
		perun_serve_unlock();
		return;
	}
	int rc = perun_log_json(&inst, perun_serve_query(req, "rev", NULL), &doc, &err);
	perun_instance_close(&inst);
	perun_serve_unlock();
	if (rc)
		perun_serve_reply_perun_error(reply, &err);
	else
		perun_serve_reply_json(reply, 200, doc);
}

void serve_api_plugins(struct perun_serve_request *req, struct perun_serve_reply *reply)
{
	const char *kind = perun_serve_query(req, "kind", NULL);
	if (kind && !perun_plugin_kind_from_name(kind)) {
		perun_serve_reply_error(reply, 400, "no plugin kind '%s'", kind);
		return;
	}
	struct perun_loaded_plugin **entries;
	perun_serve_lock();
	size_t n = perun_plugins_scan(&entries);
	json_t *all = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct perun_loaded_plugin *e = entries[i];
		if (e->shadowed_by || (kind && e->kind != perun_plugin_kind_from_name(kind)))
			continue;
		json_array_append_new(all, perun_plugin_entry_json(e, 1));
	}
	perun_plugins_scan_free(entries, n);
	perun_serve_unlock();
	perun_serve_reply_json(reply, 200, json_pack("{s:i,s:o}", "schema", 1, "plugins", all));
}
