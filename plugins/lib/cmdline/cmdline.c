/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A collection's command line as argv and a resolved program (cmdline.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdline.h"

static const char *wordexp_problem(int rc)
{
	switch (rc) {
	case WRDE_BADCHAR:
		return "unquoted |, &, ;, <, >, (, ), { or } (pipes and redirections "
		       "need an explicit shell, e.g. -c sh -a '-c \"...\"')";
	case WRDE_CMDSUB: return "command substitution is not allowed";
	case WRDE_SYNTAX: return "unbalanced quotes";
	case WRDE_NOSPACE: return "out of memory";
	default: return "cannot be split into words";
	}
}

/*
 * Split one of cmd/args/workload like a shell would, without running one.
 * Each gets its own wordexp_t: glibc frees an appended-to one on errors.
 */
static int split_words(struct cmdline *st, int i, const char *what, const char *text,
		       struct perun_error *err)
{
	if (!text || !*text)
		return 0;
	int rc = wordexp(text, &st->words[i], WRDE_NOCMD);
	/* Only WRDE_NOSPACE may leave a partial result to free. */
	if (rc == 0 || rc == WRDE_NOSPACE)
		st->have_words[i] = 1;
	if (rc == 0)
		return 0;
	/* Out of memory is the machine's failure (exit 3), not bad input. */
	return perun_error_set(err, rc == WRDE_NOSPACE ? PERUN_EGENERIC : PERUN_EINVAL,
			       "cannot split %s '%s': %s", what, text, wordexp_problem(rc));
}

static int build_argv(struct cmdline *st, const char *cmd, struct perun_error *err)
{
	size_t n = 0;
	for (int i = 0; i < 3; i++)
		n += st->have_words[i] ? st->words[i].we_wordc : 0;
	if (n == 0 || !st->have_words[0] || st->words[0].we_wordc == 0)
		return perun_error_set(err, PERUN_EINVAL, "command '%s' expands to nothing", cmd);
	st->argv = calloc(n + 1, sizeof(*st->argv));
	if (!st->argv)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	n = 0;
	for (int i = 0; i < 3; i++)
		for (size_t k = 0; st->have_words[i] && k < st->words[i].we_wordc; k++)
			st->argv[n++] = st->words[i].we_wordv[k];
	return 0;
}

/* Is path something execve could run? 0, or an errno value. */
static int executable(const char *path)
{
	struct stat sb;
	if (stat(path, &sb) < 0)
		return errno;
	if (!S_ISREG(sb.st_mode))
		return EACCES;
	return access(path, X_OK) < 0 ? errno : 0;
}

/*
 * Find the program once, as execvp would, instead of searching $PATH in
 * every timed run: the search would be measured, and where posix_spawn
 * cannot report a failed exec (e.g. under valgrind) a missing program
 * would only show as exit status 127.
 */
static int resolve_command(struct cmdline *st, struct perun_error *err)
{
	const char *name = st->argv[0];
	int first_error = ENOENT;
	if (strchr(name, '/')) {
		int e = executable(name);
		st->path = e ? NULL : strdup(name);
		first_error = e;
	} else if (*name) {
		const char *search = getenv("PATH");
		char fallback[256];
		if (!search) {
			confstr(_CS_PATH, fallback, sizeof(fallback));
			search = fallback;
		}
		for (const char *dir = search; !st->path;) {
			const char *colon = strchrnul(dir, ':');
			int len = (int)(colon - dir);
			char *candidate;
			/* An empty entry means the current directory. */
			if (asprintf(&candidate, "%.*s%s%s", len, dir, len ? "/" : "", name) < 0)
				return perun_error_set(err, PERUN_EGENERIC, "out of memory");
			int e = executable(candidate);
			if (!e)
				st->path = candidate;
			else
				free(candidate);
			/* Like execvp: report EACCES over ENOENT. */
			if (e == EACCES)
				first_error = EACCES;
			if (!*colon)
				break;
			dir = colon + 1;
		}
	}
	if (st->path)
		return 0;
	if (first_error == ENOENT || first_error == ENOTDIR)
		return perun_error_set(err, PERUN_ETOOL, "command '%s' not found", name);
	return perun_error_set_errno(err, PERUN_ETOOL, first_error, "cannot run command '%s'",
				     name);
}

int cmdline_init(struct cmdline *cl, const char *cmd, const char *args, const char *workload,
		 struct perun_error *err)
{
	int rc = split_words(cl, 0, "command", cmd, err);
	if (!rc)
		rc = split_words(cl, 1, "arguments", args, err);
	if (!rc)
		rc = split_words(cl, 2, "workload", workload, err);
	if (!rc)
		rc = build_argv(cl, cmd, err);
	if (!rc)
		rc = resolve_command(cl, err);
	return rc;
}

void cmdline_release(struct cmdline *cl)
{
	for (int i = 0; i < 3; i++)
		if (cl->have_words[i])
			wordfree(&cl->words[i]);
	cl->have_words[0] = cl->have_words[1] = cl->have_words[2] = 0;
	free(cl->argv);
	free(cl->path);
	cl->argv = NULL;
	cl->path = NULL;
}
