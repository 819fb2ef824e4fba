/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun serve: the store, its views and runs in a browser (serve_*.c). */
#include <stdio.h>
#include <stdlib.h>

#include "autoconfig.h"
#include "cmd_util.h"
#include "command_list.h"
#include "instance.h"
#ifdef HAVE_LIBMICROHTTPD
#include "serve_routes.h"
#include "serve_runs.h"
#endif

static int cmd_serve(const struct perun_command *cmd, struct perun_cli *cli,
		     const struct perun_params *params, int argc, char **argv)
{
	(void)cmd;
	(void)argv;
	if (argc)
		return perun_fail(PERUN_EXIT_USAGE,
				  "usage: perun serve [--listen ADDR:PORT] [--read-only]");
#ifdef HAVE_LIBMICROHTTPD
	struct perun_error err = { 0 };
	struct perun_instance inst;
	/* Served from an instance: refuse to start outside one. */
	if (perun_instance_open(&inst, &err))
		return perun_error_exit(&err);
	int rc = perun_serve_runs_start(inst.root, perun_params_bool(params, "read-only", 0), &err);
	perun_instance_close(&inst);
	if (rc)
		return perun_error_exit(&err);
	struct perun_serve_config config = {
		.listen = perun_params_string(params, "listen", "127.0.0.1:8080"),
		.read_only = perun_params_bool(params, "read-only", 0),
		.cli = cli,
	};
	cli->no_pager = 1;
	rc = perun_serve_run(&config, serve_api_warm, &err);
	perun_serve_runs_stop();
	return rc ? perun_error_exit(&err) : PERUN_EXIT_OK;
#else
	(void)cli;
	(void)params;
	return perun_fail(PERUN_EXIT_FAILURE,
			  "serve: this perun was built without libmicrohttpd (Debian: "
			  "libmicrohttpd-dev); rebuild with it to serve");
#endif
}

static const struct perun_option serve_options[] = {
	{ "listen", "l", PERUN_OPTION_STRING, "127.0.0.1:8080", NULL, "<addr:port>",
	  "address and port to listen on (port 0: any free one)", 0 },
	{ "read-only", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "refuse every request that would change something (403)", 0 },
	{ NULL },
};

const struct perun_command perun_cmd_serve = {
	.name = "serve",
	.fn = cmd_serve,
	.options = serve_options,
	.args = "",
	.summary = "serve the store, its views and runs in a browser",
	.description =
		"Serves the instance over HTTP: the project page (the history with each\n"
		"version's profiles, filters by collector, command, workload and tag,\n"
		"degradations found by perun check marked), a page per profile (header,\n"
		"metadata, the resources paged, sorted and filtered, and each view that\n"
		"fits it, drawn by the view plugins of perun show), a compare page (the\n"
		"views of perun showdiff), and the JSON API under /api/ that the pages\n"
		"use.  docs/serve.md describes every endpoint.\n"
		"\n"
		"It prints its URL with an access token, as Jupyter does; every request\n"
		"needs the token: the ?token= query (a page opened with it sets a cookie\n"
		"and drops it from the URL), that cookie, or 'Authorization: Bearer\n"
		"<token>'.  POST, PUT and DELETE also need the CSRF token of GET\n"
		"/api/csrf in an X-CSRF-Token header, and --read-only refuses them.\n"
		"Bad requests get an HTTP error with {\"error\": \"<message>\"}: 401 or 403\n"
		"for a missing or wrong token, 400 for '..' or odd bytes in a path or a\n"
		"body that is not JSON, 404 for what is not there, 405 for a method a\n"
		"path does not take, 413 for a body over 1 MiB.\n"
		"\n"
		"It listens on 127.0.0.1:8080 unless --listen says otherwise (port 0:\n"
		"a free one, shown in the URL) and runs until SIGINT or SIGTERM, which\n"
		"end it with exit 0.",
	.see_also = "perun-show(1), perun-log(1), perun-check(1)",
};
