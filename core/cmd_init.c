/* SPDX-License-Identifier: GPL-3.0-or-later */
/* perun init [<path>]: create (or refresh) .perun and the wrapped VCS. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command_list.h"
#include "instance.h"
#include "plugin_loader.h"

static const struct perun_option init_options[] = {
	{ "vcs-type", NULL, PERUN_OPTION_STRING, "git", NULL, "<type>",
	  "also initialize a repository of this vcs plugin", 0 },
	{ "vcs-path", NULL, PERUN_OPTION_STRING, NULL, NULL, "<path>",
	  "initialize the repository at <path> instead of <path> of perun", 0 },
	{ "vcs-param", NULL, PERUN_OPTION_STRING, NULL, NULL, "<key> <value>",
	  "pass a parameter to the vcs initialization, e.g. separate-git-dir dir",
	  PERUN_OPTION_PAIR | PERUN_OPTION_MULTIPLE },
	{ "vcs-flag", NULL, PERUN_OPTION_STRING, NULL, NULL, "<flag>",
	  "pass a flag to the vcs initialization, e.g. bare", PERUN_OPTION_MULTIPLE },
	{ "configure", "c", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "open the new local configuration in the editor afterwards", 0 },
	{ "config-template", "t", PERUN_OPTION_CHOICE, "master", "master|developer|user", NULL,
	  "template of the local configuration", 0 },
	{ NULL },
};

/* An absolute path with "." and ".." resolved textually (it may not exist). */
static char *absolute_path(const char *path)
{
	char cwd[PATH_MAX];
	char *joined, *out;
	if (path[0] == '/')
		joined = strdup(path);
	else if (!getcwd(cwd, sizeof(cwd)) || asprintf(&joined, "%s/%s", cwd, path) < 0)
		return NULL;
	if (!joined || !(out = malloc(strlen(joined) + 2))) {
		free(joined);
		return NULL;
	}
	size_t len = 0;
	for (char *save, *part = strtok_r(joined, "/", &save); part;
	     part = strtok_r(NULL, "/", &save)) {
		if (!strcmp(part, "."))
			continue;
		if (!strcmp(part, "..")) {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			continue;
		}
		out[len++] = '/';
		size_t n = strlen(part);
		memcpy(out + len, part, n);
		len += n;
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	free(joined);
	return out;
}

/* to relative to the directory from (both absolute, normalized): "../", "../src". */
static char *relative_path(const char *from, const char *to)
{
	size_t common = 0, i = 0;
	/* The longest prefix of whole components. */
	for (;; i++) {
		int end_from = from[i] == '\0' || from[i] == '/';
		int end_to = to[i] == '\0' || to[i] == '/';
		if (end_from && end_to)
			common = i;
		if (from[i] != to[i] || !from[i])
			break;
	}
	size_t ups = 0;
	for (const char *p = from + common; *p; p++)
		if (*p == '/')
			ups++;
	const char *rest = to + common;
	while (*rest == '/')
		rest++;
	char *out = malloc(ups * 3 + strlen(rest) + 3);
	if (!out)
		return NULL;
	out[0] = '\0';
	for (size_t k = 0; k < ups; k++)
		strcat(out, "../");
	strcat(out, rest);
	if (!out[0])
		strcpy(out, "./");
	return out;
}

/* "key=value" words of --vcs-param and the words of --vcs-flag, NULL-ended. */
static char **vcs_words(const struct perun_params *params)
{
	json_t *pairs = json_object_get(perun_params_json(params), "vcs-param");
	size_t npairs = json_array_size(pairs), nflags = perun_params_count(params, "vcs-flag");
	char **words = calloc(npairs + nflags + 1, sizeof(char *));
	if (!words)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < npairs; i++) {
		json_t *pair = json_array_get(pairs, i);
		if (asprintf(&words[n], "%s=%s", json_string_value(json_array_get(pair, 0)),
			     json_string_value(json_array_get(pair, 1))) >= 0)
			n++;
	}
	for (size_t i = 0; i < nflags; i++)
		words[n++] = strdup(perun_params_string_at(params, "vcs-flag", i));
	return words;
}

static void free_words(char **words)
{
	for (size_t i = 0; words && words[i]; i++)
		free(words[i]);
	free(words);
}

static int make_store(const char *dir, struct perun_error *err)
{
	static const char *const subdirs[] = { "objects", "jobs", "logs", "cache",
					       "stats",	  "tmp",  NULL };
	for (const char *const *s = subdirs; *s; s++) {
		char *path;
		if (asprintf(&path, "%s/%s", dir, *s) < 0)
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		int rc = perun_mkdirs(path, 0755, err);
		free(path);
		if (rc)
			return rc;
	}
	return 0;
}

/* Write local.yml from the template unless it exists; 1 when it did. */
static int write_local_config(const char *root, const char *local, const char *template_name,
			      const char *vcs_type, const char *vcs_url, struct perun_error *err)
{
	if (access(local, F_OK) == 0)
		return 1;
	/* The user template looks for executables below the project root. */
	if (chdir(root) < 0)
		return perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot enter '%s'", root);
	char *text = perun_config_template_dup(template_name, vcs_type, vcs_url);
	if (!text)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = perun_file_write_atomic(local, text, strlen(text), err);
	free(text);
	return rc;
}

static int configure_now(const char *local, struct perun_error *err)
{
	struct perun_config cfg;
	int rc = perun_config_init(&cfg, local, err);
	if (rc)
		return rc;
	rc = perun_config_run_editor(&cfg, local, err);
	if (!rc)
		rc = perun_config_check_file(local, err);
	perun_config_release(&cfg);
	return rc;
}

static int cmd_init_run(const struct perun_command *cmd, struct perun_cli *cli,
			const struct perun_params *params, int argc, char **argv)
{
	struct perun_error err = { 0 };
	char *root = NULL, *dir = NULL, *local = NULL, *vcs_path = NULL, *vcs_url = NULL;
	char *existing = NULL, **words = NULL;
	int rc;
	if (argc > 1)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun init [<path>]");
	const char *vcs_type = perun_params_string(params, "vcs-type", "git");
	const char *template_name = perun_params_string(params, "config-template", "master");
	/* A vcs type without a plugin must fail before anything is created. */
	if (!perun_plugin_load(PERUN_KIND_VCS, vcs_type, &err)) {
		perun_error_prefix(&err, "unsupported --vcs-type '%s'", vcs_type);
		perun_error_print(&err);
		return PERUN_EXIT_USAGE;
	}
	root = absolute_path(argc ? argv[0] : ".");
	const char *vcs_arg = perun_params_string(params, "vcs-path", NULL);
	vcs_path = vcs_arg ? absolute_path(vcs_arg) : root ? strdup(root) : NULL;
	words = vcs_words(params);
	if (!root || !vcs_path || !words || asprintf(&dir, "%s/.perun", root[1] ? root : "") < 0 ||
	    asprintf(&local, "%s/local.yml", dir) < 0 ||
	    !(vcs_url = relative_path(dir, vcs_path))) {
		rc = perun_fail(PERUN_EXIT_FAILURE, "out of memory");
		goto out;
	}
	existing = perun_instance_locate(root);
	int reinit = existing && !strcmp(existing, root);
	if (existing && !reinit)
		perun_warn("there exists a perun directory at '%s'", existing);
	/* The repository first: a rejected --vcs-param leaves no .perun behind. */
	rc = perun_vcs_create(vcs_type, vcs_path, (const char *const *)words, &err);
	if (rc)
		perun_error_prefix(&err, "cannot initialize the %s repository at '%s'", vcs_type,
				   vcs_path);
	if (!rc)
		rc = make_store(dir, &err);
	if (!rc)
		rc = write_local_config(root, local, template_name, vcs_type, vcs_url, &err);
	if (rc == 1) {
		printf("configuration file '%s' already exists: run 'perun config reset' "
		       "to reset it\n",
		       local);
		rc = 0;
	}
	if (rc) {
		perun_error_print(&err);
		rc = perun_exit_for(rc);
		goto out;
	}
	printf("%s Perun instance in %s\n", reinit ? "Reinitialized existing" : "Initialized empty",
	       dir);
	if (perun_params_bool(params, "configure", 0)) {
		rc = configure_now(local, &err);
		if (rc) {
			perun_error_print(&err);
			rc = perun_exit_for(rc);
		}
	}
out:
	free(root);
	free(dir);
	free(local);
	free(vcs_path);
	free(vcs_url);
	free(existing);
	free_words(words);
	return rc;
}

const struct perun_command perun_cmd_init = {
	.name = "init",
	.fn = cmd_init_run,
	.options = init_options,
	.args = "[<path>]",
	.summary = "create a Perun instance (and its repository) at <path>",
	.description = "Creates <path>/.perun (default: the current directory) with objects/,\n"
		       "jobs/, logs/, cache/, stats/, tmp/ and the local configuration\n"
		       "local.yml from a template (kept when it exists), after initializing\n"
		       "the repository of --vcs-type at --vcs-path (default <path>; an\n"
		       "existing repository is kept).\n"
		       "Running it again on an instance is safe: nothing is lost.  A\n"
		       "warning is printed when a parent directory already has an instance.",
	.see_also = "perun-config(1)",
};
