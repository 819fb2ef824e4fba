/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * memory - every allocation of a C/C++ program with its call stack.
 *
 * As Python Perun's memory collector, the program runs through the shell
 * with a preloaded library (here libperun-malloc.so, recorder.c) that
 * wraps the allocators; the trace is turned into Perun's memory profile
 * after the run: aggregated per call stack (aggregate.c) or, with
 * --per-event, one resource per call (per-event.c).  Options are Perun's
 * (--sampling, --no-source, --no-func, --all) plus --max-depth,
 * --ignore-failure, --per-event and --sample.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

#include <perun/perun.h>

#include "record.h"
#include "trace.h"

extern char **environ;

static const struct perun_option memory_options_decl[] = {
	{ "sampling", "s", PERUN_OPTION_FLOAT, "0.001", NULL, "<seconds>",
	  "snapshot the allocations every <seconds> seconds", 0 },
	{ "no-source", NULL, PERUN_OPTION_STRING, NULL, NULL, "<file>",
	  "exclude allocations done from a source file ending with <file>", PERUN_OPTION_MULTIPLE },
	{ "no-func", NULL, PERUN_OPTION_STRING, NULL, NULL, "<function>",
	  "exclude allocations done by <function>", PERUN_OPTION_MULTIPLE },
	{ "all", "a", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "keep the full trace: allocators and unreachable frames too", 0 },
	{ "max-depth", "d", PERUN_OPTION_INT, "64", NULL, "<frames>",
	  "record at most <frames> callers of each allocation (1-256)", 0 },
	{ "ignore-failure", "i", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "keep the allocations of a program that fails, crashes or is killed", 0 },
	{ "per-event", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "one resource per call, as Python Perun (default: aggregated per call stack)", 0 },
	{ "sample", NULL, PERUN_OPTION_INT, "1", NULL, "<n>",
	  "with --per-event, keep every <n>-th call only", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

struct memory_state {
	char *runtime; /* the preload library */
	char *dir;     /* the trace directory */
	char *binary;  /* the command's program, resolved */
	double sampling;
	long long depth;
	int ignore_failure;
	int per_event;
	long long sample;
	uint64_t t0_ns;
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The preload library: installed as <pkglibdir>/runtime beside
 * <pkglibdir>/plugins/collect/memory.so, and staged the same way in the
 * build tree, so it is found from where this plugin was loaded.
 */
static char *find_runtime(void)
{
	Dl_info info;
	char *path = NULL;
	if (dladdr((void *)find_runtime, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
		char *copy = strdup(info.dli_fname);
		if (copy &&
		    asprintf(&path, "%s/../../runtime/%s", dirname(copy), "libperun-malloc.so") < 0)
			path = NULL;
		free(copy);
		if (path && access(path, R_OK) == 0)
			return path;
		free(path);
	}
	return strdup(PERUN_MEMORY_RUNTIME);
}

/* The program the command runs: its first word, looked up in $PATH. */
static int find_binary(const char *cmd, char **out, struct perun_error *err)
{
	wordexp_t we;
	int rc = 0;
	if (wordexp(cmd, &we, WRDE_NOCMD) != 0)
		return perun_error_set(err, PERUN_EINVAL, "cannot split command '%s'", cmd);
	if (we.we_wordc == 0) {
		rc = perun_error_set(err, PERUN_EINVAL, "command '%s' expands to nothing", cmd);
		goto out;
	}
	const char *name = we.we_wordv[0];
	if (strchr(name, '/')) {
		*out = access(name, X_OK) == 0 ? strdup(name) : NULL;
	} else {
		const char *path = getenv("PATH");
		char *dirs = strdup(path ? path : "/usr/bin:/bin"), *save = NULL;
		*out = NULL;
		for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && !*out;
		     d = strtok_r(NULL, ":", &save)) {
			char *candidate;
			if (asprintf(&candidate, "%s/%s", d, name) < 0)
				break;
			if (access(candidate, X_OK) == 0)
				*out = candidate;
			else
				free(candidate);
		}
		free(dirs);
	}
	if (!*out)
		rc = perun_error_set(err, PERUN_ETOOL, "command '%s' not found", name);
out:
	wordfree(&we);
	return rc;
}

/*
 * Python Perun refuses binaries without debug information (any section
 * whose name mentions "debug", as its objdump check does): without it
 * there is no source or line to attribute allocations to.  A statically
 * linked program would run without the preloaded library: refused too.
 */
static int check_binary(const char *binary, struct perun_error *err)
{
	int fd = open(binary, O_RDONLY | O_CLOEXEC), found = 0, dynamic = 0, rc = 0;
	Elf *elf = NULL;
	size_t shstrndx, phnum = 0;
	if (fd < 0)
		return perun_error_set_errno(err, PERUN_ETOOL, errno, "cannot read '%s'", binary);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		rc = perun_error_set(err, PERUN_ETOOL,
				     "'%s' is not an ELF program: the memory collector "
				     "profiles C/C++ binaries",
				     binary);
		goto out;
	}
	elf_getphdrnum(elf, &phnum);
	for (size_t i = 0; i < phnum && !dynamic; i++) {
		GElf_Phdr phdr;
		dynamic = gelf_getphdr(elf, (int)i, &phdr) && phdr.p_type == PT_INTERP;
	}
	if (!dynamic) {
		rc = perun_error_set(err, PERUN_ETOOL,
				     "binary '%s' is statically linked: its allocations "
				     "cannot be intercepted",
				     binary);
		goto out;
	}
	for (Elf_Scn *scn = NULL; !found && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr shdr;
		const char *name =
			gelf_getshdr(scn, &shdr) ? elf_strptr(elf, shstrndx, shdr.sh_name) : NULL;
		found = name && strstr(name, "debug");
	}
	if (!found)
		rc = perun_error_set(err, PERUN_ETOOL,
				     "binary '%s' has no debug information: recompile it "
				     "with debug options (gcc -g | g++ -g)",
				     binary);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

static int memory_before(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct memory_state *st = calloc(1, sizeof(*st));
	if (!st)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	ctx->state = st;
	st->sampling = perun_params_float(ctx->params, "sampling", 0.001);
	st->depth = perun_params_int(ctx->params, "max-depth", 64);
	st->ignore_failure = perun_params_bool(ctx->params, "ignore-failure", 0);
	st->per_event = perun_params_bool(ctx->params, "per-event", 0);
	st->sample = perun_params_int(ctx->params, "sample", 1);
	if (st->sample < 1)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--sample' must be 1 or more, not %lld", st->sample);
	if (st->sample > 1 && !st->per_event)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--sample' thins the per-event profile: "
				       "give --per-event too");
	if (!(st->sampling > 0) || !isfinite(st->sampling))
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--sampling' must be a number of seconds "
				       "above 0, not %g",
				       st->sampling);
	if (st->depth < 1 || st->depth > PMEM_MAX_DEPTH)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--max-depth' must be 1 to %d, not %lld",
				       PMEM_MAX_DEPTH, st->depth);
	if (!ctx->cmd || !*ctx->cmd)
		return perun_error_set(err, PERUN_EINVAL,
				       "no command to profile (give one with --cmd)");
	int rc = find_binary(ctx->cmd, &st->binary, err);
	if (!rc)
		rc = check_binary(st->binary, err);
	if (rc)
		return rc;
	st->runtime = find_runtime();
	if (!st->runtime || access(st->runtime, R_OK) != 0)
		return perun_error_set(err, PERUN_ETOOL, "cannot find the preload library '%s'",
				       st->runtime ? st->runtime : "libperun-malloc.so");
	return 0;
}

/* environ with our variables set and the library put first in LD_PRELOAD. */
static char **child_environ(const struct memory_state *st)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 4, sizeof(*env));
	if (!env)
		return NULL;
	const char *old = getenv("LD_PRELOAD");
	size_t k = 0;
	int ok = asprintf(&env[k++], "LD_PRELOAD=%s%s%s", st->runtime, old && *old ? ":" : "",
			  old ? old : "") >= 0;
	ok = ok && asprintf(&env[k++], "%s=%s", PMEM_ENV_DIR, st->dir) >= 0;
	ok = ok && asprintf(&env[k++], "%s=%lld", PMEM_ENV_DEPTH, st->depth) >= 0;
	for (size_t i = 0; ok && i < n; i++) {
		if (!strncmp(environ[i], "LD_PRELOAD=", 11) ||
		    !strncmp(environ[i], PMEM_ENV_DIR "=", sizeof(PMEM_ENV_DIR)) ||
		    !strncmp(environ[i], PMEM_ENV_DEPTH "=", sizeof(PMEM_ENV_DEPTH)))
			continue;
		ok = (env[k++] = strdup(environ[i])) != NULL;
	}
	if (!ok) {
		for (size_t i = 0; i < k; i++)
			free(env[i]);
		free(env);
		return NULL;
	}
	return env;
}

static void free_environ(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/*
 * Run "exec <cmd> <args> <workload>" through /bin/sh as Python Perun does,
 * in its own process group so that an interruption stops its children too.
 * Its output goes to our stderr: perun's stdout stays perun's.
 */
static int run_program(struct perun_collect_ctx *ctx, struct memory_state *st, int *status,
		       struct perun_error *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char *script = NULL, **env = child_environ(st);
	pid_t pid;
	int rc = 0;
	sigset_t none, defaults;

	if (!env || asprintf(&script, "exec %s %s %s", ctx->cmd, ctx->args, ctx->workload) < 0) {
		free_environ(env);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	sigemptyset(&none);
	sigfillset(&defaults);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	int e = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	e = e ? e : posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	e = e ? e : posix_spawnattr_setsigmask(&attr, &none);
	e = e ? e : posix_spawnattr_setsigdefault(&attr, &defaults);
	e = e ? e : posix_spawnattr_setpgroup(&attr, 0);
	e = e ? e
	      : posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
							POSIX_SPAWN_SETPGROUP);
	char *argv[] = { "sh", "-c", script, NULL };
	st->t0_ns = monotonic_ns();
	e = e ? e : posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, env);
	if (e) {
		rc = perun_error_set_errno(err, PERUN_ETOOL, e, "cannot run command '%s'",
					   ctx->cmd);
		goto out;
	}
	for (;;) {
		if (*(volatile int *)&ctx->interrupted) {
			kill(-pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			rc = perun_error_set(err, PERUN_EINTR, "interrupted while running '%s'",
					     ctx->cmd);
			break;
		}
		if (waitpid(pid, status, 0) == pid)
			break;
		if (errno != EINTR) {
			rc = perun_error_set_errno(err, PERUN_EGENERIC, errno,
						   "cannot wait for '%s'", ctx->cmd);
			break;
		}
	}
out:
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	free(script);
	free_environ(env);
	return rc;
}

static int memory_collect(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct memory_state *st = ctx->state;
	const char *tmp = getenv("TMPDIR");
	int status = 0;
	if (asprintf(&st->dir, "%s/perun-memory-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
		st->dir = NULL;
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	if (!mkdtemp(st->dir)) {
		int e = errno;
		int rc = perun_error_set_errno(err, PERUN_ETOOL, e,
					       "cannot create a trace directory '%s'", st->dir);
		free(st->dir);
		st->dir = NULL;
		return rc;
	}
	/* The program may change its directory: give it an absolute path. */
	char *abs = realpath(st->dir, NULL);
	if (abs) {
		free(st->dir);
		st->dir = abs;
	}
	int rc = run_program(ctx, st, &status, err);
	if (rc || st->ignore_failure)
		return rc;
	if (WIFSIGNALED(status))
		return perun_error_set(err, PERUN_ETOOL,
				       "command '%s' was killed by signal %d (%s) "
				       "(--ignore-failure keeps what it allocated until then)",
				       ctx->cmd, WTERMSIG(status), strsignal(WTERMSIG(status)));
	if (WEXITSTATUS(status) == 127)
		return perun_error_set(err, PERUN_ETOOL, "command '%s' could not be run", ctx->cmd);
	if (WEXITSTATUS(status) != 0)
		return perun_error_set(err, PERUN_ETOOL,
				       "command '%s' exited with status %d "
				       "(--ignore-failure keeps its allocations)",
				       ctx->cmd, WEXITSTATUS(status));
	return 0;
}

static int memory_after(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	struct memory_state *st = ctx->state;
	struct memory_trace *trace = NULL;
	struct memory_summary sum;
	struct memory_options opts = {
		.sampling = st->sampling,
		.all = perun_params_bool(ctx->params, "all", 0),
		.params = ctx->params,
		.sample = st->sample,
	};
	int rc = memory_trace_load(st->dir, ctx->cmd, st->per_event, &trace, err);
	if (rc)
		return rc;
	memory_trace_summary(trace, &sum);
	if (sum.full)
		rc = perun_error_set(err, PERUN_ETOOL,
				     "the allocations of '%s' did not fit in '%s' (disk full?)",
				     ctx->cmd, st->dir);
	if (!rc)
		rc = st->per_event
			     ? memory_profile_per_event(trace, &opts, st->t0_ns, ctx->profile, err)
			     : memory_profile_aggregated(trace, &opts, st->t0_ns, ctx->profile,
							 err);
	memory_trace_free(trace);
	return rc;
}

static void remove_dir(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return;
	for (struct dirent *de; (de = readdir(d));)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	rmdir(path);
}

static void memory_teardown(struct perun_collect_ctx *ctx)
{
	struct memory_state *st = ctx->state;
	if (!st)
		return;
	if (st->dir)
		remove_dir(st->dir);
	free(st->dir);
	free(st->runtime);
	free(st->binary);
	free(st);
	ctx->state = NULL;
}

static const struct perun_collect_ops memory_ops = {
	.size = sizeof(struct perun_collect_ops),
	.before = memory_before,
	.collect = memory_collect,
	.after = memory_after,
	.teardown = memory_teardown,
	.profile_type = "memory",
	.default_units = "{\"memory\": \"B\"}",
};

PERUN_PLUGIN_DEFINE(memory, PERUN_KIND_COLLECT, .version = "1.0",
		    .summary = "allocations of a C/C++ program with their call stacks",
		    .options = memory_options_decl, .ops = &memory_ops);
