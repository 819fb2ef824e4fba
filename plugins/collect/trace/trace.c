/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * trace - run times of C/C++ functions and USDT-probed regions with their
 * caller-callee relations (Python Perun's trace collector).
 *
 * Engines: ebpf (uprobes and USDT probes through libbpf, the default here),
 * instrument (an LD_PRELOAD runtime for programs built with
 * -finstrument-functions), stap (a generated SystemTap script).  All of
 * them produce the same raw events, which transform.c turns into Perun's
 * trace resources.  See README.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

#include "trace.h"

static const struct perun_option trace_options[] = {
	{ "engine", "e", PERUN_OPTION_CHOICE, "ebpf", "ebpf|stap|instrument", NULL,
	  "collection engine: eBPF probes, a SystemTap script, or -finstrument-functions", 0 },
	{ "strategy", "s", PERUN_OPTION_CHOICE, "custom",
	  "userspace|all|u_sampled|a_sampled|custom", NULL,
	  "which functions and USDT probes to trace", 0 },
	{ "func", "f", PERUN_OPTION_STRING, NULL, NULL, "<lib>#<func>#<sampling>",
	  "trace this function (every <sampling>-th call)", PERUN_OPTION_MULTIPLE },
	{ "usdt", "u", PERUN_OPTION_STRING, NULL, NULL, "<lib>#<usdt>#<sampling>",
	  "trace this USDT probe (or pair a#b)", PERUN_OPTION_MULTIPLE },
	{ "dynamic", "d", PERUN_OPTION_STRING, NULL, NULL, "<lib>#<location>#<sampling>",
	  "time between hits of a location: <symbol>[+<offset>] or 0x<file offset>",
	  PERUN_OPTION_MULTIPLE },
	{ "global-sampling", "g", PERUN_OPTION_INT, NULL, NULL, "<int>",
	  "sampling of all probes without their own (default 1, 20 when sampled)", 0 },
	{ "with-usdt", NULL, PERUN_OPTION_BOOL, "true", NULL, NULL,
	  "the strategy also traces the USDT probes of the binary", 0 },
	{ "no-usdt", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "the strategy traces no USDT probes", 0 },
	{ "binary", "b", PERUN_OPTION_STRING, NULL, NULL, "<path>",
	  "the profiled executable, when the command is not it", 0 },
	{ "libs", "l", PERUN_OPTION_STRING, NULL, NULL, "<path>", "a library to trace as well",
	  PERUN_OPTION_MULTIPLE },
	{ "timeout", "t", PERUN_OPTION_FLOAT, "0", NULL, "<seconds>",
	  "stop the command after this time (0: never)", 0 },
	{ "output-handling", "o", PERUN_OPTION_CHOICE, "default", "default|capture|suppress", NULL,
	  "the command's output: to stderr, into a file and shown after the run, or nowhere", 0 },
	{ "keep-temps", "k", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "keep the temporary files (raw data, probes, script, logs)", 0 },
	{ "zip-temps", "z", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "pack the temporary files into .perun/logs before deleting them", 0 },
	{ "verbose-trace", "vt", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "show libbpf's messages and write the raw data also as text", 0 },
	{ "quiet", "q", PERUN_OPTION_BOOL, NULL, NULL, NULL, "fewer messages from the collector",
	  0 },
	{ "watchdog", "w", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "log the whole collection process into a temporary file", 0 },
	{ "diagnostics", "i", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "watchdog, verbose trace, captured output and packed temporary files", 0 },
	{ "stap-cache-off", "sc", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "stap engine: do not cache the compiled script", 0 },
	{ "no-profile", "np", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "collect and keep the raw data, but make no profile", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

struct trace_state {
	struct trace_config cfg;
	struct trace_probes probes;
	wordexp_t words[3];
	int have_words[3];
	char *zip_dest;
};

void trace_log(const struct trace_config *cfg, const char *fmt, ...)
{
	if (!cfg->log)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(cfg->log, "[%lld.%06ld] ", (long long)ts.tv_sec, ts.tv_nsec / 1000);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(cfg->log, fmt, ap);
	va_end(ap);
	fputc('\n', cfg->log);
	fflush(cfg->log);
}

static int split(struct trace_state *st, int i, const char *what, const char *text,
		 struct perun_error *err)
{
	if (!text || !*text)
		return 0;
	int rc = wordexp(text, &st->words[i], WRDE_NOCMD);
	if (rc == 0 || rc == WRDE_NOSPACE)
		st->have_words[i] = 1;
	return rc ? perun_error_set(err, PERUN_EINVAL,
				    "cannot split %s '%s' into words (unbalanced quotes, "
				    "or shell syntax that needs an explicit shell)",
				    what, text)
		  : 0;
}

/* A --libs entry: a path, or a file name in the usual library directories. */
static char *find_lib(const char *name)
{
	static const char *const dirs[] = { "/lib/x86_64-linux-gnu",
					    "/usr/lib/x86_64-linux-gnu",
					    "/lib64",
					    "/usr/lib64",
					    "/lib",
					    "/usr/lib",
					    "/usr/local/lib",
					    NULL };
	if (strchr(name, '/'))
		return realpath(name, NULL);
	for (int i = 0; dirs[i]; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dirs[i], name);
		if (!access(path, R_OK))
			return realpath(path, NULL);
	}
	return NULL;
}

static int make_tmpdir(struct trace_config *cfg, struct perun_error *err)
{
	struct stat sb;
	const char *base = getenv("TMPDIR");
	if (!stat(".perun/tmp", &sb) && S_ISDIR(sb.st_mode))
		base = ".perun/tmp";
	else if (!base || !*base)
		base = "/tmp";
	char *tmpl;
	if (asprintf(&tmpl, "%s/trace-XXXXXX", base) < 0)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (!mkdtemp(tmpl)) {
		int e = errno;
		free(tmpl);
		return perun_error_set_errno(err, PERUN_ETOOL, e,
					     "cannot create a temporary directory in '%s'", base);
	}
	cfg->tmpdir = realpath(tmpl, NULL);
	free(tmpl);
	return cfg->tmpdir ? 0 : perun_error_set(err, PERUN_EGENERIC, "out of memory");
}

static int config_from_params(struct perun_collect_ctx *ctx, struct trace_state *st,
			      struct perun_error *err)
{
	const struct perun_params *pa = ctx->params;
	struct trace_config *cfg = &st->cfg;
	cfg->interrupted = &ctx->interrupted;
	cfg->engine = perun_params_string(pa, "engine", "ebpf");
	cfg->strategy = perun_params_string(pa, "strategy", "custom");
	cfg->with_usdt =
		perun_params_bool(pa, "with-usdt", 1) && !perun_params_bool(pa, "no-usdt", 0);
	cfg->timeout = perun_params_float(pa, "timeout", 0);
	cfg->output_handling = perun_params_string(pa, "output-handling", "default");
	cfg->keep_temps = perun_params_bool(pa, "keep-temps", 0);
	cfg->zip_temps = perun_params_bool(pa, "zip-temps", 0);
	cfg->verbose_trace = perun_params_bool(pa, "verbose-trace", 0);
	cfg->watchdog = perun_params_bool(pa, "watchdog", 0);
	cfg->quiet = perun_params_bool(pa, "quiet", 0);
	cfg->no_profile = perun_params_bool(pa, "no-profile", 0);
	cfg->stap_cache_off = perun_params_bool(pa, "stap-cache-off", 0);
	cfg->workload = ctx->workload ? ctx->workload : "";
	if (perun_params_bool(pa, "diagnostics", 0)) {
		cfg->watchdog = cfg->verbose_trace = cfg->zip_temps = 1;
		cfg->output_handling = "capture";
	}
	int sampled = strstr(cfg->strategy, "_sampled") != NULL;
	long long g = perun_params_has(pa, "global-sampling")
			      ? perun_params_int(pa, "global-sampling", 1)
		      : sampled ? 20
				: 1;
	if (g < 1 || g > (1 << 24) - 1)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--global-sampling' must be 1 to %d, not %lld",
				       (1 << 24) - 1, g);
	cfg->global_sampling = (unsigned)g;
	if (cfg->timeout < 0)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--timeout' must be 0 or more, not %g",
				       cfg->timeout);
	if (!ctx->cmd || !*ctx->cmd)
		return perun_error_set(err, PERUN_EINVAL,
				       "no command to trace (give one with --cmd)");
	int rc = split(st, 0, "command", ctx->cmd, err);
	if (!rc)
		rc = split(st, 1, "arguments", ctx->args, err);
	if (!rc)
		rc = split(st, 2, "workload", ctx->workload, err);
	if (rc)
		return rc;
	size_t n = 0;
	for (int i = 0; i < 3; i++)
		n += st->have_words[i] ? st->words[i].we_wordc : 0;
	if (!st->have_words[0] || !st->words[0].we_wordc)
		return perun_error_set(err, PERUN_EINVAL, "command '%s' expands to nothing",
				       ctx->cmd);
	cfg->argv = calloc(n + 1, sizeof(*cfg->argv));
	if (!cfg->argv)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	n = 0;
	for (int i = 0; i < 3; i++)
		for (size_t k = 0; st->have_words[i] && k < st->words[i].we_wordc; k++)
			cfg->argv[n++] = st->words[i].we_wordv[k];

	const char *binary = perun_params_string(pa, "binary", NULL);
	const char *name = binary ? binary : cfg->argv[0];
	cfg->binary = binary ? realpath(binary, NULL) : trace_which(name);
	if (!cfg->binary)
		return perun_error_set(err, PERUN_ENOTFOUND, "binary '%s' not found%s", name,
				       binary ? "" : " (give the profiled program with --binary)");
	size_t nlibs = perun_params_count(pa, "libs");
	cfg->libs = calloc(nlibs + 1, sizeof(*cfg->libs));
	if (!cfg->libs)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	for (size_t i = 0; i < nlibs; i++) {
		const char *lib = perun_params_string_at(pa, "libs", i);
		cfg->libs[i] = find_lib(lib);
		if (!cfg->libs[i])
			return perun_error_set(err, PERUN_ENOTFOUND, "library '%s' not found", lib);
		cfg->nlibs++;
	}
	return 0;
}

static int trace_before(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct trace_state *st = calloc(1, sizeof(*st));
	if (!st)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	ctx->state = st;
	int rc = config_from_params(ctx, st, err);
	if (!rc)
		rc = make_tmpdir(&st->cfg, err);
	if (rc)
		return rc;
	struct trace_config *cfg = &st->cfg;
	if (cfg->watchdog) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/watchdog.log", cfg->tmpdir);
		cfg->log = fopen(path, "we");
	}
	trace_log(cfg, "engine %s, strategy %s, binary %s, %zu libraries", cfg->engine,
		  cfg->strategy, cfg->binary, cfg->nlibs);
	rc = trace_probes_build(&st->probes, cfg, ctx->params, err);
	if (rc)
		return rc;
	char path[4096];
	snprintf(path, sizeof(path), "%s/probes.txt", cfg->tmpdir);
	FILE *f = fopen(path, "we");
	if (f) {
		trace_probes_write(&st->probes, f);
		fclose(f);
	}
	trace_log(cfg, "%zu probes", st->probes.n);
	return 0;
}

/* --verbose-trace: the raw events also as text, in Python Perun's record
 * layout "<type> <tid> <pid> <timestamp>;<probe>". */
static void write_text_trace(const struct trace_config *cfg, const struct trace_probes *p)
{
	char in[4096], out[4096];
	snprintf(in, sizeof(in), "%s/" TRACE_RAW_FILE, cfg->tmpdir);
	snprintf(out, sizeof(out), "%s/raw.txt", cfg->tmpdir);
	FILE *fi = fopen(in, "re"), *fo = fopen(out, "we");
	struct perun_trace_event e;
	while (fi && fo && fread(&e, sizeof(e), 1, fi) == 1) {
		const char *name =
			e.type <= PERUN_TRACE_USDT_END && e.id < p->n ? p->v[e.id].name : "";
		fprintf(fo, "%u %u %u %llu;%s\n", e.type, e.tid, e.pid, e.ts, name);
	}
	if (fi)
		fclose(fi);
	if (fo)
		fclose(fo);
}

/* --output-handling capture: the output was captured into a file; show
 * it as well, after the run (as Python Perun's, delayed). */
static void show_output(const struct trace_config *cfg)
{
	char path[4096], buf[8192];
	snprintf(path, sizeof(path), "%s/output.txt", cfg->tmpdir);
	FILE *f = fopen(path, "re");
	size_t n;
	while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stderr);
	if (f)
		fclose(f);
}

/*
 * The instrument engine's events as it symbolises them: into the raw data
 * file only for those who read it (--keep-temps and the like; 48 MB a
 * million calls that nobody else needs), into the transformation unless
 * no profile is made.  It begins at the first event, when the child's
 * start, the time origin, is known.
 */
struct event_consumer {
	FILE *raw;
	int make_profile;
	const struct trace_child *child;
	struct trace_transform_input in;
	struct trace_transform_stats stats;
	struct trace_transform *transform;
};

/* The transformation begun, if not yet: 0, or -1 without memory. */
static int consumer_begin(struct event_consumer *c)
{
	if (!c->transform) {
		c->in.start_ns = c->child->start_ns;
		c->transform = trace_transform_begin(&c->in, &c->stats);
	}
	return c->transform ? 0 : -1;
}

static int consume_event(void *data, const struct perun_trace_event *e)
{
	struct event_consumer *c = data;
	if (c->raw && fwrite(e, sizeof(*e), 1, c->raw) != 1)
		return -1;
	if (!c->make_profile)
		return 0;
	return consumer_begin(c) ? -1 : trace_transform_add(c->transform, e);
}

static int trace_collect(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct trace_state *st = ctx->state;
	struct trace_config *cfg = &st->cfg;
	struct trace_child child;
	char how[256], path[4096];
	const char *slash = strrchr(cfg->binary, '/');
	struct event_consumer events = {
		.make_profile = !cfg->no_profile,
		.child = &child,
		.in = { .probes = &st->probes,
			.workload = cfg->workload,
			.location = slash ? slash + 1 : cfg->binary },
	};
	int rc;
	memset(&child, 0, sizeof(child));
	snprintf(path, sizeof(path), "%s/" TRACE_RAW_FILE, cfg->tmpdir);
	if (!strcmp(cfg->engine, "ebpf")) {
		rc = trace_engine_ebpf(cfg, &st->probes, &child, err);
	} else if (!strcmp(cfg->engine, "instrument")) {
		if (cfg->keep_temps || cfg->no_profile || cfg->verbose_trace || cfg->zip_temps ||
		    cfg->watchdog) {
			events.raw = fopen(path, "we");
			if (!events.raw)
				return perun_error_set_errno(err, PERUN_ETOOL, errno,
							     "cannot write the raw trace data '%s'",
							     path);
			setvbuf(events.raw, NULL, _IOFBF, 1 << 20);
		}
		struct trace_sink sink = { consume_event, &events };
		rc = trace_engine_instrument(cfg, &st->probes, &child, &sink, err);
		if (events.raw && fclose(events.raw) && !rc)
			rc = perun_error_set_errno(err, PERUN_ETOOL, errno,
						   "cannot write the raw trace data '%s'", path);
		/* No event at all still makes a profile, an empty one. */
		if (!rc && events.make_profile && consumer_begin(&events))
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	} else {
		rc = trace_engine_stap(cfg, &st->probes, &child, err);
	}
	if (rc) {
		if (events.transform)
			trace_transform_end(events.transform, NULL, NULL);
		return rc;
	}
	if (cfg->verbose_trace)
		write_text_trace(cfg, &st->probes);

	trace_child_describe(&child, how, sizeof(how));
	if (*how && !cfg->quiet)
		fprintf(stderr,
			"perun: %s: trace: '%s' %s; the profile holds what ran until then\n",
			child.timed_out ? "info" : "warning", cfg->argv[0], how);
	if (!strcmp(cfg->output_handling, "capture") && !cfg->quiet)
		show_output(cfg);
	if (cfg->no_profile) {
		cfg->keep_temps = 1;
		if (!PERUN_ABI_HAS(ctx, struct perun_collect_ctx, no_profile))
			return perun_error_set(
				err, PERUN_EGENERIC,
				"no profile made (--no-profile): the raw data is in '%s'",
				cfg->tmpdir);
		fprintf(stderr,
			"perun: info: trace: no profile made (--no-profile): "
			"the raw data is in '%s'\n",
			cfg->tmpdir);
		ctx->no_profile = 1;
		return 0;
	}
	if (events.transform) {
		rc = trace_transform_end(events.transform, ctx->profile, err);
	} else {
		events.in.start_ns = child.start_ns;
		rc = trace_transform_file(path, &events.in, ctx->profile, &events.stats, err);
	}
	trace_log(cfg,
		  "%zu events -> %zu resources; %zu returns unmatched, %zu calls open "
		  "at their thread's end",
		  events.stats.events, events.stats.resources, events.stats.unmatched,
		  events.stats.open_at_end);
	return rc;
}

/* --zip-temps: a tar.gz of the temporary files in .perun/logs (or beside
 * them without a .perun here), made by tar(1). */
static void zip_temps(const struct trace_config *cfg)
{
	struct stat sb;
	const char *dir = !stat(".perun/logs", &sb) && S_ISDIR(sb.st_mode) ? ".perun/logs" : NULL;
	const char *base = strrchr(cfg->tmpdir, '/') + 1;
	char dest[4096];
	if (dir)
		snprintf(dest, sizeof(dest), "%s/%s.tar.gz", dir, base);
	else
		snprintf(dest, sizeof(dest), "%s.tar.gz", cfg->tmpdir);
	pid_t pid = fork();
	if (pid == 0) {
		execlp("tar", "tar", "-czf", dest, "-C", cfg->tmpdir, ".", (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (!cfg->quiet) {
		if (pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status))
			fprintf(stderr, "perun: info: trace: temporary files packed into %s\n",
				dest);
		else
			fprintf(stderr,
				"perun: warning: trace: cannot pack the temporary files "
				"into %s\n",
				dest);
	}
}

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tree(const char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void trace_teardown(struct perun_collect_ctx *ctx)
{
	struct trace_state *st = ctx->state;
	if (!st)
		return;
	struct trace_config *cfg = &st->cfg;
	if (cfg->log)
		fclose(cfg->log);
	if (cfg->tmpdir) {
		if (cfg->zip_temps)
			zip_temps(cfg);
		if (cfg->keep_temps || cfg->watchdog || cfg->no_profile) {
			if (!cfg->quiet || cfg->no_profile)
				fprintf(stderr, "perun: info: trace: temporary files kept in %s\n",
					cfg->tmpdir);
		} else {
			remove_tree(cfg->tmpdir);
		}
	}
	trace_probes_release(&st->probes);
	for (int i = 0; i < 3; i++)
		if (st->have_words[i])
			wordfree(&st->words[i]);
	for (size_t i = 0; i < cfg->nlibs; i++)
		free(cfg->libs[i]);
	free(cfg->libs);
	free(cfg->argv);
	free(cfg->binary);
	free(cfg->tmpdir);
	free(st);
	ctx->state = NULL;
}

static const struct perun_collect_ops trace_ops = {
	.size = sizeof(struct perun_collect_ops),
	.before = trace_before,
	.collect = trace_collect,
	.teardown = trace_teardown,
	.profile_type = "mixed",
	/* exclusive is named so eto need not take upstream's nanoseconds */
	.default_units = "{\"mixed(time delta)\": \"us\", \"exclusive\": \"us\"}",
};

PERUN_PLUGIN_DEFINE(trace, PERUN_KIND_COLLECT, .version = "1.0",
		    .summary = "run times of C/C++ functions and USDT regions (eBPF, "
			       "SystemTap, -finstrument-functions)",
		    .options = trace_options, .ops = &trace_ops);
