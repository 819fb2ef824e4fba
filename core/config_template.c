/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The local configuration templates of "perun init -t" (Python Perun's
 * logic/config_templates.py): master, developer and user.
 */
#define _GNU_SOURCE /* asprintf */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "config.h"

/* ---- local templates (logic/config_templates.py) ----------------------- */

/* Names that pass through YAML as the same plain string, else quoted. */
static void put_scalar(FILE *out, const char *s)
{
	int plain = perun_yaml_plain_is_string(s, strlen(s)) &&
		    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			      "0123456789_./+-") == strlen(s) &&
		    s[0] != '-';
	if (plain) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		if ((unsigned char)*s < 0x20)
			fprintf(out, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

struct name_list {
	char **items;
	size_t count;
};

static void name_list_add(struct name_list *list, const char *name)
{
	char **grown = realloc(list->items, (list->count + 1) * sizeof(char *));
	if (!grown)
		return;
	list->items = grown;
	list->items[list->count++] = strdup(name);
}

static void name_list_release(struct name_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->items[i]);
	free(list->items);
	list->items = NULL;
	list->count = 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Like os.walk from ".": hidden directories are skipped; the files directly
 * inside a directory whose name is in folders are collected (executables
 * only when want_exec).  Sorted for a stable result.
 */
static void collect_candidates(const char *dir, const char *const *folders, int want_exec,
			       struct name_list *found, int depth)
{
	DIR *d = opendir(dir);
	if (!d || depth > 64) {
		if (d)
			closedir(d);
		return;
	}
	struct name_list entries = { 0 };
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			name_list_add(&entries, de->d_name);
	closedir(d);
	if (entries.count) /* qsort's base may not be NULL, even for no items */
		qsort(entries.items, entries.count, sizeof(char *), compare_names);
	const char *base = strrchr(dir, '/');
	base = base ? base + 1 : dir;
	int collect = 0;
	for (const char *const *f = folders; *f; f++)
		collect |= !strcmp(base, *f);
	for (size_t i = 0; i < entries.count; i++) {
		char *path;
		struct stat st, lst;
		if (!strcmp(dir, "."))
			path = strdup(entries.items[i]);
		else if (asprintf(&path, "%s/%s", dir, entries.items[i]) < 0)
			path = NULL;
		if (!path)
			continue;
		int is_dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
		if (is_dir && lstat(path, &lst) == 0 && S_ISDIR(lst.st_mode))
			collect_candidates(path, folders, want_exec, found, depth + 1);
		else if (!is_dir && collect &&
			 (!want_exec || (S_ISREG(st.st_mode) && access(path, X_OK) == 0)))
			name_list_add(found, path);
		free(path);
	}
	name_list_release(&entries);
}

/* Perun runs 'make' before looking for executables; a failure is fine. */
static void run_make_quietly(void)
{
	static const char *const makefiles[] = { "GNUmakefile", "makefile", "Makefile" };
	int any = 0;
	for (size_t i = 0; i < sizeof(makefiles) / sizeof(*makefiles); i++)
		any |= access(makefiles[i], F_OK) == 0;
	if (!any)
		return;
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
	char *argv[] = { "make", NULL };
	extern char **environ;
	pid_t pid;
	if (posix_spawnp(&pid, "make", &actions, NULL, argv, environ) == 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	posix_spawn_file_actions_destroy(&actions);
}

static void put_list(FILE *out, const char *key, const struct name_list *list,
		     const char *extend_note, const char *example)
{
	if (list->count) {
		fprintf(out, "## %s\n%s:\n", extend_note, key);
		for (size_t i = 0; i < list->count; i++) {
			fputs("  - ", out);
			put_scalar(out, list->items[i]);
			fputc('\n', out);
		}
	} else {
		fprintf(out, "## Uncomment and edit the following region:\n%s", example);
	}
}

char *perun_config_template_dup(const char *name, const char *vcs_type, const char *vcs_url)
{
	static const char *const exec_folders[] = { "build", "_build", "dist", NULL };
	static const char *const workload_folders[] = { "workload",   "workloads", "_workload",
							"_workloads", "examples",  "payload",
							"payloads",   "_payloads", "_payload",
							"_examples",  NULL };
	int developer, user;
	if (!strcmp(name, "master"))
		developer = user = 0;
	else if (!strcmp(name, "developer"))
		developer = 1, user = 0;
	else if (!strcmp(name, "user"))
		developer = user = 1;
	else
		return NULL;
	struct name_list cmds = { 0 }, workloads = { 0 };
	if (user) {
		run_make_quietly();
		collect_candidates(".", exec_folders, 1, &cmds, 0);
		collect_candidates(".", workload_folders, 0, &workloads, 0);
	}
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		goto out;
	fputs("\nvcs:\n  type: ", out);
	put_scalar(out, vcs_type);
	fputs("\n  url: ", out);
	put_scalar(out, vcs_url);
	fputs("\n\n## The following sets the executables (binaries / scripts).\n"
	      "## These will be profiled by selected collectors.\n",
	      out);
	put_list(out, "cmds", &cmds,
		 "Extend the following region with more executable commands to be profiled:",
		 "# cmds:\n#   - echo\n");
	fputs("\n## The following sets the profiling workload for given commands\n", out);
	put_list(out, "workloads", &workloads,
		 "Extend the following region to profile more different workloads:",
		 "# workloads:\n#   - hello\n#   - world\n");
	fputs("\n## The following contains the set of collectors (profilers) that will "
	      "collect performance data.\n",
	      out);
	if (user)
		fputs("## Extend the following region to use more profilers:\n"
		      "collectors:\n"
		      "    - name: time\n"
		      "      params:\n"
		      "        warmup: 3\n"
		      "        repeat: 10\n",
		      out);
	else
		fputs("## Uncomment and edit the following region:\n"
		      "# collectors:\n"
		      "#   - name: time\n",
		      out);
	fputs("## Try '$ perun collect --help' to obtain list of supported collectors!\n"
	      "\n"
	      "## The following contains the ordered list of postprocess phases that are "
	      "executed after collection.\n"
	      "## Uncomment and edit the following region (!order matters!):\n"
	      "# postprocessors:\n"
	      "#   - name: regression_analysis\n"
	      "#     params:\n"
	      "#       method: full\n"
	      "#   - name: regressogram\n"
	      "## Try '$ perun plugins list' to obtain list of supported postprocessors!\n"
	      "\n"
	      "## The following option automatically registers newly collected profiles "
	      "for current minor version\n",
	      out);
	if (user)
		fputs("profiles:\n    register_after_run: true\n", out);
	else
		fputs("## Uncomment the following to enable this behaviour:\n"
		      "# profiles:\n"
		      "#   register_after_run: true\n",
		      out);
	fputs("\n## Be default, we sort the profiles by time\n"
	      "format:\n"
	      "  sort_profiles_by: time\n",
	      out);
	if (user)
		fputs("## The following changes the automatically generated name of the "
		      "profiles\n"
		      "  output_profile_template: \"%collector%-of-%cmd%-%workload%-%date%\"\n",
		      out);
	/* Developer and user uncomment the degradation and execute sections. */
	const char *c = developer ? "" : "# ";
	fprintf(out,
		"\n## The following options control the degradation checks in repository\n"
		"%sdegradation:\n"
		"## Setting the following combination of option to true will make Perun "
		"collect new profiles,\n"
		"## before checking for degradations and store them in logs at directory "
		".perun/logs/\n"
		"%s  collect_before_check: true\n"
		"%s  log_collect: true\n"
		"## Setting this to first (resp. all) will apply the first (resp. all) "
		"found check methods\n"
		"## for corresponding configurations\n"
		"#   apply: first\n"
		"## Specification of list of rules for applying degradation checks\n"
		"%s  strategies:\n"
		"%s    - method: average_amount_threshold\n"
		"\n"
		"## To run your custom steps before any collection (un)comment the "
		"following region:\n"
		"%sexecute:\n"
		"%s  pre_run:\n"
		"%s    - make\n",
		c, c, c, c, c, c, c, c);
	if (fclose(out) != 0) {
		free(text);
		text = NULL;
	}
out:
	name_list_release(&cmds);
	name_list_release(&workloads);
	return text;
}
