/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench-check-history - the check methods of the history work, in process,
 * through the plugin ABI (the staged .so files):
 *   cpd  compare_series over V versions x L locations (3 repetitions each,
 *        5% noise, a tenth of the locations with a 2x step at a known
 *        version), with the t-test and with the permutation test;
 *   eto  compare over two trace profiles of F functions in 4 binaries.
 * Prints the CPU seconds of the method call alone (best of 3; the profiles
 * are built in memory first) and how many steps cpd found at their version.
 *
 *   bench-check-history PLUGIN_DIR [VERSIONS LOCATIONS FUNCTIONS]
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <perun/perun.h>

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const struct perun_plugin *load(const char *dir, const char *name)
{
	char path[4096], sym[128];
	snprintf(path, sizeof(path), "%s/check/%s.so", dir, name);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "bench-check-history: %s\n", dlerror());
		exit(2);
	}
	snprintf(sym, sizeof(sym), "perun_plugin_%s_describe", name);
	const struct perun_plugin *(*describe)(void) =
		(const struct perun_plugin *(*)(void))dlsym(h, sym);
	if (!describe) {
		fprintf(stderr, "bench-check-history: no %s in %s\n", sym, path);
		exit(2);
	}
	return describe();
}

static struct perun_params *params(const struct perun_plugin *p, const char *const *kv)
{
	struct perun_error err = { 0 };
	struct perun_params *pp = perun_params_new();
	for (size_t i = 0; kv && kv[i]; i += 2)
		perun_params_set_text(pp, perun_option_find(p->options, kv[i], 0), kv[i + 1], &err);
	if (perun_params_finish(pp, p->options, p->name, &err)) {
		fprintf(stderr, "bench-check-history: %s\n", err.message);
		exit(2);
	}
	return pp;
}

/* A small fast generator: the numbers only need to look like noise. */
static unsigned long long rng_state = 88172645463325252ull;
static double uniform(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double noisy(double level, double rel)
{
	/* sum of uniforms: roughly normal, sd ~ rel */
	double u = uniform() + uniform() + uniform() + uniform() - 2.0;
	return level * (1 + rel * u * 1.7);
}

/* The version where location l steps 2x, or 0 for none. */
static size_t step_of(size_t l, size_t versions)
{
	return l % 10 == 3 ? versions / 4 + (l / 10) % (versions / 2) : 0;
}

/* A profile of the given resources and header; exits on bad input. */
static struct perun_profile *finish(json_t *res, json_t *rtm, const char *type, const char *cmd,
				    const char *unit_key, const char *unit, const char *collector)
{
	json_t *root =
		json_pack("{s:o, s:o, s:[], s:{s:s, s:s, s:s, s:s, s:{s:s}}, s:{s:s, s:{}}, "
			  "s:[]}",
			  "resources", res, "resource_type_map", rtm, "models", "header", "type",
			  type, "cmd", cmd, "args", "", "workload", "", "units", unit_key, unit,
			  "collector_info", "name", collector, "params", "postprocessors");
	struct perun_profile *p = NULL;
	struct perun_error err = { 0 };
	if (!root || perun_profile_from_json(root, "bench", &p, &err)) {
		fprintf(stderr, "bench-check-history: %s\n", root ? err.message : "out of memory");
		exit(2);
	}
	return p;
}

static struct perun_profile *time_profile(size_t v, size_t versions, size_t locations)
{
	json_t *res = json_object(), *rtm = json_object();
	for (size_t l = 0; l < locations; l++) {
		char key[64], uid[48];
		snprintf(uid, sizeof(uid), "./prog:f%05zu", l);
		snprintf(key, sizeof(key), "%s#0", uid);
		double level = 0.001 * (1 + (double)(l % 17));
		size_t s = step_of(l, versions);
		if (s && v >= s)
			level *= 2;
		json_t *amount = json_array(), *order = json_array();
		for (int r = 0; r < 3; r++) {
			json_array_append_new(amount, json_real(noisy(level, 0.05)));
			json_array_append_new(order, json_integer(r + 1));
		}
		json_object_set_new(res, key,
				    json_pack("{s:o, s:o}", "amount", amount, "order", order));
		json_object_set_new(rtm, key,
				    json_pack("{s:s, s:s, s:s}", "uid", uid, "subtype", "real",
					      "type", "time"));
	}
	return finish(res, rtm, "time", "./prog", "time", "s", "time");
}

static struct perun_profile *trace_profile(size_t functions, int target)
{
	json_t *res = json_object(), *rtm = json_object();
	static const char *const base_libs[] = { "run", "libfoo-1.2.so", "libc.so.6", "libm.so.6" };
	static const char *const targ_libs[] = { "run", "libfoo-1.3.so", "libc.so.6", "libm.so.6" };
	for (size_t f = 0; f < functions; f++) {
		char key[64], uid[48];
		snprintf(uid, sizeof(uid), "func_%05zu", f);
		snprintf(key, sizeof(key), "%s#0", uid);
		double scale = 1000 * (1 + (double)(f % 97));
		if (target && f % 500 == 7)
			scale *= 5;
		json_t *amount = json_array(), *excl = json_array();
		for (int c = 0; c < 5; c++) {
			double a = floor(noisy(scale, 0.03));
			json_array_append_new(amount, json_integer((json_int_t)a));
			json_array_append_new(excl, json_integer((json_int_t)(a * 0.8)));
		}
		json_object_set_new(res, key,
				    json_pack("{s:o, s:o}", "amount", amount, "exclusive", excl));
		json_object_set_new(rtm, key,
				    json_pack("{s:s, s:s, s:s, s:s}", "uid", uid, "location",
					      (target ? targ_libs : base_libs)[f % 4], "type",
					      "mixed", "subtype", "time delta"));
	}
	return finish(res, rtm, "mixed", "./run", "mixed(time delta)", "us", "trace");
}

struct tally {
	size_t verdicts, changes, steps_at_version;
	size_t versions;
	const struct perun_check_series_entry *series;
};

static int count(const struct perun_degradation *d, void *data)
{
	struct tally *t = data;
	t->verdicts++;
	if (d->result == PERUN_CHANGE_NO_CHANGE)
		return 0;
	t->changes++;
	if (d->version && d->result <= PERUN_CHANGE_DEGRADATION) {
		size_t l = (size_t)atol(strrchr(d->location, 'f') + 1);
		size_t s = step_of(l, t->versions);
		if (s && !strcmp(d->version, t->series[s].version))
			t->steps_at_version++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr,
			"usage: bench-check-history PLUGIN_DIR [VERSIONS LOCATIONS FUNCTIONS]\n");
		return 2;
	}
	size_t versions = argc > 2 ? (size_t)atol(argv[2]) : 100;
	size_t locations = argc > 3 ? (size_t)atol(argv[3]) : 10000;
	size_t functions = argc > 4 ? (size_t)atol(argv[4]) : 10000;
	const struct perun_plugin *cpd = load(argv[1], "cpd");
	const struct perun_plugin *eto = load(argv[1], "eto");
	const struct perun_check_ops *cops = cpd->ops, *eops = eto->ops;

	double t0 = cpu_now();
	struct perun_check_series_entry *series = calloc(versions, sizeof(*series));
	char(*names)[41] = calloc(versions, sizeof(*names));
	for (size_t v = 0; v < versions; v++) {
		snprintf(names[v], sizeof(names[v]), "%040zx", v + 1);
		series[v].version = names[v];
		series[v].profile = time_profile(v, versions, locations);
	}
	size_t steps = 0;
	for (size_t l = 0; l < locations; l++)
		steps += step_of(l, versions) != 0;
	printf("# cpd: %zu versions x %zu locations x 3 repetitions, %zu steps (built in %.2f s)\n",
	       versions, locations, steps, cpu_now() - t0);
	printf("%-28s %9s %9s %9s %9s\n", "method", "cpu s", "verdicts", "changes", "at step");
	static const char *const tt[] = { "test", "ttest", NULL };
	static const char *const perm[] = { "test", "permutation", NULL };
	const char *const *variants[] = { tt, perm };
	const char *labels[] = { "cpd --test ttest", "cpd --test permutation" };
	for (int k = 0; k < 2; k++) {
		struct perun_params *p = params(cpd, variants[k]);
		double best = INFINITY;
		struct tally t = { 0 };
		for (int rep = 0; rep < (k ? 1 : 3); rep++) {
			struct perun_error err = { 0 };
			memset(&t, 0, sizeof(t));
			t.versions = versions;
			t.series = series;
			double a = cpu_now();
			if (cops->compare_series(series, versions, p, count, &t, &err)) {
				fprintf(stderr, "cpd: %s\n", err.message);
				return 3;
			}
			best = fmin(best, cpu_now() - a);
		}
		printf("%-28s %9.3f %9zu %9zu %9zu\n", labels[k], best, t.verdicts, t.changes,
		       t.steps_at_version);
		perun_params_free(p);
	}
	for (size_t v = 0; v < versions; v++)
		perun_profile_free((struct perun_profile *)series[v].profile);
	free(series);
	free(names);

	struct perun_profile *b = trace_profile(functions, 0), *tp = trace_profile(functions, 1);
	struct perun_params *p = params(eto, NULL);
	double best = INFINITY;
	struct tally t = { 0 };
	for (int rep = 0; rep < 3; rep++) {
		struct perun_error err = { 0 };
		memset(&t, 0, sizeof(t));
		double a = cpu_now();
		if (eops->compare(b, tp, p, count, &t, &err)) {
			fprintf(stderr, "eto: %s\n", err.message);
			return 3;
		}
		best = fmin(best, cpu_now() - a);
	}
	printf("# eto: two trace profiles of %zu functions x 5 calls in 4 binaries\n", functions);
	printf("%-28s %9.3f %9zu %9zu %9s\n", "eto", best, t.verdicts, t.changes, "-");
	perun_params_free(p);
	perun_profile_free(b);
	perun_profile_free(tp);
	return 0;
}
