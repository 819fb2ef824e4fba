/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bounds - static bounds of the loops of C sources (Python Perun's bounds
 * collector, without Loopus): nothing is run, the sources are parsed with
 * libclang and analysed (analyse.c).  Each loop gets a "local bound"
 * resource, each function a "total bound" one, keyed by
 * file:function:line:column as Python Perun's are.  A file that does not
 * parse gets its compiler diagnostics on stderr and the others are still
 * analysed; only when none parses does the collection fail.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <clang-c/CXCompilationDatabase.h>
#include <perun/perun.h>

#include "analyse.h"

static const struct perun_option bounds_options[] = {
	{ "source", "s", PERUN_OPTION_STRING, NULL, NULL, "<path>", "a C file to analyse",
	  PERUN_OPTION_MULTIPLE },
	{ "source-dir", "d", PERUN_OPTION_STRING, NULL, NULL, "<dir>",
	  "analyse every .c file under <dir> (and use its compile_commands.json)",
	  PERUN_OPTION_MULTIPLE },
	{ "include", "I", PERUN_OPTION_STRING, NULL, NULL, "<dir>", "add <dir> to the include path",
	  PERUN_OPTION_MULTIPLE },
	{ "define", "D", PERUN_OPTION_STRING, NULL, NULL, "<name[=value]>", "define a macro",
	  PERUN_OPTION_MULTIPLE },
	{ "compile-commands", "p", PERUN_OPTION_STRING, NULL, NULL, "<dir>",
	  "take each file's flags from <dir>/compile_commands.json", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

struct strv {
	char **v;
	size_t n;
};

static void strv_push(struct strv *s, const char *x)
{
	char **v = realloc(s->v, (s->n + 2) * sizeof(*v));
	char *d = strdup(x);
	if (!v || !d)
		abort();
	s->v = v;
	s->v[s->n++] = d;
	s->v[s->n] = NULL;
}

static void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .c file under dir, recursively, in a stable order. */
static int list_dir(const char *dir, struct strv *out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct strv here = { NULL, 0 };
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char *p;
		struct stat sb;
		if (e->d_name[0] == '.')
			continue;
		if (asprintf(&p, "%s/%s", dir, e->d_name) < 0)
			abort();
		if (!stat(p, &sb) && S_ISDIR(sb.st_mode))
			strv_push(&here, p);
		else if (!stat(p, &sb) && S_ISREG(sb.st_mode) && strlen(e->d_name) > 2 &&
			 !strcmp(e->d_name + strlen(e->d_name) - 2, ".c"))
			strv_push(&here, p);
		free(p);
	}
	closedir(d);
	if (here.n)
		qsort(here.v, here.n, sizeof(*here.v), cmp_str);
	for (size_t i = 0; i < here.n; i++) {
		struct stat sb;
		if (!stat(here.v[i], &sb) && S_ISDIR(sb.st_mode))
			list_dir(here.v[i], out);
		else
			strv_push(out, here.v[i]);
	}
	strv_free(&here);
	return 0;
}

struct bounds_state {
	struct strv files;
	struct strv flags; /* -I and -D of the options */
	char *ccdb_dir;	   /* a directory with compile_commands.json */
	CXCompilationDatabase ccdb;
	struct perun_collect_ctx *ctx;
	struct perun_error *err;
	int rc;
};

static int emit(const struct bound_result *r, void *data)
{
	struct bounds_state *st = data;
	json_t *res = json_pack("{s:{s:s, s:s, s:i, s:i}, s:s, s:s, s:s, s:s}", "uid", "source",
				r->source, "function", r->function, "line", (int)r->line, "column",
				(int)r->column, "type", r->total ? "total bound" : "local bound",
				"bound", r->bound, "class", r->klass, "time", "0.0");
	if (res && r->reason)
		json_object_set_new(res, "reason", json_string(r->reason));
	if (!res)
		return perun_error_set(st->err, PERUN_EGENERIC, "out of memory");
	int rc = perun_profile_add_resource(st->ctx->profile, res, st->err);
	json_decref(res);
	return rc ? rc : 0;
}

static int bounds_before(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct bounds_state *st = calloc(1, sizeof(*st));
	if (!st)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	ctx->state = st;
	size_t ns = perun_params_count(ctx->params, "source");
	size_t nd = perun_params_count(ctx->params, "source-dir");
	for (size_t i = 0; i < ns; i++)
		strv_push(&st->files, perun_params_string_at(ctx->params, "source", i));
	for (size_t i = 0; i < nd; i++) {
		const char *dir = perun_params_string_at(ctx->params, "source-dir", i);
		if (list_dir(dir, &st->files))
			return perun_error_set_errno(err, PERUN_EINVAL, errno,
						     "cannot read source directory '%s'", dir);
		char *cc;
		if (asprintf(&cc, "%s/compile_commands.json", dir) < 0)
			abort();
		if (!st->ccdb_dir && !access(cc, R_OK))
			st->ccdb_dir = strdup(dir);
		free(cc);
	}
	const char *p = perun_params_string(ctx->params, "compile-commands", NULL);
	if (p) {
		free(st->ccdb_dir);
		st->ccdb_dir = strdup(p);
	}
	if (st->ccdb_dir) {
		CXCompilationDatabase_Error e;
		st->ccdb = clang_CompilationDatabase_fromDirectory(st->ccdb_dir, &e);
		if (e != CXCompilationDatabase_NoError) {
			st->ccdb = NULL;
			if (p)
				return perun_error_set(err, PERUN_EINVAL,
						       "cannot read '%s/compile_commands.json'", p);
		}
	}
	if (!st->files.n)
		return perun_error_set(err, PERUN_EINVAL,
				       "no C source to analyse (give --source or --source-dir)");
	size_t ni = perun_params_count(ctx->params, "include");
	size_t ndef = perun_params_count(ctx->params, "define");
	for (size_t i = 0; i < ni; i++) {
		char *a;
		if (asprintf(&a, "-I%s", perun_params_string_at(ctx->params, "include", i)) < 0)
			abort();
		strv_push(&st->flags, a);
		free(a);
	}
	for (size_t i = 0; i < ndef; i++) {
		char *a;
		if (asprintf(&a, "-D%s", perun_params_string_at(ctx->params, "define", i)) < 0)
			abort();
		strv_push(&st->flags, a);
		free(a);
	}
	return 0;
}

/* The flags of one file: those of compile_commands.json (without the
 * compiler, the file, -c and -o), then ours. */
static void file_flags(struct bounds_state *st, const char *file, struct strv *out)
{
	if (st->ccdb) {
		char *abs = realpath(file, NULL);
		CXCompileCommands cmds =
			clang_CompilationDatabase_getCompileCommands(st->ccdb, abs ? abs : file);
		free(abs);
		if (cmds && clang_CompileCommands_getSize(cmds) > 0) {
			CXCompileCommand cmd = clang_CompileCommands_getCommand(cmds, 0);
			unsigned n = clang_CompileCommand_getNumArgs(cmd);
			CXString dir = clang_CompileCommand_getDirectory(cmd);
			for (unsigned i = 1; i < n; i++) {
				CXString a = clang_CompileCommand_getArg(cmd, i);
				const char *s = clang_getCString(a);
				if (!strcmp(s, "-o") || !strcmp(s, "-MF") || !strcmp(s, "-MT") ||
				    !strcmp(s, "-MQ")) {
					i++;
				} else if (!strcmp(s, "-c") || (s[0] != '-' && strstr(s, ".c"))) {
					/* the source itself */
				} else if (!strncmp(s, "-I", 2) && s[2] && s[2] != '/') {
					char *p;
					if (asprintf(&p, "-I%s/%s", clang_getCString(dir), s + 2) <
					    0)
						abort();
					strv_push(out, p);
					free(p);
				} else {
					strv_push(out, s);
				}
				clang_disposeString(a);
			}
			clang_disposeString(dir);
		}
		if (cmds)
			clang_CompileCommands_dispose(cmds);
	}
	for (size_t i = 0; i < st->flags.n; i++)
		strv_push(out, st->flags.v[i]);
}

static int bounds_collect(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct bounds_state *st = ctx->state;
	struct bound_stats stats = { 0 };
	struct timespec t0, t1;
	st->ctx = ctx;
	st->err = err;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < st->files.n; i++) {
		struct strv args = { NULL, 0 };
		char *diag = NULL;
		if (ctx->interrupted)
			return perun_error_set(err, PERUN_EINTR, "interrupted in '%s'",
					       st->files.v[i]);
		file_flags(st, st->files.v[i], &args);
		int rc = bounds_analyse_file(st->files.v[i], (const char *const *)args.v,
					     (int)args.n, emit, st, &diag, &stats);
		strv_free(&args);
		if (diag) {
			fprintf(stderr, "perun: bounds: '%s' does not parse, not analysed:\n%s",
				st->files.v[i], diag);
			free(diag);
		}
		if (rc < 0)
			return rc;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (stats.failed_files == stats.files)
		return perun_error_set(err, PERUN_ETOOL,
				       "no source could be parsed (%lu of %lu failed)",
				       stats.failed_files, stats.files);
	if (getenv("PERUN_BOUNDS_STATS"))
		fprintf(stderr,
			"bounds: %lu files (%lu not parsed), %lu functions, %lu loops, "
			"%lu bounded, %lu z3 queries, %.3f s (%.3f s parsing)\n",
			stats.files, stats.failed_files, stats.functions, stats.loops,
			stats.bounded_loops, stats.z3_queries,
			(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
			stats.parse_s);
	return 0;
}

static void bounds_teardown(struct perun_collect_ctx *ctx)
{
	struct bounds_state *st = ctx->state;
	if (!st)
		return;
	strv_free(&st->files);
	strv_free(&st->flags);
	if (st->ccdb)
		clang_CompilationDatabase_dispose(st->ccdb);
	free(st->ccdb_dir);
	free(st);
	ctx->state = NULL;
}

static const struct perun_collect_ops bounds_ops = {
	.size = sizeof(struct perun_collect_ops),
	.before = bounds_before,
	.collect = bounds_collect,
	.teardown = bounds_teardown,
	.profile_type = "time",
	.default_units = "{\"bound\": \"iterations\"}",
};

PERUN_PLUGIN_DEFINE(bounds, PERUN_KIND_COLLECT, .version = "1.0",
		    .summary = "static loop bounds and complexity classes of C sources",
		    .options = bounds_options, .ops = &bounds_ops);
