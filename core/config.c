/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Configuration levels (runtime, local, shared): loading them, looking keys
 * up through them, setting keys, and editing or checking a file.
 */
#define _GNU_SOURCE /* asprintf */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/wait.h>

#include "config.h"
#include <perun/suggest.h>

/* ---- levels ----------------------------------------------------------- */

/* Perun's shared defaults (logic/config.py: init_shared_config_at). */
static const char shared_defaults[] =
	"general:\n"
	"  editor: vim\n"
	"  paging: auto\n"
	"format:\n"
	"  status: \"\u2503 %type% \u2503 %collector%  \u2503 (%time%) \u2503 %source% \u2503\"\n"
	"  shortlog: \"%checksum:6% (%stats%) %desc% %changes%\"\n"
	"  output_profile_template: \"%collector%-%cmd%-%workload%-%date%\"\n"
	"  output_show_template: \"%collector%-%cmd%-%workload%-%date%\"\n"
	"  sort_profiles_by: time\n"
	"degradation:\n"
	"  apply: all\n"
	"  strategies:\n"
	"    - {collector: instructions, method: average_amount_threshold,\n"
	"       options: {threshold: 1.05}}\n"
	"    - {collector: instructions, method: none}\n"
	"    - {interleaved: true, subtype: user, method: average_amount_threshold,\n"
	"       options: {threshold: 1.05}}\n"
	"    - {interleaved: true, method: average_amount_threshold}\n"
	"    - {interleaved: true, method: none}\n"
	"    - method: average_amount_threshold\n"
	"generators:\n"
	"  workload:\n"
	"    - {id: basic_strings, type: string, min_len: 8, max_len: 128, step: 8}\n"
	"    - {id: basic_integers, type: integer, min_range: 100, max_range: 10000,"
	" step: 200}\n"
	"    - {id: basic_files, type: textfile, min_lines: 10, max_lines: 10000,"
	" step: 1000}\n";

/* $PERUN_CONFIG_DIR/shared.yml, else the XDG or ~/.config location. */
static char *shared_config_path(struct perun_error *err)
{
	const char *dir = getenv("PERUN_CONFIG_DIR");
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char *path = NULL;
	int n;
	if (dir && *dir)
		n = asprintf(&path, "%s/shared.yml", dir);
	else if (xdg && *xdg)
		n = asprintf(&path, "%s/perun/shared.yml", xdg);
	else if (home && *home)
		n = asprintf(&path, "%s/.config/perun/shared.yml", home);
	else {
		perun_error_set(err, PERUN_EINVAL,
				"cannot locate the shared configuration: "
				"set PERUN_CONFIG_DIR or HOME");
		return NULL;
	}
	if (n < 0) {
		perun_error_set(err, PERUN_EGENERIC, "out of memory");
		return NULL;
	}
	return path;
}

/* Write the shared defaults to path; also used by 'config reset'. */
int perun_config_reset_shared(const char *path, struct perun_error *err)
{
	json_t *defaults = NULL;
	char *dir = strdup(path);
	char *slash = strrchr(dir, '/');
	int rc = 0;
	if (slash && slash != dir) {
		*slash = '\0';
		rc = perun_mkdirs(dir, 0755, err);
	}
	free(dir);
	if (!rc)
		rc = perun_yaml_load(shared_defaults, sizeof(shared_defaults) - 1, &defaults, err);
	if (!rc)
		rc = perun_yaml_save_file(path, defaults, err);
	json_decref(defaults);
	return rc;
}

/* Read one level's file; a missing file reads as an empty mapping. */
static int load_level(const char *path, json_t **out, struct perun_error *err)
{
	char *buf;
	size_t len;
	int rc = perun_file_read(path, &buf, &len, err);
	if (rc == -PERUN_ENOTFOUND) {
		perun_error_clear(err);
		*out = json_object();
		return 0;
	}
	if (rc)
		return rc;
	rc = perun_yaml_load(buf, len, out, err);
	free(buf);
	if (!rc && json_is_null(*out)) {
		json_decref(*out);
		*out = json_object();
	} else if (!rc && !json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		rc = perun_error_set(err, PERUN_EINVAL, "line 1: expected a mapping of keys");
	}
	if (rc)
		perun_error_prefix(err,
				   err->code == PERUN_EINVAL ? "corrupted configuration file '%s'"
							     : "configuration file '%s'",
				   path);
	return rc;
}

int perun_config_init(struct perun_config *cfg, const char *local_path, struct perun_error *err)
{
	int rc;
	memset(cfg, 0, sizeof(*cfg));
	cfg->level[PERUN_CONFIG_RUNTIME] = json_object();
	cfg->path[PERUN_CONFIG_SHARED] = shared_config_path(err);
	if (!cfg->path[PERUN_CONFIG_SHARED]) {
		rc = -err->code;
		goto out;
	}
	/*
	 * A missing shared file is created with the defaults; where it cannot
	 * be (a read-only home), the defaults serve from memory and only
	 * saving to it fails.
	 */
	if (access(cfg->path[PERUN_CONFIG_SHARED], F_OK) != 0 &&
	    perun_config_reset_shared(cfg->path[PERUN_CONFIG_SHARED], err) != 0) {
		perun_error_clear(err);
		rc = perun_yaml_load(shared_defaults, sizeof(shared_defaults) - 1,
				     &cfg->level[PERUN_CONFIG_SHARED], err);
	} else {
		rc = load_level(cfg->path[PERUN_CONFIG_SHARED], &cfg->level[PERUN_CONFIG_SHARED],
				err);
	}
	if (rc || !local_path)
		goto out;
	cfg->path[PERUN_CONFIG_LOCAL] = strdup(local_path);
	rc = load_level(local_path, &cfg->level[PERUN_CONFIG_LOCAL], err);
out:
	if (rc)
		perun_config_release(cfg);
	return rc;
}

void perun_config_release(struct perun_config *cfg)
{
	for (int i = 0; i < 3; i++) {
		json_decref(cfg->level[i]);
		free(cfg->path[i]);
		cfg->level[i] = NULL;
		cfg->path[i] = NULL;
	}
}

/* [a-zA-Z0-9_]+ separated by single dots. */
int perun_config_key_valid(const char *key)
{
	if (!key || !*key)
		return 0;
	for (size_t word = 0; *key; key++) {
		if (*key == '.') {
			if (!word || !key[1])
				return 0;
			word = 0;
		} else if (isalnum((unsigned char)*key) || *key == '_') {
			word++;
		} else {
			return 0;
		}
	}
	return 1;
}

json_t *perun_config_get(const struct perun_config *cfg, enum perun_config_level level,
			 const char *key)
{
	json_t *node = cfg->level[level];
	if (!node || !perun_config_key_valid(key))
		return NULL;
	const char *p = key;
	while (node && *p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (!json_is_object(node))
			return NULL;
		node = json_object_getn(node, p, n);
		p += n + (dot ? 1 : 0);
	}
	return node;
}

json_t *perun_config_lookup(const struct perun_config *cfg, const char *key)
{
	for (int level = PERUN_CONFIG_RUNTIME; level <= PERUN_CONFIG_SHARED; level++) {
		json_t *value = perun_config_get(cfg, (enum perun_config_level)level, key);
		if (value)
			return value;
	}
	return NULL;
}

const char *perun_config_lookup_string(const struct perun_config *cfg, const char *key,
				       const char *fallback)
{
	const char *s = json_string_value(perun_config_lookup(cfg, key));
	return s ? s : fallback;
}

json_t *perun_config_gather(const struct perun_config *cfg, const char *key)
{
	json_t *all = json_array();
	for (int level = PERUN_CONFIG_RUNTIME; level <= PERUN_CONFIG_SHARED; level++) {
		json_t *value = perun_config_get(cfg, (enum perun_config_level)level, key);
		if (json_is_array(value))
			json_array_extend(all, value);
		else if (value)
			json_array_append(all, value);
	}
	return all;
}

int perun_config_set(struct perun_config *cfg, enum perun_config_level level, const char *key,
		     json_t *value, struct perun_error *err)
{
	int rc = 0;
	if (!perun_config_key_valid(key)) {
		rc = perun_error_set(err, PERUN_EINVAL, "invalid configuration key '%s'", key);
		goto out;
	}
	if (!cfg->level[level]) {
		rc = perun_error_set(err, PERUN_ENOTFOUND, "no %s configuration to set '%s' in",
				     level == PERUN_CONFIG_LOCAL ? "local" : "shared", key);
		goto out;
	}
	/* Work on a copy so a failed save leaves memory like the file. */
	json_t *root = json_deep_copy(cfg->level[level]);
	if (!root) {
		rc = perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM, "cannot set '%s'", key);
		goto out;
	}
	json_t *node = root;
	const char *p = key;
	for (;;) {
		const char *dot = strchr(p, '.');
		if (!dot)
			break;
		json_t *child = json_object_getn(node, p, (size_t)(dot - p));
		if (!child) {
			child = json_object();
			if (json_object_setn_new(node, p, (size_t)(dot - p), child)) {
				rc = perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM,
							   "cannot set '%s'", key);
				json_decref(root);
				goto out;
			}
		} else if (!json_is_object(child)) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "cannot set '%s': '%.*s' is not a section", key,
					     (int)(dot - key), key);
			json_decref(root);
			goto out;
		}
		node = child;
		p = dot + 1;
	}
	if (!value || json_object_set(node, p, value)) {
		rc = perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM, "cannot set '%s'", key);
		json_decref(root);
		goto out;
	}
	if (cfg->path[level] && level != PERUN_CONFIG_RUNTIME)
		rc = perun_yaml_save_file(cfg->path[level], root, err);
	if (rc) {
		json_decref(root);
		goto out;
	}
	json_decref(cfg->level[level]);
	cfg->level[level] = root;
out:
	json_decref(value);
	return rc;
}

/* ---- editing ---------------------------------------------------------- */

int perun_config_run_editor(const struct perun_config *cfg, const char *path,
			    struct perun_error *err)
{
	const char *editor = getenv("EDITOR");
	if (!editor || !*editor)
		editor = perun_config_lookup_string(cfg, "general.editor", "vi");
	/* Through the shell, like git, so "code --wait" works. */
	char *script;
	if (asprintf(&script, "%s \"$@\"", editor) < 0)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	char *argv[] = { "sh", "-c", script, "sh", (char *)path, NULL };
	extern char **environ;
	pid_t pid;
	int status = 0, rc = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
	if (rc) {
		rc = perun_error_set_errno(err, PERUN_ETOOL, rc, "cannot run editor '%s'", editor);
		goto out;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			rc = perun_error_set_errno(err, PERUN_ETOOL, errno,
						   "cannot wait for editor '%s'", editor);
			goto out;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		rc = perun_error_set(err, PERUN_ETOOL, "editor '%s' failed on '%s' (%s %d)", editor,
				     path, WIFEXITED(status) ? "exit status" : "signal",
				     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
out:
	free(script);
	return rc;
}

/* The file of a level after an edit must still read as configuration. */
int perun_config_check_file(const char *path, struct perun_error *err)
{
	json_t *value = NULL;
	int rc = load_level(path, &value, err);
	json_decref(value);
	return rc;
}

/* ---- known keys --------------------------------------------------------- */

/* The keys Perun reads ("section.key", or "section" for a whole value);
 * "degradation.*" also takes each check method's options. */
static const char *const known_keys[] = {
	"vcs.type",
	"vcs.url",
	"cmds",
	"args",
	"workloads",
	"collectors",
	"postprocessors",
	"execute.pre_run",
	"execute.timeout",
	"profiles.register_after_run",
	"profiles.overwrite",
	"format.status",
	"format.shortlog",
	"format.output_profile_template",
	"format.output_show_template",
	"format.sort_profiles_by",
	"format.sort_profiles_order",
	"degradation.collect_before_check",
	"degradation.log_collect",
	"degradation.apply",
	"degradation.strategies",
	"generators.workload",
	"general.editor",
	"general.paging",
	"selection_method",
	"import.dir",
	"path.logs",
	"showdiff.offline",
	"showdiff.display_style",
	"profile.aggregation",
	"share.remote",
	NULL,
};

static int is_known(const char *key)
{
	for (const char *const *k = known_keys; *k; k++)
		if (!strcmp(*k, key))
			return 1;
	return 0;
}

/*
 * Report section.key (key alone at the top), with a suggestion among the
 * section's known keys (or the known sections); with near_only, only
 * when one is close.
 */
static void report(const char *section, const char *key, int near_only, perun_config_key_fn fn,
		   void *data)
{
	char names[64][64];
	const char *list[64];
	size_t n = 0, plen = section ? strlen(section) : 0;
	for (const char *const *k = known_keys; *k && n < 64; k++) {
		const char *dot = strchr(*k, '.');
		size_t head = dot ? (size_t)(dot - *k) : strlen(*k);
		if (section && dot && head == plen && !strncmp(*k, section, plen))
			snprintf(names[n++], sizeof(names[0]), "%s", dot + 1);
		else if (!section &&
			 (!n || strlen(names[n - 1]) != head || strncmp(names[n - 1], *k, head)))
			snprintf(names[n++], sizeof(names[0]), "%.*s", (int)head, *k);
	}
	for (size_t i = 0; i < n; i++)
		list[i] = names[i];
	char hint[256], full[320], prefix[160];
	snprintf(prefix, sizeof(prefix), "%s%s", section ? section : "", section ? "." : "");
	perun_suggest(key, list, n, prefix, hint, sizeof(hint));
	snprintf(full, sizeof(full), "%s%s", prefix, key);
	if (!near_only || hint[0])
		fn(full, hint, data);
}

void perun_config_unknown_keys(const struct perun_config *cfg, perun_config_key_fn fn, void *data)
{
	const json_t *local = cfg->level[PERUN_CONFIG_LOCAL];
	const char *section;
	json_t *value;
	json_object_foreach((json_t *)local, section, value)
	{
		if (is_known(section))
			continue;
		char prefix[160];
		snprintf(prefix, sizeof(prefix), "%s.", section);
		int is_section = 0;
		for (const char *const *k = known_keys; *k; k++)
			is_section |= !strncmp(*k, prefix, strlen(prefix));
		if (!is_section || !json_is_object(value)) {
			report(NULL, section, 0, fn, data);
			continue;
		}
		const char *key;
		json_t *sub;
		json_object_foreach(value, key, sub)
		{
			char full[320];
			snprintf(full, sizeof(full), "%s.%s", section, key);
			/* A check method's options are degradation.<option>:
			 * there only a near miss of a known key is reported. */
			if (!is_known(full))
				report(section, key, !strcmp(section, "degradation"), fn, data);
		}
	}
}
