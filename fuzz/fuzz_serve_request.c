/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: what perun serve takes from a request before anything
 * runs (core/serve_request.c).  The first line is a request path, the
 * rest a run request's JSON body.  Besides not crashing: a path that is
 * let through has no "." or ".." component and only printable bytes, and
 * a body that is let through comes back with every field, of its kind. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve_request.h"

static void check_path(const char *path)
{
	if (perun_serve_path_problem(path))
		return;
	if (path[0] != '/' || strstr(path, "/../") || strstr(path, "/./"))
		abort();
	size_t n = strlen(path);
	if ((n >= 3 && !strcmp(path + n - 3, "/..")) || (n >= 2 && !strcmp(path + n - 2, "/.")))
		abort();
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		if (*c < 0x21 || *c > 0x7e || *c == '\\')
			abort();
}

static void check_body(const char *text, size_t len)
{
	json_t *req = json_loadb(text, len, 0, NULL);
	if (!req)
		return;
	json_t *out = NULL;
	struct perun_error err = { 0 };
	/* No program is found from a root that does not exist, unless the
	 * run attaches to a process or names one on PATH. */
	if (!perun_serve_run_request_check("/nonexistent", req, &out, &err)) {
		static const char *const strings[] = { "session", "collector", "command",
						       "args",	  "workload",  NULL };
		for (size_t i = 0; strings[i]; i++)
			if (!json_is_string(json_object_get(out, strings[i])))
				abort();
		if (!json_is_object(json_object_get(out, "collector_options")) ||
		    !json_is_array(json_object_get(out, "postprocessors")) ||
		    !json_is_object(json_object_get(out, "env")))
			abort();
		json_decref(out);
	} else if (!err.message[0]) {
		abort(); /* a refusal always says why */
	}
	json_decref(req);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t path_len = nl ? (size_t)(nl - data) : size;
	char *path = malloc(path_len + 1);
	if (!path)
		return 0;
	memcpy(path, data, path_len);
	path[path_len] = '\0';
	check_path(path);
	free(path);
	if (nl)
		check_body((const char *)nl + 1, size - path_len - 1);
	return 0;
}
