/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun utils create <kind> <name>: a new plugin from its kind's template,
 * either in the plugins/ of a perun source checkout (--in-tree, the
 * default) or as an autotools project against the installed SDK
 * (--standalone DIR).  Templates are directories, searched first in
 * $XDG_DATA_HOME/perun/templates/<kind>, then in the source tree's
 * templates/in-tree/<kind> (when run inside one), then in the installed
 * $(pkgdatadir)/templates/in-tree/<kind>; the standalone project's own
 * files come from .../standalone in the same order.
 *
 * In every file name and content @name@, @NAME@ (upper case), @kind@ and
 * @tests@ (the project's test scripts) are replaced; whole lines
 * "@if before@", "@if !before@", "@if after@", "@if !after@" and "@endif@"
 * keep or drop what they enclose (--no-before-phase, --no-after-phase).
 * Everything is written into a temporary sibling directory that is renamed
 * into place at the end, so a failure leaves nothing behind.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perun/fsutil.h>
#include <perun/strbuf.h>

#include "command_list.h"
#include "plugin_loader.h"
#include "utils_store.h"
#include "xalloc.h"

struct create {
	const char *kind, *name;
	char upper[128];
	int no_before, no_after;
	const char *profile_type;
	char *tests; /* space-separated tests/<file> of the kind's template */
};

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *xasprintf_path(const char *a, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(b) + (c ? strlen(c) : 0) + 1;
	char *s = perun_xmalloc(n);
	snprintf(s, n, "%s%s%s", a, b, c ? c : "");
	return s;
}

/* The perun source checkout holding the current directory, or NULL: the
 * nearest directory up with templates/in-tree, plugins/ and autogen.sh,
 * unless a build directory (with config.status) comes first. */
static char *source_tree(void)
{
	char *dir = getcwd(NULL, 0);
	while (dir) {
		char *a = xasprintf_path(dir, "/templates/in-tree", NULL);
		char *b = xasprintf_path(dir, "/plugins", NULL);
		char *c = xasprintf_path(dir, "/autogen.sh", NULL);
		int found = is_dir(a) && is_dir(b) && access(c, F_OK) == 0;
		free(a);
		free(b);
		free(c);
		if (found)
			return dir;
		/* A build directory (often inside the source tree) is not in it. */
		char *d = xasprintf_path(dir, "/config.status", NULL);
		int build_dir = access(d, F_OK) == 0;
		free(d);
		if (build_dir) {
			free(dir);
			return NULL;
		}
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir) {
			free(dir);
			return NULL;
		}
		*slash = '\0';
	}
	return NULL;
}

static char *user_templates(void)
{
	const char *xdg = getenv("XDG_DATA_HOME");
	if (xdg && *xdg)
		return xasprintf_path(xdg, "/perun/templates", NULL);
	const char *home = getenv("HOME");
	return home ? xasprintf_path(home, "/.local/share/perun/templates", NULL) : NULL;
}

/* The first template directory of what (a kind, or "standalone"): the
 * user's, the source tree's (tree may be NULL), the installed one. */
static char *find_template(const char *what, const char *tree)
{
	char *user = user_templates(), *path = NULL;
	const char *sub = strcmp(what, "standalone") ? "/in-tree/" : "/";
	if (user) {
		path = xasprintf_path(user, "/", what);
		free(user);
		if (is_dir(path))
			return path;
		free(path);
	}
	if (tree) {
		char *base = xasprintf_path(tree, "/templates", sub);
		path = xasprintf_path(base, what, NULL);
		free(base);
		if (is_dir(path))
			return path;
		free(path);
	}
	path = xasprintf_path(PERUN_DATADIR "/templates", sub, what);
	if (is_dir(path))
		return path;
	free(path);
	return NULL;
}

static void replace_all(struct perun_strbuf *out, const char *text, const struct create *c)
{
	static const char *const keys[] = { "@name@", "@NAME@", "@kind@", "@tests@",
					    "@profile_type@" };
	const char *values[] = { c->name, c->upper, c->kind, c->tests ? c->tests : "",
				 c->profile_type };
	while (*text) {
		size_t k;
		for (k = 0; k < sizeof(keys) / sizeof(*keys); k++)
			if (!strncmp(text, keys[k], strlen(keys[k])))
				break;
		if (k < sizeof(keys) / sizeof(*keys)) {
			perun_strbuf_addstr(out, values[k]);
			text += strlen(keys[k]);
		} else
			perun_strbuf_addch(out, *text++);
	}
}

/* Whether the marker line (without its newline) keeps what follows. */
static int marker_keeps(const char *line, size_t len, const struct create *c, int *is_marker)
{
	char word[32] = "";
	*is_marker = 0;
	if (len == 7 && !strncmp(line, "@endif@", 7)) {
		*is_marker = 2;
		return 1;
	}
	if (len < 6 || len > 20 || strncmp(line, "@if ", 4) || line[len - 1] != '@')
		return 1;
	memcpy(word, line + 4, len - 5);
	int negate = word[0] == '!';
	const char *phase = word + negate;
	int present;
	if (!strcmp(phase, "before"))
		present = !c->no_before;
	else if (!strcmp(phase, "after"))
		present = !c->no_after;
	else
		return 1;
	*is_marker = 1;
	return negate ? !present : present;
}

/* The template text with its markers applied and placeholders replaced. */
static int render(const char *src, const char *dst, const struct create *c, struct perun_error *err)
{
	char *buf;
	size_t len;
	if (perun_file_read(src, &buf, &len, err))
		return -1;
	struct perun_strbuf out = PERUN_STRBUF_INIT, kept = PERUN_STRBUF_INIT;
	int skipping = 0;
	for (const char *line = buf; line < buf + len;) {
		const char *nl = memchr(line, '\n', (size_t)(buf + len - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(buf + len - line);
		int marker;
		int keeps = marker_keeps(line, n, c, &marker);
		if (marker == 1)
			skipping = !keeps;
		else if (marker == 2)
			skipping = 0;
		else if (!skipping)
			perun_strbuf_add(&kept, line, n + (nl ? 1 : 0));
		line += n + (nl ? 1 : 0);
	}
	free(buf);
	if (kept.buf)
		replace_all(&out, kept.buf, c);
	perun_strbuf_release(&kept);
	struct stat st;
	int rc =
		stat(src, &st)
			? perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot stat '%s'", src)
			: perun_file_write_atomic(dst, out.buf ? out.buf : "", out.len, err);
	if (!rc && chmod(dst, st.st_mode & 0777))
		rc = perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot chmod '%s'", dst);
	perun_strbuf_release(&out);
	return rc;
}

/* Whether a file of the kind's template is left out of a standalone
 * project, which has its own build files and README. */
static int in_tree_only(const char *rel)
{
	return !strcmp(rel, "local.mk") || !strcmp(rel, "plugin.m4") || !strcmp(rel, "README.md");
}

/* Copies the template directory src (symbolic links followed) into dst,
 * rel being the path below the template's top. */
static int copy_tree(const char *src, const char *dst, const char *rel, const struct create *c,
		     int standalone_kind, struct perun_error *err)
{
	DIR *d = opendir(src);
	if (!d)
		return perun_error_set_errno(err, PERUN_EGENERIC, errno,
					     "cannot read template '%s'", src);
	int rc = 0;
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *from = xasprintf_path(src, "/", de->d_name);
		struct perun_strbuf name = PERUN_STRBUF_INIT;
		replace_all(&name, de->d_name, c);
		char *to = xasprintf_path(dst, "/", name.buf);
		char *sub = *rel ? xasprintf_path(rel, "/", de->d_name)
				 : xasprintf_path(de->d_name, "", NULL);
		if (is_dir(from)) {
			if (mkdir(to, 0777) && errno != EEXIST)
				rc = perun_error_set_errno(err, PERUN_EGENERIC, errno,
							   "cannot create '%s'", to);
			else
				rc = copy_tree(from, to, sub, c, standalone_kind, err);
		} else if (!(standalone_kind && in_tree_only(sub)))
			rc = render(from, to, c, err);
		free(from);
		free(to);
		free(sub);
		perun_strbuf_release(&name);
	}
	closedir(d);
	return rc;
}

/* "tests/<a> tests/<b>": the test scripts of a kind's template. */
static char *template_tests(const char *template, const struct create *c)
{
	char *dir = xasprintf_path(template, "/tests", NULL);
	struct perun_strbuf list = PERUN_STRBUF_INIT;
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		size_t len = strlen(names[i]->d_name);
		if (len > 3 && !strcmp(names[i]->d_name + len - 3, ".sh")) {
			if (list.len)
				perun_strbuf_addch(&list, ' ');
			perun_strbuf_addstr(&list, "tests/");
			replace_all(&list, names[i]->d_name, c);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	free(dir);
	return perun_strbuf_detach(&list, NULL);
}

static void list_files(const char *top, const char *rel)
{
	char *dir = *rel ? xasprintf_path(top, "/", rel) : xasprintf_path(top, "", NULL);
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *e = names[i]->d_name;
		if (strcmp(e, ".") && strcmp(e, "..")) {
			char *sub =
				*rel ? xasprintf_path(rel, "/", e) : xasprintf_path(e, "", NULL);
			char *path = xasprintf_path(top, "/", sub);
			if (is_dir(path))
				list_files(top, sub);
			else
				printf("  %s\n", sub);
			free(path);
			free(sub);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	free(dir);
}

/* Runs $VISUAL or $EDITOR (default vi) on file, through the shell so that
 * an editor given with its options works. */
static int edit(const char *file)
{
	const char *editor = getenv("VISUAL");
	if (!editor || !*editor)
		editor = getenv("EDITOR");
	if (!editor || !*editor)
		editor = "vi";
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("PERUN_EDITOR", editor, 1);
		execl("/bin/sh", "sh", "-c", "$PERUN_EDITOR \"$1\"", "sh", file, (char *)NULL);
		_exit(127);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}

/* A name for perun_plugin_<name>_describe, a file and --enable-<name>. */
static int name_ok(const char *name)
{
	if (!(*name >= 'a' && *name <= 'z') || strlen(name) >= 100)
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	return strcmp(name, "all_plugins") && strcmp(name, "werror");
}

/* The ABI's kinds, "collect, postprocess, ...", for the error message. */
static void kinds_list(char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 1; perun_plugin_kind_name((enum perun_plugin_kind)k); k++)
		used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "%s%s",
					 k > 1 ? ", " : "",
					 perun_plugin_kind_name((enum perun_plugin_kind)k));
}

static int cmd_utils_create(const struct perun_command *cmd, struct perun_cli *cli,
			    const struct perun_params *params, int argc, char **argv)
{
	if (argc != 2)
		return perun_fail(PERUN_EXIT_USAGE, "usage: perun utils create <kind> <name>");
	struct create c = { .kind = argv[0], .name = argv[1] };
	const char *standalone = perun_params_string(params, "standalone", NULL);
	int in_tree = perun_params_bool(params, "in-tree", 0);
	c.no_before = perun_params_bool(params, "no-before-phase", 0);
	c.no_after = perun_params_bool(params, "no-after-phase", 0);
	c.profile_type = perun_params_string(params, "supported-type", "time");
	if (standalone && in_tree)
		return perun_fail(PERUN_EXIT_USAGE,
				  "utils create: --in-tree and --standalone exclude each other");
	if (!perun_plugin_kind_from_name(c.kind)) {
		char kinds[256];
		kinds_list(kinds, sizeof(kinds));
		return perun_fail(PERUN_EXIT_USAGE, "unknown plugin kind '%s' (choose from %s)",
				  c.kind, kinds);
	}
	if (!name_ok(c.name))
		return perun_fail(PERUN_EXIT_USAGE,
				  "bad plugin name '%s': it must match [a-z][a-z0-9_]* "
				  "(and be neither all_plugins nor werror)",
				  c.name);
	if (perun_params_count(params, "supported-type") && strcmp(c.kind, "collect"))
		return perun_fail(
			PERUN_EXIT_USAGE,
			"--supported-type is the profile type of a collector, not of a %s", c.kind);
	for (size_t i = 0; c.name[i]; i++)
		c.upper[i] =
			(char)(c.name[i] >= 'a' && c.name[i] <= 'z' ? c.name[i] - 32 : c.name[i]);

	int rc = PERUN_EXIT_USAGE;
	char *tree = source_tree(), *template = NULL, *skeleton = NULL, *dest = NULL;
	char *tmp = NULL;
	struct perun_error err = { 0 };
	if (!standalone && !tree) {
		char *cwd = getcwd(NULL, 0);
		perun_fail(rc,
			   "utils create --in-tree: '%s' is not in a perun source checkout "
			   "(use --standalone <dir>)",
			   cwd ? cwd : ".");
		free(cwd);
		goto out;
	}
	template = find_template(c.kind, tree);
	if (!template) {
		rc = perun_fail(
			PERUN_EXIT_FAILURE,
			"no template for plugin kind '%s' (in $XDG_DATA_HOME/perun/templates, "
			"%s%s" PERUN_DATADIR "/templates)",
			c.kind, tree ? tree : "", tree ? "/templates, " : "");
		goto out;
	}
	if (standalone) {
		skeleton = find_template("standalone", tree);
		if (!skeleton) {
			rc = perun_fail(PERUN_EXIT_FAILURE,
					"no standalone project template (in "
					"$XDG_DATA_HOME/perun/templates, %s%s" PERUN_DATADIR
					"/templates)",
					tree ? tree : "", tree ? "/templates, " : "");
			goto out;
		}
		dest = xasprintf_path(standalone, "", NULL);
		size_t n = strlen(dest);
		while (n > 1 && dest[n - 1] == '/')
			dest[--n] = '\0';
	} else {
		char *glob_dir = xasprintf_path(tree, "/plugins", NULL);
		DIR *d = opendir(glob_dir);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char *kdir = xasprintf_path(glob_dir, "/", de->d_name);
			char *other = xasprintf_path(kdir, "/", c.name);
			int taken = access(other, F_OK) == 0;
			free(kdir);
			if (taken) {
				perun_fail(rc, "a plugin named '%s' exists already: '%s'", c.name,
					   other);
				free(other);
				closedir(d);
				free(glob_dir);
				goto out;
			}
			free(other);
		}
		if (d)
			closedir(d);
		char *kind_dir = xasprintf_path(glob_dir, "/", c.kind);
		free(glob_dir);
		dest = xasprintf_path(kind_dir, "/", c.name);
		free(kind_dir);
	}
	if (access(dest, F_OK) == 0) {
		perun_fail(rc, "'%s' already exists", dest);
		goto out;
	}
	char pid[32];
	snprintf(pid, sizeof(pid), ".new.%ld", (long)getpid());
	tmp = xasprintf_path(dest, pid, NULL);
	if (!standalone) {
		char *parent = xasprintf_path(dest, "", NULL);
		*strrchr(parent, '/') = '\0';
		int failed = perun_mkdirs(parent, 0777, &err);
		free(parent);
		if (failed)
			goto fail;
	}
	if (mkdir(tmp, 0777)) {
		perun_error_set_errno(&err, PERUN_EGENERIC, errno, "cannot create '%s'", dest);
		goto fail;
	}
	if (standalone) {
		c.tests = template_tests(template, &c);
		if (copy_tree(skeleton, tmp, "", &c, 0, &err) ||
		    copy_tree(template, tmp, "", &c, 1, &err))
			goto fail;
	} else if (copy_tree(template, tmp, "", &c, 0, &err))
		goto fail;
	if (rename(tmp, dest)) {
		perun_error_set_errno(&err, PERUN_EGENERIC, errno, "cannot create '%s'", dest);
		goto fail;
	}
	printf("created %s:\n", dest);
	list_files(dest, "");
	if (standalone)
		printf("now run autoreconf -fi, ./configure and make in %s (make check runs its "
		       "tests, make install installs it for perun)\n",
		       dest);
	else
		printf("now run ./autogen.sh in %s, then configure (the plugin is on by default;\n"
		       "--disable-%s turns it off) and make\n",
		       tree, c.name);
	rc = PERUN_EXIT_OK;
	if (!perun_params_bool(params, "no-edit", 0)) {
		char *main_file = xasprintf_path(dest, "/", c.name);
		char *source = xasprintf_path(main_file, ".c", NULL);
		if (edit(source))
			rc = perun_fail(PERUN_EXIT_FAILURE, "the editor failed on '%s'", source);
		free(main_file);
		free(source);
	}
	goto out;
fail:
	perun_error_print(&err);
	rc = perun_exit_for(err.code);
	if (rc == PERUN_EXIT_OK)
		rc = PERUN_EXIT_FAILURE;
	perun_remove_tree(tmp);
out:
	free(tree);
	free(template);
	free(skeleton);
	free(dest);
	free(tmp);
	free(c.tests);
	return rc;
}

static const struct perun_option create_options[] = {
	{ "in-tree", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "make plugins/<kind>/<name>/ in the perun source checkout around the current "
	  "directory (the default)",
	  0 },
	{ "standalone", NULL, PERUN_OPTION_STRING, NULL, NULL, "<dir>",
	  "make <dir>, an autotools project built against the installed perun-plugin.pc", 0 },
	{ "no-before-phase", "nb", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "leave out the optional before phase", 0 },
	{ "no-after-phase", "na", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "leave out the optional after phase", 0 },
	{ "supported-type", "st", PERUN_OPTION_CHOICE, NULL, "time|memory|mixed", "<type>",
	  "the profile type a collector makes (default time)", 0 },
	{ "no-edit", "ne", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "do not open the main source file in $VISUAL or $EDITOR", 0 },
	{ NULL },
};

const struct perun_command perun_cmd_utils_create = {
	.name = "create",
	.fn = cmd_utils_create,
	.options = create_options,
	.args = "<kind> <name>",
	.summary = "make a new plugin from its kind's template",
	.description = "Makes a new plugin of <kind> (collect, postprocess, view, check, vcs: the\n"
		       "kinds of the plugin ABI) named <name> ([a-z][a-z0-9_]*) from a template:\n"
		       "with --in-tree (the default) the directory plugins/<kind>/<name>/ of the\n"
		       "perun source checkout around the current directory (source, local.mk,\n"
		       "plugin.m4, README.md and a test; ./autogen.sh finds it, no build file\n"
		       "needs an edit), with --standalone <dir> an autotools project built\n"
		       "against the installed SDK (perun-plugin.pc, perun.m4).\n"
		       "\n"
		       "Templates are searched in $XDG_DATA_HOME/perun/templates/<kind> (and\n"
		       "/standalone for the project files) first, then in the source tree's\n"
		       "templates/in-tree/<kind> when run inside one, then in the installed\n"
		       "templates.  Unless --no-edit, $VISUAL or $EDITOR (default vi) opens the\n"
		       "plugin's main source file.  Nothing is written when the kind, the name\n"
		       "or the target directory is refused.",
	.see_also = "perun-plugins(1)",
};
