/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench-postprocess: time one postprocessor plugin in process, apart from
 * the JSON load and store perun postprocessby adds:
 *   bench-postprocess <plugin.so> <profile> [<option>=<value> ...]
 * Options are the plugin's, as a job configuration gives them (values
 * parsed like the command line's; "decay=com" with "window_width=3" for
 * moving_average's ema).  Prints "<load s> <postprocess s> <models>", the
 * postprocess phase best of three runs on fresh copies of the profile.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <perun/perun.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct perun_error err = { 0 };
	if (argc < 3) {
		fprintf(stderr,
			"usage: bench-postprocess <plugin.so> <profile> [<option>=<value> ...]\n");
		return 2;
	}
	void *handle = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	const char *base = strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1];
	char symbol[256];
	snprintf(symbol, sizeof(symbol), "perun_plugin_%.*s_describe", (int)strcspn(base, "."),
		 base);
	const struct perun_plugin *(*describe)(void) = NULL;
	if (handle)
		*(void **)&describe = dlsym(handle, symbol);
	if (!describe) {
		fprintf(stderr, "bench-postprocess: cannot load %s: %s\n", argv[1], dlerror());
		return 2;
	}
	const struct perun_plugin *plugin = describe();
	const struct perun_postprocess_ops *ops = plugin->ops;
	struct perun_params *params = perun_params_new();
	for (int i = 3; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const struct perun_option *decl = NULL;
		if (eq) {
			*eq = '\0';
			decl = perun_option_find(plugin->options, argv[i], 0);
		}
		json_t *text =
			decl && (decl->flags & PERUN_OPTION_PAIR) ? json_string(eq + 1) : NULL;
		if (!decl || (text ? perun_params_set_json(params, decl, text, &err)
				   : perun_params_set_text(params, decl, eq + 1, &err))) {
			fprintf(stderr, "bench-postprocess: bad option '%s' %s\n", argv[i],
				err.message);
			return 2;
		}
		json_decref(text);
	}
	if (perun_params_finish(params, plugin->options, plugin->name, &err)) {
		fprintf(stderr, "bench-postprocess: %s\n", err.message);
		return 2;
	}
	struct perun_profile *profile;
	double t0 = now();
	if (perun_profile_load_file(argv[2], &profile, &err)) {
		fprintf(stderr, "bench-postprocess: %s\n", err.message);
		return 2;
	}
	double load = now() - t0, best = 1e30;
	size_t models = 0;
	json_t *original = json_deep_copy(perun_profile_json(profile));
	for (int run = 0; run < 3; run++) {
		struct perun_profile *copy;
		if (perun_profile_from_json(json_deep_copy(original), "bench", &copy, &err))
			break;
		struct perun_postprocess_ctx ctx = { .size = sizeof(ctx),
						     .params = params,
						     .profile = copy };
		t0 = now();
		int rc = ops->postprocess(&ctx, &err);
		double t = now() - t0;
		if (rc) {
			fprintf(stderr, "bench-postprocess: %s\n", err.message);
			return 1;
		}
		best = t < best ? t : best;
		models = json_array_size(json_object_get(perun_profile_json(copy), "models"));
		perun_profile_free(copy);
	}
	printf("%.3f %.3f %zu\n", load, best, models);
	json_decref(original);
	perun_profile_free(profile);
	perun_params_free(params);
	dlclose(handle);
	return 0;
}
