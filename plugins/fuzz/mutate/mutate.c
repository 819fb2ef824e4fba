/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * mutate: Perun's performance fuzzer.  Seeds are mutated by rules modelled
 * on real performance bugs; a mutant that raises coverage (gcov line counts,
 * which count repeated visits, so more work is more coverage) past an
 * adapting threshold is a candidate; candidates are profiled by the core and
 * judged against their seed by the check methods; the degrading ones are
 * the findings and breed more.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <perun/perun.h>

#include "mutate.h"

enum per_rule { PER_UNITARY, PER_PROPORTIONAL, PER_PROBABILISTIC, PER_MIXED };

struct fuzz {
	struct perun_fuzz_ctx *ctx;
	const struct perun_params *params;
	struct mut_runner run;
	struct mut_ruleset rules;
	struct mut_rng rng;
	char *out_dir, *work_dir;
	int coverage;
	/* --seed: only exact signals (coverage) steer the search, never a
	 * verdict on measured time */
	int repeatable;
	struct mut_input *seeds;
	size_t nseeds, seeds_cap;
	struct perun_profile **seed_profiles;
	struct mut_input **parents; /* seeds first, then kept mutants */
	size_t nparents, parents_cap;
	struct mut_input **findings;
	size_t nfindings, findings_cap;
	double base_cov, base_time, cov_rate;
	size_t max_size;
	enum per_rule per_rule;
	long long exec_limit, files_limit, max_execs;
	double timeout, start;
	struct mut_report rep;
	size_t ts_cap;
	double last_sample, last_progress;
	FILE *exec_log;
	size_t round; /* from 1 */
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void input_free(struct mut_input *in)
{
	if (!in)
		return;
	free(in->name);
	free(in->path);
	mut_buf_release(&in->data);
}

/* ---- seeds -------------------------------------------------------------- */

static int read_file(const char *path, struct mut_buf *b)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	unsigned char chunk[65536];
	size_t n;
	b->len = 0;
	mut_buf_set(b, "", 0);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		mut_buf_splice(b, b->len, 0, chunk, n);
	int bad = ferror(f);
	fclose(f);
	return bad ? -1 : 0;
}

static void add_seed(struct fuzz *fz, const char *path, const regex_t *filter)
{
	if (filter && regexec(filter, path, 0, NULL, 0))
		return;
	struct mut_buf b = { 0 };
	if (read_file(path, &b) || !b.len) { /* unreadable or empty: not usable */
		mut_buf_release(&b);
		return;
	}
	mut_grow((void **)&fz->seeds, &fz->seeds_cap, fz->nseeds + 1, sizeof(*fz->seeds));
	struct mut_input *s = &fz->seeds[fz->nseeds];
	memset(s, 0, sizeof(*s));
	const char *base = strrchr(path, '/');
	s->name = strdup(base ? base + 1 : path);
	s->path = strdup(path);
	s->data = b;
	s->seed = fz->nseeds++;
	s->rule = -1;
}

static void add_seeds_from(struct fuzz *fz, const char *path, const regex_t *filter, int depth)
{
	struct stat st;
	if (stat(path, &st))
		return;
	if (S_ISREG(st.st_mode)) {
		add_seed(fz, path, filter);
		return;
	}
	if (!S_ISDIR(st.st_mode) || depth > 16)
		return;
	struct dirent **list;
	int n = scandir(path, &list, NULL, alphasort); /* sorted: --seed repeats */
	for (int i = 0; i < n; i++) {
		if (list[i]->d_name[0] != '.') {
			char full[4096];
			snprintf(full, sizeof(full), "%s/%s", path, list[i]->d_name);
			add_seeds_from(fz, full, filter, depth + 1);
		}
		free(list[i]);
	}
	free(list);
}

static int load_seeds(struct fuzz *fz, struct perun_error *err)
{
	const char *pattern = perun_params_string(fz->params, "workloads-filter", NULL);
	regex_t filter;
	if (pattern) {
		int e = regcomp(&filter, pattern, REG_EXTENDED | REG_NOSUB);
		if (e) {
			char msg[256];
			regerror(e, &filter, msg, sizeof(msg));
			return perun_error_set(err, PERUN_EINVAL,
					       "fuzz: --workloads-filter '%s': %s", pattern, msg);
		}
	}
	size_t n = perun_params_count(fz->params, "input-sample");
	for (size_t i = 0; i < n; i++) {
		const char *p = perun_params_string_at(fz->params, "input-sample", i);
		if (access(p, R_OK)) {
			if (pattern)
				regfree(&filter);
			return perun_error_set(err, PERUN_EINVAL,
					       "fuzz: cannot read input sample '%s': %m", p);
		}
		add_seeds_from(fz, p, pattern ? &filter : NULL, 0);
	}
	if (pattern)
		regfree(&filter);
	if (!fz->nseeds)
		return perun_error_set(
			err, PERUN_EINVAL,
			"fuzz: no usable input sample in '%s'%s (none readable and non-empty%s)",
			perun_params_string_at(fz->params, "input-sample", 0), n > 1 ? " ..." : "",
			pattern ? " matching --workloads-filter" : "");
	return 0;
}

/* ---- output directory --------------------------------------------------- */

static int make_dir(const char *base, const char *sub, char **out, struct perun_error *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s%s%s", base, sub ? "/" : "", sub ? sub : "");
	if (mkdir(path, 0777) && errno != EEXIST)
		return perun_error_set(err, PERUN_EINVAL, "fuzz: cannot create directory '%s': %m",
				       path);
	char probe[4200];
	snprintf(probe, sizeof(probe), "%s/.perun-fuzz-probe", path);
	FILE *f = fopen(probe, "w");
	if (!f)
		return perun_error_set(err, PERUN_EINVAL, "fuzz: cannot write into '%s': %m", path);
	fclose(f);
	unlink(probe);
	if (out)
		*out = strdup(path);
	return 0;
}

static int prepare_output(struct fuzz *fz, struct perun_error *err)
{
	const char *o = perun_params_string(fz->params, "output-dir", NULL);
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s", o);
	/* mkdir -p */
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(tmp, 0777);
			*p = '/';
		}
	static const char *const subs[] = { "hangs", "faults", "diffs", "logs", "graphs", ".work" };
	int rc = make_dir(o, NULL, &fz->out_dir, err);
	for (size_t i = 0; !rc && i < sizeof(subs) / sizeof(subs[0]); i++)
		rc = make_dir(o, subs[i], i == 5 ? &fz->work_dir : NULL, err);
	return rc;
}

/* ---- mutants ------------------------------------------------------------ */

/* "<stem>-<16 hex><ext>" from the seed's name: the hex comes from the
 * seeded generator, so a repeated run names its mutants alike. */
static char *mutant_name(struct fuzz *fz, const char *seed_name)
{
	const char *dot = strrchr(seed_name, '.');
	size_t stem = dot && dot != seed_name ? (size_t)(dot - seed_name) : strlen(seed_name);
	char *name = malloc(stem + 40);
	snprintf(name, stem + 40, "%.*s-%016llx%s", (int)stem, seed_name,
		 (unsigned long long)mut_rng_next(&fz->rng), dot && dot != seed_name ? dot : "");
	return name;
}

static int write_file(const char *path, const struct mut_buf *b)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t n = b->len ? fwrite(b->data, 1, b->len, f) : 0;
	return fclose(f) || n != b->len ? -1 : 0;
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* Parents are picked by rank: the fitter fifth of them five times as
 * often as the least fit fifth (weights (i+1)/15). */
static struct mut_input *select_parent(struct fuzz *fz)
{
	size_t n = fz->nparents;
	if (n < 5)
		return fz->parents[mut_rng_range(&fz->rng, 0, n - 1)];
	double u = mut_rng_unit(&fz->rng) * 15;
	size_t interval = 0; /* 0 is the fittest fifth */
	for (double acc = 5; interval < 4 && u >= acc; interval++)
		acc += 4 - interval;
	size_t lo = interval * n / 5, hi = (interval + 1) * n / 5 - 1;
	return fz->parents[mut_rng_range(&fz->rng, lo, hi)];
}

static int parent_cmp(const void *a, const void *b)
{
	const struct mut_input *x = *(struct mut_input *const *)a;
	const struct mut_input *y = *(struct mut_input *const *)b;
	return (x->fitness < y->fitness) - (x->fitness > y->fitness);
}

static size_t mutations_for(struct fuzz *fz, size_t rule)
{
	size_t hits = fz->rules.hits[rule], total = fz->rules.total_hits;
	size_t proportional = hits + 1 < 100 ? hits + 1 : 100;
	double share = total ? (double)hits / (double)total : 0;
	int lucky = (double)mut_rng_range(&fz->rng, 0, 10) / 10 <= (share > 0.1 ? share : 0.1);
	switch (fz->per_rule) {
	case PER_UNITARY: return 1;
	case PER_PROPORTIONAL: return proportional;
	case PER_PROBABILISTIC: return lucky;
	case PER_MIXED:
	default: return lucky ? proportional : 0;
	}
}

/* ---- progress and time series ------------------------------------------- */

static void sample(struct fuzz *fz, int force)
{
	double t = now() - fz->start;
	if (!force && t - fz->last_sample < 1)
		return;
	fz->last_sample = t;
	size_t deg_cap = fz->ts_cap;
	mut_grow((void **)&fz->rep.cov_ts, &fz->ts_cap, fz->rep.nts + 1, sizeof(*fz->rep.cov_ts));
	mut_grow((void **)&fz->rep.deg_ts, &deg_cap, fz->rep.nts + 1, sizeof(*fz->rep.deg_ts));
	fz->rep.cov_ts[fz->rep.nts] = (struct mut_sample){ t, fz->rep.max_cov_ratio };
	fz->rep.deg_ts[fz->rep.nts] = (struct mut_sample){ t, (double)fz->rep.degradations };
	fz->rep.nts++;
}

/* An AFL-like status block, redrawn in place on a terminal. */
static void progress(struct fuzz *fz, int final)
{
	FILE *out = fz->ctx->progress;
	double t = now() - fz->start;
	if (!out || (!final && t - fz->last_progress < 0.25))
		return;
	static int drawn;
	if (drawn)
		fputs("\033[6A", out);
	drawn = 1;
	double worst = 0;
	for (size_t i = 0; i < fz->nfindings; i++)
		if (fz->findings[i]->time / fz->seeds[fz->findings[i]->seed].time > worst)
			worst = fz->findings[i]->time / fz->seeds[fz->findings[i]->seed].time;
	fprintf(out, "\033[K+- perun fuzz ---------- run time %8.1f s -------------\n", t);
	fprintf(out, "\033[K|  executions: %-10zu  exec speed: %8.1f/s\n", fz->rep.executions,
		t > 0 ? (double)fz->rep.executions / t : 0.0);
	fprintf(out, "\033[K|  %s ratio: %-9.3g  threshold rate: %.3g\n",
		fz->coverage ? "coverage" : "run time", fz->rep.max_cov_ratio, fz->cov_rate);
	fprintf(out, "\033[K|  degradations: %-8zu  worst slowdown: %.1fx\n", fz->rep.degradations,
		worst);
	fprintf(out, "\033[K|  hangs: %-6zu  faults: %-6zu  parents: %zu\n", fz->rep.hangs,
		fz->rep.faults, fz->nparents);
	fprintf(out, "\033[K+--------------------------------------------------------\n");
	fflush(out);
	fz->last_progress = t;
}

static int should_stop(struct fuzz *fz)
{
	return *fz->ctx->interrupted || now() - fz->start >= fz->timeout ||
	       (fz->max_execs > 0 && (long long)fz->rep.executions >= fz->max_execs);
}

/* ---- the loop ----------------------------------------------------------- */

static char *scratch_path(const struct fuzz *fz, size_t seed)
{
	char name[300];
	snprintf(name, sizeof(name), "next-%s", fz->seeds[seed].name);
	return join(fz->work_dir, name);
}

/* Keep a hang or a fault in its folder. */
static void keep_bad(struct fuzz *fz, const char *folder, const char *name, const struct mut_buf *b)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/%s", fz->out_dir, folder);
	char *path = join(dir, name);
	write_file(path, b);
	free(path);
}

/* FNV-1a of a mutant's bytes: the log names each mutant by content too,
 * so two runs can be compared byte for byte without keeping every one. */
static uint64_t content_hash(const struct mut_buf *b)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < b->len; i++)
		h = (h ^ b->data[i]) * 0x100000001b3ull;
	return h;
}

static void log_exec(struct fuzz *fz, const struct mut_input *parent, const char *rule,
		     const char *name, const char *what, double cov, const struct mut_buf *b)
{
	if (fz->exec_log)
		fprintf(fz->exec_log, "%zu %zu %s %s %s %s %.0f %zu %zu %016llx\n", fz->round,
			fz->rep.executions, parent->name, rule, name, what,
			fz->coverage ? cov : 0.0, parent->depth + 1, b->len,
			(unsigned long long)content_hash(b));
}

/* Upstream rates an input by its coverage ratio c/c0 (c0 the seeds'
 * median) alone, so an input grown by copying what it has ranks above one
 * that makes the program work harder per byte.  Here the ratio is per
 * byte, (c/c0) / (s/s0) with s0 the size of its seed: inputs whose cost
 * grows faster than their size (collisions, backtracking, quadratic
 * paths) breed first, while a candidate must still raise the coverage
 * itself past the adapting threshold and its parent's. */
static double fitness_of(const struct fuzz *fz, double metric, size_t len, size_t seed)
{
	double base = fz->coverage ? fz->base_cov : fz->base_time;
	if (base <= 0)
		return 1;
	double ratio = metric / base;
	double size = fz->seeds[seed].data.len ? (double)len / (double)fz->seeds[seed].data.len : 1;
	return ratio / (size > 0 ? size : 1);
}

/* Make, run and judge the mutants of one parent; candidates grow. */
static int breed(struct fuzz *fz, struct mut_input *parent, struct mut_input ***cand, size_t *ncand,
		 size_t *cand_cap, long long *round_execs, struct perun_error *err)
{
	for (size_t r = 0; r < fz->rules.n; r++) {
		size_t k = mutations_for(fz, r);
		for (size_t j = 0; j < k; j++) {
			/* As upstream, every mutant of a parent runs: the round's
			 * limits count between parents, else the rules late in
			 * the set would rarely get a turn. */
			if (should_stop(fz))
				return 0;
			struct mut_buf b = { 0 };
			mut_buf_set(&b, parent->data.data, parent->data.len);
			fz->rep.rule_tries[r]++;
			int changed = mut_rule_apply(&fz->rules.rules[r], &b, &fz->rng);
			if (b.len > fz->max_size)
				b.len = fz->max_size;
			if (!changed || (b.len == parent->data.len &&
					 !memcmp(b.data, parent->data.data, b.len))) {
				mut_buf_release(&b);
				continue;
			}
			char *name = mutant_name(fz, fz->seeds[parent->seed].name);
			/* Each run overwrites one scratch file per seed (named
			 * like the seed, for programs that look at the name);
			 * only a kept mutant is renamed to its own name. */
			char *path = scratch_path(fz, parent->seed);
			/* A new file, not a truncated one: ext4 flushes a file
			 * truncated and rewritten on close (auto_da_alloc),
			 * which tripled the cost of a run here. */
			unlink(path);
			if (write_file(path, &b)) {
				int rc = perun_error_set(err, PERUN_EGENERIC,
							 "fuzz: cannot write '%s': %m", path);
				free(path);
				free(name);
				mut_buf_release(&b);
				return rc;
			}
			enum mut_run_result res;
			double cpu, cov;
			int rc = mut_runner_run(&fz->run, path, &res, &cpu, &cov, err);
			if (rc || *fz->ctx->interrupted) {
				free(path);
				free(name);
				mut_buf_release(&b);
				return rc;
			}
			fz->rep.executions++;
			(*round_execs)++;
			const char *rid = fz->rules.rules[r].id;
			double metric = fz->coverage ? cov : cpu;
			int keep = 0;
			if (res == MUT_RUN_HANG) {
				fz->rep.hangs++;
				keep_bad(fz, "hangs", name, &b);
				log_exec(fz, parent, rid, name, "hang", cov, &b);
			} else if (res == MUT_RUN_FAULT) {
				fz->rep.faults++;
				keep_bad(fz, "faults", name, &b);
				log_exec(fz, parent, rid, name, "fault", cov, &b);
			} else {
				double base = fz->coverage ? fz->base_cov : fz->base_time;
				keep = metric > floor(base * fz->cov_rate) && metric > parent->cov;
				if (base > 0 && metric / base > fz->rep.max_cov_ratio)
					fz->rep.max_cov_ratio = metric / base;
				log_exec(fz, parent, rid, name, keep ? "candidate" : "-", cov, &b);
			}
			if (!keep) {
				free(path);
				free(name);
				mut_buf_release(&b);
			} else {
				struct mut_input *in = calloc(1, sizeof(*in));
				in->name = name;
				in->path = join(fz->work_dir, name);
				if (rename(path, in->path)) {
					rc = perun_error_set(err, PERUN_EGENERIC,
							     "fuzz: cannot rename '%s': %m", path);
					free(path);
					input_free(in);
					free(in);
					mut_buf_release(&b);
					return rc;
				}
				free(path);
				in->data = b;
				in->seed = parent->seed;
				in->cov = metric;
				in->time = cpu;
				in->rule = (int)r;
				in->depth = parent->depth + 1;
				/* rated by its coverage now (upstream's rate_parent);
				 * a degradation found later raises it */
				in->fitness = fitness_of(fz, metric, b.len, parent->seed);
				if (fz->coverage) { /* upstream counts the rule's hit here too */
					fz->rules.hits[r]++;
					fz->rules.total_hits++;
				}
				char trail[sizeof(in->trail) + 32];
				size_t tl = strlen(parent->trail);
				memcpy(trail, parent->trail, tl);
				if (tl)
					trail[tl++] = ' ';
				strcpy(trail + tl, rid);
				tl = strlen(trail);
				/* keep the newest rules */
				strcpy(in->trail, trail + (tl > 80 ? tl - 60 : 0));
				mut_grow((void **)cand, cand_cap, *ncand + 1, sizeof(**cand));
				(*cand)[(*ncand)++] = in;
			}
			sample(fz, 0);
			progress(fz, 0);
		}
	}
	return 0;
}

static int seed_profile(struct fuzz *fz, size_t seed, struct perun_error *err)
{
	if (fz->seed_profiles[seed])
		return 0;
	const struct perun_fuzz_host *h = fz->ctx->host;
	if (h->profile(h->data, fz->seeds[seed].path, &fz->seed_profiles[seed], err)) {
		if (*fz->ctx->interrupted) /* Ctrl-C while profiling: a summary, not an error */
			return 0;
		perun_error_prefix(err, "fuzz: profiling seed '%s'", fz->seeds[seed].name);
		return -err->code;
	}
	return 0;
}

/* Profile a candidate and judge it against its seed. */
static int judge(struct fuzz *fz, struct mut_input *in, struct perun_error *err)
{
	const struct perun_fuzz_host *h = fz->ctx->host;
	if (seed_profile(fz, in->seed, err))
		return -err->code;
	if (*fz->ctx->interrupted)
		return 0;
	struct perun_profile *prof = NULL;
	struct perun_error perr = { 0 };
	if (h->profile(h->data, in->path, &prof, &perr)) {
		if (*fz->ctx->interrupted)
			return 0;
		fprintf(stderr, "perun: warning: fuzz: mutant '%s' not profiled: %s\n", in->name,
			perr.message);
		return 0;
	}
	size_t degs = 0, results = 0;
	int rc = h->compare(h->data, fz->seed_profiles[in->seed], prof, &degs, &results, err);
	h->release(h->data, prof);
	if (rc)
		return rc;
	in->deg_ratio = results ? (double)degs / (double)results : 0;
	if (in->deg_ratio > 0) {
		/* Upstream's update_parent_rate: the degrading mutant (a parent
		 * now) rates higher and its rule counts a hit.  Verdicts come
		 * from measured time, so with --seed they only make findings. */
		if (!fz->repeatable) {
			in->fitness *= 1 + in->deg_ratio;
			fz->rules.hits[in->rule]++;
			fz->rules.total_hits++;
		}
		fz->rep.degradations++;
		mut_grow((void **)&fz->findings, &fz->findings_cap, fz->nfindings + 1,
			 sizeof(*fz->findings));
		fz->findings[fz->nfindings++] = in;
		/* the finding itself goes to the output directory */
		char *final = join(fz->out_dir, in->name);
		write_file(final, &in->data);
		free(final);
		if (mut_report_diff(fz->out_dir, &fz->seeds[in->seed], in, err))
			return -err->code;
	}
	return 0;
}

static int fuzz_loop(struct fuzz *fz, struct perun_error *err)
{
	while (!should_stop(fz)) {
		fz->round++;
		struct mut_input **cand = NULL;
		size_t ncand = 0, cand_cap = 0;
		long long round_execs = 0;
		int rc = 0;
		while (!rc && !should_stop(fz) && round_execs < fz->exec_limit &&
		       (long long)ncand < fz->files_limit) {
			long long before = round_execs;
			rc = breed(fz, select_parent(fz), &cand, &ncand, &cand_cap, &round_execs,
				   err);
			/* A parent whose every mutant was dropped still counts
			 * towards the round, or the round could spin. */
			if (round_execs == before)
				round_execs++;
		}
		if (ncand)
			fz->cov_rate += 0.05;
		else if (fz->cov_rate > 0.01)
			fz->cov_rate -= 0.01;
		for (size_t i = 0; i < ncand; i++) {
			if (!rc && !*fz->ctx->interrupted)
				rc = judge(fz, cand[i], err);
			/* every candidate becomes a parent */
			mut_grow((void **)&fz->parents, &fz->parents_cap, fz->nparents + 1,
				 sizeof(*fz->parents));
			fz->parents[fz->nparents++] = cand[i];
		}
		free(cand);
		qsort(fz->parents, fz->nparents, sizeof(*fz->parents), parent_cmp);
		sample(fz, 1);
		progress(fz, 0);
		if (rc)
			return rc;
	}
	return 0;
}

static int measure_seeds(struct fuzz *fz, struct perun_error *err)
{
	double *covs = calloc(fz->nseeds, sizeof(double)),
	       *times = calloc(fz->nseeds, sizeof(double));
	int rc = 0;
	for (size_t i = 0; !rc && i < fz->nseeds; i++) {
		enum mut_run_result res;
		rc = mut_runner_run(&fz->run, fz->seeds[i].path, &res, &times[i], &covs[i], err);
		if (!rc && res != MUT_RUN_OK)
			rc = perun_error_set(
				err, PERUN_ETOOL, "fuzz: '%s' %s on the seed '%s'", fz->run.argv[0],
				res == MUT_RUN_HANG ? "hangs" : "fails", fz->seeds[i].path);
		if (!rc && fz->coverage && covs[i] <= 0)
			rc = perun_error_set(err, PERUN_ETOOL,
					     "fuzz: no coverage from gcov for '%s' on '%s': is "
					     "--gcno-path where the program writes its .gcda?",
					     fz->run.argv[0], fz->seeds[i].path);
		fz->seeds[i].cov = fz->coverage ? covs[i] : times[i];
		fz->seeds[i].time = times[i];
		fz->rep.executions++;
	}
	if (!rc) {
		/* medians */
		double *m[2] = { covs, times };
		double med[2];
		for (int k = 0; k < 2; k++) {
			for (size_t i = 1; i < fz->nseeds; i++)
				for (size_t j = i; j > 0 && m[k][j - 1] > m[k][j]; j--) {
					double t = m[k][j];
					m[k][j] = m[k][j - 1];
					m[k][j - 1] = t;
				}
			med[k] = m[k][fz->nseeds / 2];
		}
		fz->base_cov = med[0];
		fz->base_time = med[1] > 1e-6 ? med[1] : 1e-6;
		for (size_t i = 0; i < fz->nseeds; i++) {
			fz->seeds[i].fitness = 1;
			fz->parents[fz->nparents++] = &fz->seeds[i];
		}
		fz->rep.max_cov_ratio = 1;
	}
	free(covs);
	free(times);
	return rc;
}

/* The slowdowns in the summary are measured again, the best of three runs
 * each, so one noisy run does not make a finding look worse. */
static double best_of_three(struct fuzz *fz, const char *path)
{
	double best = INFINITY;
	const char *gcno = fz->run.gcno_dir;
	fz->run.gcno_dir = NULL; /* no gcov here: only the time counts */
	for (int i = 0; i < 3 && !*fz->ctx->interrupted; i++) {
		enum mut_run_result res;
		double cpu, cov;
		struct perun_error e = { 0 };
		if (!mut_runner_run(&fz->run, path, &res, &cpu, &cov, &e) && res == MUT_RUN_OK &&
		    cpu < best)
			best = cpu;
	}
	fz->run.gcno_dir = gcno;
	return isinf(best) ? NAN : best;
}

static int finding_cmp(const void *a, const void *b)
{
	const struct mut_input *x = *(struct mut_input *const *)a;
	const struct mut_input *y = *(struct mut_input *const *)b;
	double sx = x->time, sy = y->time;
	return (sx < sy) - (sx > sy);
}

static int setup(struct fuzz *fz, struct perun_error *err)
{
	const struct perun_params *p = fz->params;
	int rc;
	if ((rc = mut_runner_init(&fz->run, perun_params_string(p, "cmd", ""),
				  perun_params_string(p, "args", ""), err)))
		return rc;
	fz->run.hang_timeout = perun_params_float(p, "hang-timeout", 10);
	fz->run.interrupted = fz->ctx->interrupted;
	if (fz->run.hang_timeout <= 0)
		return perun_error_set(err, PERUN_EINVAL, "fuzz: --hang-timeout must be positive");
	fz->timeout = perun_params_float(p, "timeout", 1800);
	fz->exec_limit = perun_params_int(p, "exec-limit", 100);
	fz->files_limit = perun_params_int(p, "interesting-files-limit", 20);
	fz->max_execs = perun_params_int(p, "max-executions", 0);
	fz->cov_rate = perun_params_float(p, "coverage-increase-rate", 1.5);
	if (fz->exec_limit < 1 || fz->files_limit < 1 || fz->timeout <= 0 || fz->cov_rate <= 0)
		return perun_error_set(err, PERUN_EINVAL,
				       "fuzz: --exec-limit, --interesting-files-limit, --timeout "
				       "and --coverage-increase-rate must be positive");
	const char *mpr = perun_params_string(p, "mutations-per-rule", "mixed");
	fz->per_rule = !strcmp(mpr, "unitary")	       ? PER_UNITARY
		       : !strcmp(mpr, "proportional")  ? PER_PROPORTIONAL
		       : !strcmp(mpr, "probabilistic") ? PER_PROBABILISTIC
						       : PER_MIXED;
	fz->repeatable = perun_params_has(p, "seed");
	fz->rng.s = perun_params_has(p, "seed") ? (uint64_t)perun_params_int(p, "seed", 0)
						: (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	if ((rc = load_seeds(fz, err)))
		return rc;
	/* The rules suit the file type of the seeds: binary when any is. */
	enum mut_file_type type = MUT_FILE_TEXT;
	for (size_t i = 0; i < fz->nseeds; i++) {
		enum mut_file_type t = mut_file_type(fz->seeds[i].name, fz->seeds[i].data.data,
						     fz->seeds[i].data.len);
		if (t == MUT_FILE_BINARY || (t == MUT_FILE_XML && type == MUT_FILE_TEXT))
			type = t;
	}
	if ((rc = mut_ruleset_init(&fz->rules, type, perun_params_string(p, "regex-rules", NULL),
				   err)))
		return rc;
	size_t largest = 0;
	for (size_t i = 0; i < fz->nseeds; i++)
		if (fz->seeds[i].data.len > largest)
			largest = fz->seeds[i].data.len;
	if (perun_params_has(p, "max-size"))
		fz->max_size = (size_t)perun_params_int(p, "max-size", 0);
	else if (perun_params_has(p, "max-size-ratio"))
		fz->max_size =
			(size_t)((double)largest * perun_params_float(p, "max-size-ratio", 1));
	else
		fz->max_size = largest + (size_t)perun_params_int(p, "max-size-increase", 1000000);
	if (fz->max_size < 1)
		return perun_error_set(err, PERUN_EINVAL, "fuzz: the maximum size is 0 bytes");
	fz->coverage = !perun_params_bool(p, "skip-coverage-testing", 0);
	if (fz->coverage &&
	    (rc = mut_runner_coverage(&fz->run, perun_params_string(p, "gcno-path", "."), err)))
		return rc;
	fz->run.gcda = !strcmp(perun_params_string(p, "coverage-reader", "gcov"), "gcda");
	if ((rc = prepare_output(fz, err)))
		return rc;
	fz->seed_profiles = calloc(fz->nseeds, sizeof(*fz->seed_profiles));
	mut_grow((void **)&fz->parents, &fz->parents_cap, fz->nseeds, sizeof(*fz->parents));
	fz->rep.rule_tries = calloc(fz->rules.n, sizeof(size_t));
	char *log = join(fz->out_dir, "logs/executions.log");
	fz->exec_log = fopen(log, "w");
	free(log);
	return 0;
}

static int mutate_fuzz(struct perun_fuzz_ctx *ctx, struct perun_error *err)
{
	struct fuzz fz;
	memset(&fz, 0, sizeof(fz));
	fz.ctx = ctx;
	fz.params = ctx->params;
	int rc = setup(&fz, err);
	fz.start = now();
	if (!rc)
		rc = measure_seeds(&fz, err);
	/* the seeds' own profiles first: a collector that cannot profile
	 * the program fails here, before any fuzzing */
	if (!rc)
		rc = seed_profile(&fz, 0, err);
	if (!rc) {
		sample(&fz, 1);
		rc = fuzz_loop(&fz, err);
	}
	if (!rc) {
		if (fz.nfindings) /* findings is NULL while there are none */
			qsort(fz.findings, fz.nfindings, sizeof(*fz.findings), finding_cmp);
		fz.rep.seed_time = calloc(fz.nfindings + 1, sizeof(double));
		fz.rep.found_time = calloc(fz.nfindings + 1, sizeof(double));
		for (size_t i = 0; i < fz.nfindings && i < 10; i++) {
			fz.rep.seed_time[i] =
				best_of_three(&fz, fz.seeds[fz.findings[i]->seed].path);
			fz.rep.found_time[i] = best_of_three(&fz, fz.findings[i]->path);
		}
		sample(&fz, 1);
		progress(&fz, 1);
		fz.rep.out_dir = fz.out_dir;
		fz.rep.plotting = !perun_params_bool(fz.params, "no-plotting", 0);
		fz.rep.elapsed = now() - fz.start;
		fz.rep.rules = &fz.rules;
		fz.rep.findings = fz.findings;
		fz.rep.nfindings = fz.nfindings;
		fz.rep.seeds = fz.seeds;
		fz.rep.interrupted = *ctx->interrupted != 0;
		rc = mut_report_write(&fz.rep, stdout, err);
	}
	if (fz.exec_log)
		fclose(fz.exec_log);
	for (size_t i = 0; fz.work_dir && i < fz.nparents; i++)
		if (fz.parents[i]->rule >= 0)
			unlink(fz.parents[i]->path);
	for (size_t i = 0; fz.work_dir && i < fz.nseeds; i++) {
		char *scratch = scratch_path(&fz, i);
		unlink(scratch);
		free(scratch);
	}
	if (fz.work_dir)
		rmdir(fz.work_dir);
	for (size_t i = 0; fz.seed_profiles && i < fz.nseeds; i++)
		if (fz.seed_profiles[i])
			ctx->host->release(ctx->host->data, fz.seed_profiles[i]);
	for (size_t i = 0; i < fz.nparents; i++)
		if (fz.parents[i]->rule >= 0) {
			input_free(fz.parents[i]);
			free(fz.parents[i]);
		}
	for (size_t i = 0; i < fz.nseeds; i++)
		input_free(&fz.seeds[i]);
	free(fz.seeds);
	free(fz.seed_profiles);
	free(fz.parents);
	free(fz.findings);
	free(fz.rep.rule_tries);
	free(fz.rep.cov_ts);
	free(fz.rep.deg_ts);
	free(fz.rep.seed_time);
	free(fz.rep.found_time);
	free(fz.out_dir);
	free(fz.work_dir);
	mut_ruleset_release(&fz.rules);
	mut_runner_release(&fz.run);
	return rc;
}

static const struct perun_fuzz_ops mutate_ops = {
	.size = sizeof(mutate_ops),
	.fuzz = mutate_fuzz,
};

PERUN_PLUGIN_DEFINE(mutate, PERUN_KIND_FUZZ, .version = "1.0",
		    .summary = "mutation rules modelled on performance bugs, gcov-guided",
		    .options = NULL, .ops = &mutate_ops);
