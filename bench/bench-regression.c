/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench-regression: time the regression_analysis postprocessor (all
 * models, full method) on profiles built in memory:
 *   - one uid with 1,000,000 points
 *   - 10,000 uids with 100 points each
 * Prints one line per case: name, points, models, seconds (best of runs).
 * With --write <dir>, also writes both profiles there (pending form) for
 * timing perun postprocessby end to end and for other implementations.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <perun/perun.h>

const struct perun_plugin *perun_plugin_regression_analysis_describe(void);

/* y = 3 + 0.002 x + noise, x = 1..n: a deterministic, slightly noisy line. */
static struct perun_profile *make_profile(size_t uids, size_t points)
{
	struct perun_profile *p = perun_profile_new("mixed");
	json_t *root = perun_profile_json(p);
	json_t *resources = json_object(), *types = json_object();
	unsigned long long state = 42;
	for (size_t u = 0; u < uids; u++) {
		char uid[64], name[80];
		snprintf(uid, sizeof(uid), "func_%05zu", u);
		snprintf(name, sizeof(name), "%s#0", uid);
		json_t *xs = json_array(), *ys = json_array();
		for (size_t i = 1; i <= points; i++) {
			state = state * 6364136223846793005ULL + 1442695040888963407ULL;
			double noise = (double)(state >> 11) / 9007199254740992.0 - 0.5;
			json_array_append_new(xs, json_integer((json_int_t)i));
			json_array_append_new(ys, json_real(3 + 0.002 * (double)i + noise));
		}
		json_object_set_new(
			resources, name,
			json_pack("{s:o,s:o}", "structure-unit-size", xs, "amount", ys));
		json_object_set_new(types, name,
				    json_pack("{s:s,s:s}", "uid", uid, "type", "mixed"));
	}
	json_object_set_new(root, "resources", resources);
	json_object_set_new(root, "resource_type_map", types);
	perun_profile_set_header(p, "cmd", "bench");
	perun_profile_set_header(p, "workload", "");
	perun_profile_set_collector(p, "trace", NULL);
	return p;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bench(const char *name, size_t uids, size_t points, int runs, const char *dir)
{
	const struct perun_plugin *plugin = perun_plugin_regression_analysis_describe();
	const struct perun_postprocess_ops *ops = plugin->ops;
	struct perun_profile *p = make_profile(uids, points);
	struct perun_error err = { 0 };
	if (dir) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s.perf", dir, name);
		if (perun_profile_save_file(p, path, &err)) {
			fprintf(stderr, "bench-regression: %s\n", err.message);
			return 1;
		}
	}
	struct perun_params *params = perun_params_new();
	perun_params_finish(params, plugin->options, "bench", &err);
	double best = 1e30;
	size_t models = 0;
	json_t *list = json_object_get(perun_profile_json(p), "models");
	for (int r = 0; r < runs; r++) {
		json_array_clear(list);
		struct perun_postprocess_ctx ctx = { .size = sizeof(ctx),
						     .params = params,
						     .profile = p };
		double t0 = now();
		int rc = ops->postprocess(&ctx, &err);
		double t = now() - t0;
		if (rc) {
			fprintf(stderr, "bench-regression: %s\n", err.message);
			return 1;
		}
		best = t < best ? t : best;
		models = json_array_size(list);
	}
	printf("%-24s %9zu points %6zu uids %6zu models %8.3f s\n", name, uids * points, uids,
	       models, best);
	perun_params_free(params);
	perun_profile_free(p);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 2 && !strcmp(argv[1], "--write") ? argv[2] : NULL;
	int rc = bench("regression-1M-points", 1, 1000000, 3, dir);
	rc |= bench("regression-10k-uids", 10000, 100, 3, dir);
	return rc;
}
