/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The version loop of perun collect and perun run, and the job matrix of
 * perun run (see jobs.h).
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd_util.h"
#include "jobs.h"
#include "worktree.h"
#include "runner.h"
#include "supervise.h"
#include "workload.h"

static volatile sig_atomic_t loop_interrupted;

static void on_loop_signal(int sig)
{
	loop_interrupted = sig;
	perun_note_interrupt(sig);
}

static int interrupted(void)
{
	return loop_interrupted || perun_runner_interrupted;
}

/* ---- versions ---------------------------------------------------------- */

struct sha_list {
	char (*sha)[65];
	size_t n;
};

static void sha_add(struct sha_list *l, const char *sha)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->sha[i], sha))
			return;
	l->sha = realloc(l->sha, (l->n + 1) * sizeof(*l->sha));
	snprintf(l->sha[l->n++], 65, "%s", sha);
}

static int add_ancestor(const struct perun_vcs_commit *c, void *data)
{
	sha_add(data, c->checksum);
	return 0;
}

int perun_jobs_shell(const char *cmd, const char *dir, int out_fd, struct perun_error *err)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return perun_error_set_errno(err, PERUN_EGENERIC, errno, "'%s': cannot start", cmd);
	if (pid == 0) {
		dup2(out_fd, STDOUT_FILENO);
		dup2(out_fd, STDERR_FILENO);
		/* Its own process group, so an interrupt stops all of it. */
		setpgid(0, 0);
		if (!dir || chdir(dir) == 0)
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	int status, killed = 0;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return perun_error_set_errno(err, PERUN_EGENERIC, errno, "'%s'", cmd);
		/* Interrupted: stop the command too, then restore. */
		if (interrupted() && !killed++)
			kill(-pid, SIGTERM);
	}
	if (interrupted())
		return perun_error_set(err, PERUN_EINTR, "'%s' was interrupted", cmd);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return perun_error_set(err, PERUN_EGENERIC, "'%s' failed (%s %d)", cmd,
				       WIFEXITED(status) ? "exit" : "signal",
				       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}

/* Run each shell command of pre_run in dir; output to out. */
static int run_pre_run(const json_t *pre_run, const char *dir, FILE *out, const char *sha,
		       struct perun_error *err)
{
	size_t i;
	const json_t *c;
	json_array_foreach(pre_run, i, c)
	{
		const char *cmd = json_string_value(c);
		if (!cmd)
			return perun_error_set(err, PERUN_EINVAL,
					       "execute.pre_run: entry %zu is not a string", i + 1);
		if (out)
			fprintf(out, "pre_run at %.7s: %s\n", sha, cmd);
		int rc = perun_jobs_shell(cmd, dir, out ? fileno(out) : STDERR_FILENO, err);
		if (rc) {
			perun_error_prefix(err, "pre_run at %.7s", sha);
			return rc;
		}
	}
	return 0;
}

int perun_jobs_each_version(struct perun_instance *inst, const struct perun_versions *v,
			    struct perun_error *err)
{
	struct perun_vcs *vcs = &inst->vcs;
	struct sha_list list = { 0 };
	char head[65], sha[65];
	int rc = perun_resolve_minor(inst, NULL, head, err);
	for (size_t i = 0; !rc && i < (v->nrevs ? v->nrevs : 1); i++) {
		const char *rev = v->nrevs ? v->revs[i] : NULL;
		if ((rc = perun_resolve_minor(inst, rev, sha, err)))
			break;
		sha_add(&list, sha);
		if (v->crawl_parents)
			rc = perun_vcs_walk(vcs, sha, add_ancestor, &list, err);
	}
	if (rc)
		goto out;

	struct sigaction sa = { .sa_handler = on_loop_signal }, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	loop_interrupted = 0;
	perun_runner_interrupted = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	int saved = 0;
	size_t rounds = v->rounds > 1 ? v->rounds : 1, visits = list.n * rounds;
	for (size_t k = 0; k < visits && !rc && !interrupted(); k++) {
		size_t round = k / list.n, i = k % list.n;
		if (round % 2)
			i = list.n - 1 - i;
		if (v->round)
			*v->round = round;
		const char *at = list.sha[i];
		if (v->wanted && !v->wanted(i, list.n, v->data))
			continue;
		int moved = strcmp(at, head) != 0;
		struct perun_error verr = { 0 };
		/* Another version: save dirty work and the branch once, under a
		 * supervisor that restores them should this process die. */
		if (moved && !saved) {
			if ((rc = perun_vcs_save_state(vcs, err)))
				break;
			perun_supervise(vcs);
			saved = 1;
		} else if (!moved && saved) {
			/* HEAD runs in place, with the changes. */
			if ((rc = perun_vcs_restore_state(vcs, err)))
				break;
			perun_supervise_release();
			saved = 0;
		}
		int vrc = moved ? perun_vcs_checkout(vcs, at, &verr) : 0;
		if (!vrc && v->pre_run)
			vrc = run_pre_run(v->pre_run, inst->root, v->log, at, &verr);
		if (vrc && verr.code != PERUN_EINTR && v->version_failed)
			v->version_failed(at, &verr, v->data);
		if (!vrc && v->at_version(at, i, list.n, v->data) < 0 && !interrupted())
			loop_interrupted = SIGINT;
	}
	/* Always put the original branch and changes back. */
	if (saved) {
		struct perun_error rerr = { 0 };
		int rrc = perun_vcs_restore_state(vcs, &rerr);
		if (!rrc)
			perun_supervise_release();
		if (rrc && !rc) {
			*err = rerr;
			rc = rrc;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (!rc && interrupted())
		rc = perun_error_set(err, PERUN_EINTR, "interrupted; the working tree is restored");
out:
	free(list.sha);
	return rc;
}

/* ---- the matrix -------------------------------------------------------- */

int perun_matrix_add_word(char ***list, size_t *n, const char *word, struct perun_error *err)
{
	char **grown = realloc(*list, (*n + 1) * sizeof(**list));
	if (!grown || !(grown[*n] = strdup(word))) {
		if (grown)
			*list = grown;
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	*list = grown;
	(*n)++;
	return 0;
}

int perun_matrix_add_unit(struct perun_matrix *m, enum perun_plugin_kind kind, const char *name,
			  const json_t *yaml, struct perun_error *err)
{
	const struct perun_loaded_plugin *plugin = perun_plugin_load(kind, name, err);
	if (!plugin)
		return -err->code;
	if (yaml && !json_is_object(yaml))
		return perun_error_set(err, PERUN_EINVAL, "%s '%s': params are not a mapping",
				       perun_plugin_kind_name(kind), name);
	struct perun_params *params;
	int rc = perun_runner_unit_params(plugin, 0, NULL, yaml, &params, NULL, NULL, err);
	if (rc)
		return rc;
	int post = kind == PERUN_KIND_POSTPROCESS;
	struct perun_unit **units = post ? &m->postprocessors : &m->collectors;
	size_t *n = post ? &m->npostprocessors : &m->ncollectors;
	*units = realloc(*units, (*n + 1) * sizeof(**units));
	(*units)[(*n)++] = (struct perun_unit){ plugin, params };
	return 0;
}

/* A list of strings (or scalars) in local.yml. */
static int config_words(const struct perun_config *cfg, const char *key, char ***list, size_t *n,
			struct perun_error *err)
{
	json_t *v = perun_config_lookup(cfg, key);
	size_t i;
	json_t *item;
	int rc = 0;
	if (v && !json_is_array(v))
		return perun_error_set(err, PERUN_EINVAL, "config '%s' is not a list", key);
	json_array_foreach(v, i, item)
	{
		if (json_is_object(item) || json_is_array(item) || json_is_null(item))
			return perun_error_set(err, PERUN_EINVAL,
					       "config '%s': item %zu is not a word", key, i + 1);
		char *text = json_is_string(item) ? strdup(json_string_value(item))
						  : perun_yaml_format_inline(item);
		rc = perun_matrix_add_word(list, n, text, err);
		free(text);
		if (rc)
			break;
	}
	return rc;
}

static int config_units(struct perun_matrix *m, const struct perun_config *cfg, const char *key,
			enum perun_plugin_kind kind, struct perun_error *err)
{
	json_t *v = perun_config_lookup(cfg, key);
	size_t i;
	json_t *unit;
	if (v && !json_is_array(v))
		return perun_error_set(err, PERUN_EINVAL, "config '%s' is not a list", key);
	json_array_foreach(v, i, unit)
	{
		const char *name = json_string_value(json_object_get(unit, "name"));
		if (!name)
			return perun_error_set(err, PERUN_EINVAL,
					       "config '%s': item %zu has no name", key, i + 1);
		/* Perun's unit names use '_'; ours too, but accept '-' as on the CLI. */
		char fixed[128];
		snprintf(fixed, sizeof(fixed), "%s", name);
		for (char *p = fixed; *p; p++)
			if (*p == '-')
				*p = '_';
		int rc =
			perun_matrix_add_unit(m, kind, fixed, json_object_get(unit, "params"), err);
		if (rc)
			return rc;
	}
	return 0;
}

static void warn_unknown_key(const char *key, const char *hint, void *data)
{
	const struct perun_config *cfg = data;
	const char *file = cfg->path[PERUN_CONFIG_LOCAL];
	perun_warn("%s: unknown key '%s'%s", file ? file : "local.yml", key, hint);
}

int perun_matrix_from_config(struct perun_matrix *m, const struct perun_config *cfg,
			     struct perun_error *err)
{
	perun_config_unknown_keys(cfg, warn_unknown_key, (void *)cfg);
	int rc = config_words(cfg, "cmds", &m->cmds, &m->ncmds, err);
	if (!rc)
		rc = config_words(cfg, "args", &m->args, &m->nargs, err);
	if (!rc)
		rc = config_words(cfg, "workloads", &m->workloads, &m->nworkloads, err);
	if (!rc)
		rc = config_units(m, cfg, "collectors", PERUN_KIND_COLLECT, err);
	if (!rc)
		rc = config_units(m, cfg, "postprocessors", PERUN_KIND_POSTPROCESS, err);
	if (!rc && !m->ncmds)
		rc = perun_error_set(err, PERUN_EINVAL, "no 'cmds' in the local configuration");
	if (!rc && !m->ncollectors)
		rc = perun_error_set(err, PERUN_EINVAL,
				     "no 'collectors' in the local configuration");
	return rc;
}

static void free_words(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

void perun_matrix_release(struct perun_matrix *m)
{
	free_words(m->cmds, m->ncmds);
	free_words(m->args, m->nargs);
	free_words(m->workloads, m->nworkloads);
	for (size_t i = 0; i < m->ncollectors; i++)
		perun_params_free(m->collectors[i].params);
	for (size_t i = 0; i < m->npostprocessors; i++)
		perun_params_free(m->postprocessors[i].params);
	free(m->collectors);
	free(m->postprocessors);
	memset(m, 0, sizeof(*m));
}

/* ---- running ----------------------------------------------------------- */

struct run {
	struct perun_instance *inst;
	const struct perun_matrix *m;
	const struct perun_run_opts *opts;
	struct perun_run_result *res;
	FILE *log;
	char *tmpdir;
	struct timespec start;
	size_t per_version; /* jobs at one version */
	size_t done;	    /* jobs done so far over all versions */
	size_t total;
	size_t vi;	   /* the version being visited */
	size_t round;	   /* its round (perun_run_opts.rounds) */
	struct gathered {  /* a job's profile over the rounds so far */
		char *key; /* job, newline, workload */
		struct perun_profile *profile;
		size_t rounds;
	} * gathered;
	size_t ngathered;
	char run_id[96];	    /* header interleaved_run of the rounds' profiles */
	char dirty[PERUN_SHA1_HEX]; /* its uncommitted changes' diff, or "" */
	int progress_shown;
};

/* Is job j of version vi in this run's shard? */
static int in_shard(const struct run *r, size_t vi, size_t j)
{
	size_t n = r->opts->shard_count;
	return n <= 1 || (vi * r->per_version + j) % n == r->opts->shard_index;
}

/* The jobs of version vi in this run's shard. */
static size_t shard_jobs(const struct run *r, size_t vi)
{
	size_t count = 0;
	for (size_t j = 0; j < r->per_version; j++)
		count += in_shard(r, vi, j);
	return count;
}

static int version_wanted(size_t vi, size_t nv, void *data)
{
	struct run *r = data;
	if (r->total == 0)
		for (size_t i = 0; i < nv; i++)
			r->total += shard_jobs(r, i) * (r->opts->rounds > 1 ? r->opts->rounds : 1);
	r->vi = vi;
	return shard_jobs(r, vi) > 0;
}

int perun_shard_parse(const char *text, size_t *index, size_t *count, struct perun_error *err)
{
	char *end;
	unsigned long long i = strtoull(text, &end, 10), n = 0;
	int ok = end != text && *end == '/' && text[0] != '-';
	if (ok) {
		const char *rest = end + 1;
		n = strtoull(rest, &end, 10);
		ok = end != rest && !*end && rest[0] != '-' && i >= 1 && i <= n;
	}
	if (!ok)
		return perun_error_set(err, PERUN_EINVAL,
				       "--shard '%s': not <i>/<n> with 1 <= i <= n", text);
	*index = (size_t)(i - 1);
	*count = (size_t)n;
	return 0;
}

static double elapsed(const struct run *r)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - r->start.tv_sec) + (now.tv_nsec - r->start.tv_nsec) / 1e9;
}

PERUN_PRINTF(2, 3)
static void log_line(struct run *r, const char *fmt, ...)
{
	if (!r->log)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(r->log, fmt, ap);
	va_end(ap);
	fputc('\n', r->log);
	fflush(r->log);
}

PERUN_PRINTF(3, 4)
static void record_failure(struct run *r, const struct perun_error *err, const char *fmt, ...)
{
	char what[1024], *line;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (asprintf(&line, "%s: %s", what, err->message) < 0)
		return;
	r->res->failures = realloc(r->res->failures, (r->res->nfailures + 1) * sizeof(char *));
	r->res->failures[r->res->nfailures++] = line;
	r->res->usage_failures += err->code == PERUN_EINVAL;
	log_line(r, "FAILED %s", line);
}

static void progress(struct run *r, const char *sha, size_t vi, size_t nv, const char *what)
{
	if (!r->opts->progress)
		return;
	fprintf(stderr, "\r\033[K[%.7s %zu/%zu] job %zu/%zu (%zu left, %.1fs) %s", sha, vi + 1, nv,
		r->done + 1, r->total, r->total - r->done - 1, elapsed(r), what);
	fflush(stderr);
	r->progress_shown = 1;
}

/*
 * A profile whose postprocessing failed is kept as collected (raw, its
 * text taken before the first step), pending, so the collection is not
 * lost; the job still counts as failed.
 */
static void keep_raw(struct run *r, const char *raw, size_t len, const char *job)
{
	struct perun_error err = { 0 };
	struct perun_profile *profile = NULL;
	char path[PATH_MAX];
	int rc = raw ? perun_profile_load_buffer(raw, len, "the raw profile", &profile, &err)
		     : perun_error_set(&err, PERUN_EGENERIC, "out of memory");
	if (!rc)
		rc = perun_runner_store(r->inst, profile, NULL, r->opts->profile_template,
					PERUN_STORE_PENDING, path, &err);
	perun_profile_free(profile);
	if (rc) {
		log_line(r, "warning: %s: the raw profile is lost: %s", job, err.message);
		return;
	}
	r->res->kept_raw++;
	log_line(r, "kept %s unpostprocessed: %s", job, path);
}

static int merge_tagged(struct perun_profile **into, struct perun_profile *from,
			const json_t *value, const json_t *props, struct perun_error *err);

/*
 * Interleaved rounds: gather profile (a job's collection in this round)
 * into the job's profile of the earlier rounds.  Sets *whole to the
 * profile of every round, the caller's to store, after the last round;
 * to NULL before it.
 */
static int gather_round(struct run *r, struct perun_profile *profile, const char *job,
			struct perun_profile **whole, struct perun_error *err)
{
	char *key;
	*whole = NULL;
	if (asprintf(&key, "%s\n%s", job, perun_profile_header(profile, "workload")) < 0)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	size_t i = 0;
	while (i < r->ngathered && strcmp(r->gathered[i].key, key))
		i++;
	if (i == r->ngathered) {
		struct gathered *g = realloc(r->gathered, (i + 1) * sizeof(*g));
		if (!g) {
			free(key);
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		}
		r->gathered = g;
		g[i] = (struct gathered){ .key = key };
		r->ngathered++;
	} else {
		free(key);
	}
	struct gathered *g = &r->gathered[i];
	if (merge_tagged(&g->profile, profile, NULL, NULL, err))
		return -err->code;
	g->rounds++;
	if (r->round + 1 < r->opts->rounds)
		return 0;
	*whole = g->profile;
	free(g->key);
	r->gathered[i] = r->gathered[--r->ngathered];
	return 0;
}

static int store_profile(struct run *r, struct perun_profile *profile, const char *job,
			 struct perun_error *err);

/* Store the profile of a job's rounds, marked with the run. */
static int store_rounds(struct run *r, struct perun_profile *whole, const char *job,
			struct perun_error *err)
{
	if (perun_profile_set_header(whole, "interleaved_run", r->run_id)) {
		perun_error_set(err, PERUN_EGENERIC, "out of memory");
		record_failure(r, err, "%s", job);
		return -1;
	}
	return store_profile(r, whole, job, err);
}

/* A job's profile of this round: stored now, or gathered over the rounds. */
static int finish_profile(struct run *r, struct perun_profile *profile, const char *job,
			  struct perun_error *err)
{
	if (r->opts->rounds <= 1)
		return store_profile(r, profile, job, err);
	struct perun_profile *whole;
	if (gather_round(r, profile, job, &whole, err)) {
		record_failure(r, err, "%s", job);
		return -1;
	}
	if (!whole) {
		log_line(r, "gathered %s: round %zu of %zu", job, r->round + 1, r->opts->rounds);
		return 0;
	}
	int rc = store_rounds(r, whole, job, err);
	perun_profile_free(whole);
	return rc;
}

/* Profiles of jobs that failed in a later round: stored with the rounds
 * they have (the failure is already recorded), unless interrupted. */
static void store_gathered_rest(struct run *r)
{
	for (size_t i = 0; i < r->ngathered; i++) {
		struct gathered *g = &r->gathered[i];
		struct perun_error err = { 0 };
		char *job = g->key;
		job[strcspn(job, "\n")] = '\0';
		if (!g->profile) {
			/* its first round failed to gather: recorded already */
		} else if (r->res->interrupted) {
			log_line(r, "dropped %s: interrupted after %zu of %zu rounds", job,
				 g->rounds, r->opts->rounds);
		} else {
			log_line(r, "%s: only %zu of %zu rounds", job, g->rounds, r->opts->rounds);
			store_rounds(r, g->profile, job, &err);
		}
		perun_profile_free(g->profile);
		free(g->key);
	}
	free(r->gathered);
	r->gathered = NULL;
	r->ngathered = 0;
}

static int store_profile(struct run *r, struct perun_profile *profile, const char *job,
			 struct perun_error *err)
{
	char warning[2048], path[PATH_MAX];
	size_t rawlen = 0;
	char *raw = r->m->npostprocessors
			    ? perun_profile_dump(profile, PERUN_DUMP_COMPACT, 1, &rawlen)
			    : NULL;
	for (size_t p = 0; p < r->m->npostprocessors; p++) {
		const struct perun_unit *u = &r->m->postprocessors[p];
		if (perun_runner_postprocess(u->plugin, u->params, profile, warning,
					     sizeof(warning), err)) {
			record_failure(r, err, "%s", job);
			keep_raw(r, raw, rawlen, job);
			free(raw);
			return -1;
		}
		if (warning[0])
			log_line(r, "warning: %s: postprocessor '%s': %s", job, u->plugin->name,
				 warning);
	}
	free(raw);
	path[0] = '\0';
	if (perun_runner_store(r->inst, profile, NULL, r->opts->profile_template, 0, path, err)) {
		record_failure(r, err, "%s", job);
		return -1;
	}
	r->res->stored++;
	log_line(r, "stored %s: %s", job, path[0] ? path : "into the index");
	return 0;
}

/* Copy profile's resources into *into (created like profile when NULL),
 * each carrying the workload value and the generator's properties. */
static int add_tagged_resources(const json_t *row, void *data)
{
	void **ctx = data;
	json_t *copy = json_copy((json_t *)row);
	if (ctx[1])
		json_object_set((json_t *)copy, "workload", (json_t *)ctx[1]);
	if (ctx[2])
		json_object_update(copy, (json_t *)ctx[2]);
	int rc = perun_profile_add_resource(ctx[0], copy, ctx[3]);
	json_decref(copy);
	return rc;
}

/* value and props NULL: the resources as they are. */
static int merge_tagged(struct perun_profile **into, struct perun_profile *from,
			const json_t *value, const json_t *props, struct perun_error *err)
{
	if (!*into) {
		*into = perun_profile_new(perun_profile_type(from));
		const char *key;
		json_t *v;
		json_object_foreach(perun_profile_json(from), key,
				    v) if (strcmp(key, "resources") &&
					   strcmp(key, "resource_type_map"))
			json_object_set_new(perun_profile_json(*into), key, json_deep_copy(v));
	}
	void *ctx[4] = { *into, (void *)value, (void *)props, err };
	return perun_profile_foreach_resource(from, add_tagged_resources, ctx) ? -err->code : 0;
}

/* One job: a collector on cmd args workload, then the postprocessors. */
static int run_job(struct run *r, const char *sha, const struct perun_unit *c, const char *cmd,
		   const char *args, const char *workload, const char *job)
{
	struct perun_error err = { 0 };
	struct perun_workload_gen *gen = NULL;
	struct perun_profile *merged = NULL;
	int failed = 0, rc = 0;
	if (perun_workload_open(&r->inst->config, workload, r->tmpdir, &gen, &err)) {
		record_failure(r, &err, "%s", job);
		return 1;
	}
	int generated = perun_workload_is_generated(gen);
	int for_each = perun_workload_for_each(gen);
	for (;;) {
		const char *text;
		const json_t *value, *props;
		int done;
		if (perun_workload_next(gen, &text, &value, &props, &done, &err)) {
			record_failure(r, &err, "%s", job);
			failed = 1;
			break;
		}
		if (done)
			break;
		struct perun_job unit_job = {
			.cmd = cmd, .args = args, .workload = text, .timeout = r->opts->timeout
		};
		struct perun_profile *profile = NULL;
		log_line(r, "collect %s: workload '%s'", job, text);
		if (perun_runner_collect(c->plugin, c->params, &unit_job, sha, &profile, &err)) {
			record_failure(r, &err, "%s workload '%s'", job, text);
			failed = 1;
			if (err.code == PERUN_EINTR) {
				rc = -1;
				break;
			}
			if (!for_each && generated)
				break; /* a merged profile would miss this value */
			continue;
		}
		if (profile && r->dirty[0])
			perun_worktree_mark(profile, r->dirty);
		if (!profile) {
			log_line(r, "%s workload '%s': the collector made no profile on purpose",
				 job, text);
		} else if (!generated) {
			if (finish_profile(r, profile, job, &err))
				failed = 1;
		} else if (for_each) {
			struct perun_profile *tagged = NULL;
			char name[512];
			char *flat = perun_value_flatten_dup(value);
			snprintf(name, sizeof(name), "%s_%s", workload, flat);
			free(flat);
			if (merge_tagged(&tagged, profile, value, props, &err)) {
				record_failure(r, &err, "%s", job);
				failed = 1;
			} else {
				perun_profile_set_header(tagged, "workload", name);
				if (finish_profile(r, tagged, job, &err))
					failed = 1;
			}
			perun_profile_free(tagged);
		} else if (merge_tagged(&merged, profile, value, props, &err)) {
			record_failure(r, &err, "%s", job);
			failed = 1;
		}
		perun_profile_free(profile);
		if (interrupted()) {
			rc = -1;
			break;
		}
	}
	if (merged && !failed) {
		perun_profile_set_header(merged, "workload", workload);
		if (finish_profile(r, merged, job, &err))
			failed = 1;
	}
	perun_profile_free(merged);
	perun_workload_close(gen);
	r->res->failed += failed;
	return rc;
}

static void version_failed(const char *sha, const struct perun_error *err, void *data);

static int at_version(const char *sha, size_t vi, size_t nv, void *data)
{
	struct run *r = data;
	const struct perun_matrix *m = r->m;
	size_t j = 0;
	struct perun_error err = { 0 };
	log_line(r, "version %s (%zu/%zu)", sha, vi + 1, nv);
	if (perun_worktree_diff(r->inst, sha, r->dirty, &err)) {
		version_failed(sha, &err, r);
		return 0;
	}
	if (r->dirty[0])
		log_line(r, "uncommitted changes at %.7s: profiles marked dirty, diff %.12s", sha,
			 r->dirty);
	for (size_t c = 0; c < m->ncmds; c++)
		for (size_t a = 0; a < m->nargs; a++)
			for (size_t w = 0; w < m->nworkloads; w++)
				for (size_t u = 0; u < m->ncollectors; u++) {
					if (!in_shard(r, vi, j++))
						continue;
					char job[1024];
					snprintf(job, sizeof(job), "%.7s %s: %s%s%s%s%s", sha,
						 m->collectors[u].plugin->name, m->cmds[c],
						 m->args[a][0] ? " " : "", m->args[a],
						 m->workloads[w][0] ? " " : "", m->workloads[w]);
					progress(r, sha, vi, nv, job);
					r->res->jobs++;
					int rc = run_job(r, sha, &m->collectors[u], m->cmds[c],
							 m->args[a], m->workloads[w], job);
					r->done++;
					if (rc < 0 || interrupted())
						return -1;
				}
	return 0;
}

static void version_failed(const char *sha, const struct perun_error *err, void *data)
{
	struct run *r = data;
	/* Every job of the version (in the shard) fails with it. */
	size_t jobs = shard_jobs(r, r->vi);
	r->res->jobs += jobs;
	r->res->failed += jobs;
	r->done += jobs;
	record_failure(r, err, "%.7s (all %zu jobs)", sha, jobs);
}

int perun_jobs_run(struct perun_instance *inst, const struct perun_matrix *m,
		   const struct perun_run_opts *opts, struct perun_run_result *res,
		   struct perun_error *err)
{
	struct run r = { .inst = inst, .m = m, .opts = opts, .res = res };
	memset(res, 0, sizeof(*res));
	clock_gettime(CLOCK_MONOTONIC, &r.start);
	r.per_version = m->ncmds * m->nargs * m->nworkloads * m->ncollectors;

	char *logs = perun_instance_path(inst, "logs");
	r.tmpdir = perun_instance_path(inst, "tmp");
	int rc = perun_mkdirs(logs, 0755, err);
	if (!rc)
		rc = perun_mkdirs(r.tmpdir, 0755, err);
	if (!rc) {
		char stamp[64];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%d-%H-%M-%S", &tm);
		snprintf(r.run_id, sizeof(r.run_id), "%s-%d", stamp, (int)getpid());
		if (asprintf(&res->log_path, "%s/run-%s.log", logs, r.run_id) < 0)
			res->log_path = NULL;
		r.log = res->log_path ? fopen(res->log_path, "w") : NULL;
		if (!r.log)
			rc = perun_error_set_errno(err, PERUN_EGENERIC, errno,
						   "cannot create a log in '%s'", logs);
	}
	if (rc)
		goto out;
	struct perun_versions v = {
		.revs = opts->revs,
		.nrevs = opts->nrevs,
		.crawl_parents = opts->crawl_parents,
		.pre_run = perun_config_lookup(&inst->config, "execute.pre_run"),
		.log = r.log,
		.at_version = at_version,
		.version_failed = version_failed,
		.wanted = version_wanted,
		.data = &r,
		.rounds = opts->rounds,
		.round = &r.round,
	};
	if (v.pre_run && !json_is_array(v.pre_run)) {
		rc = perun_error_set(err, PERUN_EINVAL, "config 'execute.pre_run' is not a list");
		goto out;
	}
	rc = perun_jobs_each_version(inst, &v, err);
	if (rc == -PERUN_EINTR) {
		res->interrupted = 1;
		rc = 0;
	}
	store_gathered_rest(&r);
	log_line(&r, "%zu jobs, %zu failed, %zu profiles stored, %zu kept raw, %.3fs%s", res->jobs,
		 res->failed, res->stored, res->kept_raw, elapsed(&r),
		 res->interrupted ? ", interrupted" : "");
out:
	if (r.progress_shown)
		fputs("\r\033[K", stderr);
	if (r.log)
		fclose(r.log);
	free(logs);
	free(r.tmpdir);
	return rc;
}

void perun_run_result_release(struct perun_run_result *res)
{
	for (size_t i = 0; i < res->nfailures; i++)
		free(res->failures[i]);
	free(res->failures);
	free(res->log_path);
	memset(res, 0, sizeof(*res));
}
