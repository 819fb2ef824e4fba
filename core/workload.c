/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Workload generators (generators.workload): expanding a job's workload. */
#define _GNU_SOURCE /* asprintf */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "jobs.h"
#include "workload.h"

enum gen_type { GEN_SINGLETON, GEN_INTEGER, GEN_STRING, GEN_TEXTFILE, GEN_EXTERNAL };

struct perun_workload_gen {
	enum gen_type type;
	int generated, for_each;
	long long min, max, step; /* integer: range; string: lengths; textfile: lines */
	long long min_rows, max_rows;
	int randomize_rows;
	long long next; /* the next value of the range */
	int started;
	const char *tmpdir;
	char *path; /* the current generated file, removed on next */
	char text[64];
	json_t *value, *ctx, *singleton;
	char **files; /* external: the generated files, sorted */
	size_t nfiles, ifile;
	char *file_format, *delimiters;
};

/* A parameter as Python's int(): integers or integer text. */
static int spec_int(const json_t *spec, const char *id, const char *key, long long fallback,
		    int required, long long *out, struct perun_error *err)
{
	const json_t *v = json_object_get(spec, key);
	char *end;
	if (!v) {
		if (required)
			return perun_error_set(err, PERUN_EINVAL,
					       "workload generator '%s' needs '%s'", id, key);
		*out = fallback;
		return 0;
	}
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	if (json_is_string(v)) {
		errno = 0;
		*out = strtoll(json_string_value(v), &end, 10);
		if (!errno && end != json_string_value(v) && !*end)
			return 0;
	}
	return perun_error_set(err, PERUN_EINVAL, "workload generator '%s': '%s' is not an integer",
			       id, key);
}

/* Python's strtobool of str(value). */
static int spec_bool(const json_t *spec, const char *id, const char *key, int fallback, int *out,
		     struct perun_error *err)
{
	static const char *const yes[] = { "y", "yes", "t", "true", "on", "1" };
	static const char *const no[] = { "n", "no", "f", "false", "off", "0" };
	const json_t *v = json_object_get(spec, key);
	if (!v) {
		*out = fallback;
		return 0;
	}
	if (json_is_boolean(v) || json_is_integer(v)) {
		*out = json_is_true(v) || (json_is_integer(v) && json_integer_value(v) == 1);
		if (json_is_integer(v) && json_integer_value(v) > 1)
			goto bad;
		return 0;
	}
	for (size_t i = 0; json_is_string(v) && i < sizeof(yes) / sizeof(*yes); i++) {
		if (!strcasecmp(json_string_value(v), yes[i]))
			return *out = 1, 0;
		if (!strcasecmp(json_string_value(v), no[i]))
			return *out = 0, 0;
	}
bad:
	return perun_error_set(err, PERUN_EINVAL, "workload generator '%s': '%s' is not a boolean",
			       id, key);
}

static const char *spec_string(const json_t *spec, const char *key)
{
	return json_string_value(json_object_get(spec, key));
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int open_external(struct perun_workload_gen *g, const json_t *spec, const char *id,
			 struct perun_error *err)
{
	const char *cmd = spec_string(spec, "external_generator");
	const char *dir = spec_string(spec, "output_dir");
	const char *fmt = spec_string(spec, "file_format");
	const char *delim = spec_string(spec, "delimiters");
	if (!cmd || !dir || !fmt)
		return perun_error_set(err, PERUN_EINVAL,
				       "workload generator '%s' needs 'external_generator', "
				       "'output_dir' and 'file_format'",
				       id);
	if (delim && strlen(delim) != 2)
		return perun_error_set(
			err, PERUN_EINVAL,
			"workload generator '%s': 'delimiters' must be two characters", id);
	g->file_format = strdup(fmt);
	g->delimiters = strdup(delim ? delim : "{}");
	int rc = perun_jobs_shell(cmd, NULL, STDERR_FILENO, err);
	if (rc) {
		perun_error_prefix(err, "workload generator '%s'", id);
		return rc;
	}
	DIR *d = opendir(dir);
	if (!d)
		return perun_error_set_errno(err, PERUN_EINVAL, errno,
					     "workload generator '%s': cannot read '%s'", id, dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *path;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
			break;
		g->files = realloc(g->files, (g->nfiles + 1) * sizeof(*g->files));
		g->files[g->nfiles++] = path;
	}
	closedir(d);
	qsort(g->files, g->nfiles, sizeof(*g->files), by_name);
	return 0;
}

int perun_workload_open(const struct perun_config *cfg, const char *workload, const char *tmpdir,
			struct perun_workload_gen **out, struct perun_error *err)
{
	struct perun_workload_gen *g = calloc(1, sizeof(*g));
	json_t *specs = perun_config_gather(cfg, "generators.workload");
	const json_t *spec = NULL, *s;
	size_t i;
	int rc = 0;
	json_array_foreach(specs, i, s)
	{
		const char *id = spec_string(s, "id");
		if (id && !strcmp(id, workload))
			spec = s;
	}
	g->tmpdir = tmpdir;
	g->step = 1;
	if (!spec) {
		g->type = GEN_SINGLETON;
		g->singleton = json_string(workload);
		goto out;
	}
	g->generated = 1;
	static const char *const types[] = { "singleton", "integer", "string", "textfile",
					     "external" };
	const char *type = spec_string(spec, "type");
	for (i = 0; type && i < sizeof(types) / sizeof(*types); i++)
		if (!strcmp(type, types[i]))
			break;
	if (!type || i == sizeof(types) / sizeof(*types)) {
		rc = perun_error_set(err, PERUN_EINVAL,
				     "workload generator '%s' has unknown type '%s'", workload,
				     type ? type : "");
		goto out;
	}
	g->type = (enum gen_type)i;
	if ((rc = spec_bool(spec, workload, "profile_for_each_workload", 0, &g->for_each, err)))
		goto out;
	switch (g->type) {
	case GEN_SINGLETON:
		if (!json_object_get(spec, "value"))
			rc = perun_error_set(err, PERUN_EINVAL,
					     "workload generator '%s' needs 'value'", workload);
		else
			g->singleton = json_incref(json_object_get(spec, "value"));
		break;
	case GEN_INTEGER:
		if (!(rc = spec_int(spec, workload, "min_range", 0, 1, &g->min, err)) &&
		    !(rc = spec_int(spec, workload, "max_range", 0, 1, &g->max, err)))
			rc = spec_int(spec, workload, "step", 1, 0, &g->step, err);
		break;
	case GEN_STRING:
		if (!(rc = spec_int(spec, workload, "min_len", 0, 1, &g->min, err)) &&
		    !(rc = spec_int(spec, workload, "max_len", 0, 1, &g->max, err)))
			rc = spec_int(spec, workload, "step_len", 1, 0, &g->step, err);
		break;
	case GEN_TEXTFILE:
		if (!(rc = spec_int(spec, workload, "min_lines", 0, 1, &g->min, err)) &&
		    !(rc = spec_int(spec, workload, "max_lines", 0, 1, &g->max, err)) &&
		    !(rc = spec_int(spec, workload, "step", 1, 0, &g->step, err)) &&
		    !(rc = spec_int(spec, workload, "min_rows", 5, 0, &g->min_rows, err)) &&
		    !(rc = spec_int(spec, workload, "max_rows", 80, 0, &g->max_rows, err)))
			rc = spec_bool(spec, workload, "randomize_rows", 1, &g->randomize_rows,
				       err);
		/* As Perun: rows are at least 5 characters. */
		if (g->min_rows < 5)
			g->min_rows = 5;
		if (g->max_rows < g->min_rows)
			g->max_rows = g->min_rows;
		break;
	case GEN_EXTERNAL: rc = open_external(g, spec, workload, err); break;
	}
	if (!rc && g->step <= 0)
		rc = perun_error_set(err, PERUN_EINVAL,
				     "workload generator '%s': the step must be positive",
				     workload);
	if (!rc && g->min < 0 && g->type != GEN_INTEGER)
		rc = perun_error_set(err, PERUN_EINVAL, "workload generator '%s': negative length",
				     workload);
out:
	json_decref(specs);
	if (rc) {
		perun_workload_close(g);
		return rc;
	}
	g->next = g->min;
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	*out = g;
	return 0;
}

static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

static long long rand_between(long long lo, long long hi)
{
	return lo + (long long)(rand() % (int)(hi - lo + 1));
}

/* A text file of lines lines of random words, as Perun's textfile does. */
static int write_textfile(struct perun_workload_gen *g, long long lines, struct perun_error *err)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/workload-XXXXXX", g->tmpdir);
	int fd = mkstemp(path);
	if (fd < 0)
		return perun_error_set_errno(err, PERUN_EGENERIC, errno,
					     "cannot create a workload file in '%s'", g->tmpdir);
	FILE *f = fdopen(fd, "w");
	for (long long l = 0; f && l < lines; l++) {
		long long len = g->randomize_rows ? rand_between(g->min_rows, g->max_rows + 1)
						  : g->max_rows;
		for (long long c = 0; c < len; c++) {
			/* Words of 1-8 letters separated by single spaces. */
			int space = c > 0 && c + 1 < len && rand() % 6 == 0;
			fputc(space ? ' ' : alnum[26 + rand() % 26], f);
		}
		fputc('\n', f);
	}
	if (!f || fclose(f)) {
		unlink(path);
		return perun_error_set_errno(err, PERUN_EGENERIC, errno,
					     "cannot write workload file '%s'", path);
	}
	g->path = strdup(path);
	return 0;
}

/* Parse the fields of an external generator's file name by its format. */
static json_t *parse_fields(const char *fmt, const char *delim, const char *name)
{
	json_t *ctx = json_object();
	const char *f = fmt, *n = name;
	while (*f && *n) {
		if (*f != delim[0]) {
			if (*f++ != *n++)
				break;
			continue;
		}
		const char *close = strchr(f, delim[1]);
		if (!close)
			break;
		char key[128];
		snprintf(key, sizeof(key), "%.*s", (int)(close - f - 1), f + 1);
		f = close + 1;
		/* The field ends where the next literal character of the format is. */
		const char *end = *f ? strchr(n, *f) : n + strlen(n);
		if (!end)
			break;
		char val[256];
		snprintf(val, sizeof(val), "%.*s", (int)(end - n), n);
		n = end;
		json_t *num = NULL;
		char *e;
		long long i = strtoll(val, &e, 10);
		if (*val && !*e) {
			num = json_integer(i);
		} else {
			double d = strtod(val, &e);
			num = *val && !*e ? json_real(d) : json_string(val);
		}
		json_object_set_new(ctx, key, num);
	}
	return ctx;
}

int perun_workload_next(struct perun_workload_gen *g, const char **text, const json_t **value,
			const json_t **ctx, int *done, struct perun_error *err)
{
	if (g->path) {
		if (g->type == GEN_TEXTFILE)
			unlink(g->path);
		free(g->path);
		g->path = NULL;
	}
	json_decref(g->value);
	json_decref(g->ctx);
	g->value = NULL;
	g->ctx = json_object();
	*done = 0;
	*ctx = g->ctx;
	switch (g->type) {
	case GEN_SINGLETON:
		if (g->started)
			break;
		g->started = 1;
		g->value = json_incref(g->singleton);
		if (json_is_string(g->value)) {
			*text = json_string_value(g->value);
		} else {
			char *flat = perun_yaml_format_inline(g->value);
			snprintf(g->text, sizeof(g->text), "%s", flat);
			free(flat);
			*text = g->text;
		}
		*value = g->value;
		return 0;
	case GEN_INTEGER:
	case GEN_STRING:
	case GEN_TEXTFILE:
		if (g->next > g->max)
			break;
		long long v = g->next;
		g->next += g->step;
		if (g->type == GEN_INTEGER) {
			snprintf(g->text, sizeof(g->text), "%lld", v);
			g->value = json_integer(v);
			*text = g->text;
		} else if (g->type == GEN_STRING) {
			char *s = malloc((size_t)v + 1);
			for (long long c = 0; c < v; c++)
				s[c] = alnum[rand() % (int)(sizeof(alnum) - 1)];
			s[v] = '\0';
			g->value = json_string(s);
			free(s);
			*text = json_string_value(g->value);
		} else {
			int rc = write_textfile(g, v, err);
			if (rc)
				return rc;
			g->value = json_string(g->path);
			*text = g->path;
		}
		*value = g->value;
		return 0;
	case GEN_EXTERNAL:
		if (g->ifile >= g->nfiles)
			break;
		const char *path = g->files[g->ifile++];
		const char *base = strrchr(path, '/');
		json_decref(g->ctx);
		g->ctx = parse_fields(g->file_format, g->delimiters, base ? base + 1 : path);
		*ctx = g->ctx;
		g->value = json_string(path);
		*text = path;
		*value = g->value;
		return 0;
	}
	*done = 1;
	return 0;
}

int perun_workload_is_generated(const struct perun_workload_gen *g)
{
	return g->generated;
}

int perun_workload_for_each(const struct perun_workload_gen *g)
{
	return g->for_each;
}

void perun_workload_close(struct perun_workload_gen *g)
{
	if (!g)
		return;
	if (g->path && g->type == GEN_TEXTFILE)
		unlink(g->path);
	free(g->path);
	json_decref(g->value);
	json_decref(g->ctx);
	json_decref(g->singleton);
	for (size_t i = 0; i < g->nfiles; i++)
		free(g->files[i]);
	free(g->files);
	free(g->file_format);
	free(g->delimiters);
	free(g);
}
