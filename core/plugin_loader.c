/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Finding, checking and loading plugins (see plugin_loader.h). */
#include <dirent.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <limits.h>
#include <ltdl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plugin_loader.h"
#include <perun/suggest.h>
#include "crash.h"
#include "crash_report.h"

/* sizeof(struct perun_plugin) in ABI 1.0: anything smaller is broken. */
#define PLUGIN_DESC_MIN_SIZE (offsetof(struct perun_plugin, ops) + sizeof(void *))

static const char *const kind_names[] = {
	[PERUN_KIND_COLLECT] = "collect", [PERUN_KIND_POSTPROCESS] = "postprocess",
	[PERUN_KIND_VIEW] = "view",	  [PERUN_KIND_VCS] = "vcs",
	[PERUN_KIND_CHECK] = "check",	  [PERUN_KIND_FUZZ] = "fuzz",
};
#define KIND_MAX PERUN_KIND_FUZZ

static char **search_path;
static size_t search_len;
static int search_oom; /* a directory could not be added */
static struct perun_loaded_plugin **loaded;
static size_t nloaded;
static int ltdl_ready;

const char *perun_plugin_kind_name(enum perun_plugin_kind kind)
{
	return kind >= 1 && kind <= KIND_MAX ? kind_names[kind] : NULL;
}

enum perun_plugin_kind perun_plugin_kind_from_name(const char *name)
{
	for (int k = 1; k <= KIND_MAX; k++)
		if (!strcmp(kind_names[k], name))
			return (enum perun_plugin_kind)k;
	return 0;
}

static void path_add(const char *dir)
{
	if (!dir || !*dir)
		return;
	for (size_t i = 0; i < search_len; i++)
		if (!strcmp(search_path[i], dir))
			return;
	char **grown = realloc(search_path, (search_len + 2) * sizeof(char *));
	char *copy = grown ? strdup(dir) : NULL;
	if (grown)
		search_path = grown;
	if (!copy) {
		search_oom = 1;
		return;
	}
	search_path[search_len++] = copy;
	search_path[search_len] = NULL;
}

static void path_add_list(const char *list)
{
	if (!list)
		return;
	char *copy = strdup(list), *save = NULL;
	if (!copy) {
		search_oom = 1;
		return; /* strtok_r(NULL) would read its saved pointer, unset */
	}
	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save))
		path_add(dir);
	free(copy);
}

void perun_plugins_init(const char *cli_path)
{
	char buf[PATH_MAX];
	path_add_list(cli_path ? cli_path : getenv("PERUN_PLUGIN_PATH"));
	const char *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	if (xdg && *xdg) {
		snprintf(buf, sizeof(buf), "%s/perun/plugins", xdg);
		path_add(buf);
	} else if (home && *home) {
		snprintf(buf, sizeof(buf), "%s/.local/share/perun/plugins", home);
		path_add(buf);
	}
	path_add(PERUN_PLUGINDIR);
	if (!search_path) {
		static char *none[1];
		search_path = none;
	}
}

const char *const *perun_plugins_search_path(void)
{
	return (const char *const *)search_path;
}

/* The rejection when even its message cannot be allocated. */
static char out_of_memory[] = "out of memory";

void perun_plugin_entry_free(struct perun_loaded_plugin *e)
{
	if (!e)
		return;
	/* Plugins stay mapped: descriptors may still be referenced, and
	 * valgrind can resolve their symbols (PERUN_NO_DLCLOSE is implied). */
	free(e->name);
	free(e->path);
	if (e->error != out_of_memory)
		free(e->error);
	free(e->shadowed_by);
	free(e);
}

void perun_plugins_release(void)
{
	for (size_t i = 0; i < nloaded; i++)
		perun_plugin_entry_free(loaded[i]);
	free(loaded);
	loaded = NULL;
	nloaded = 0;
	for (size_t i = 0; i < search_len; i++)
		free(search_path[i]);
	if (search_len)
		free(search_path);
	search_path = NULL;
	search_len = 0;
	if (ltdl_ready)
		lt_dlexit();
	ltdl_ready = 0;
}

static void reject(struct perun_loaded_plugin *e, const char *fmt, ...) PERUN_PRINTF(2, 3);
static void reject(struct perun_loaded_plugin *e, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t len = strlen(e->name) + strlen(e->path) + strlen(msg) + 32;
	e->error = malloc(len);
	if (e->error)
		snprintf(e->error, len, "plugin '%s' (%s): %s", e->name, e->path, msg);
	else
		e->error = out_of_memory, e->transient = 1;
	e->desc = NULL;
}

/* The operations each kind must provide; NULL-terminated offsets.  An
 * operation added later may stand in for one (alt_offset, 0 when none): a
 * view needs show or show_diff. */
struct required_op {
	size_t offset;
	const char *name;
	size_t alt_offset;
};
#define OP(type, member)                                                                           \
	{                                                                                          \
		offsetof(struct type, member), #member, 0                                          \
	}
#define OP_OR(type, member, alt)                                                                   \
	{                                                                                          \
		offsetof(struct type, member), #member "' or '" #alt, offsetof(struct type, alt)   \
	}
static const struct required_op collect_required[] = { OP(perun_collect_ops, collect),
						       { 0, NULL, 0 } };
static const struct required_op postprocess_required[] = { OP(perun_postprocess_ops, postprocess),
							   { 0, NULL, 0 } };
static const struct required_op view_required[] = { OP_OR(perun_view_ops, show, show_diff),
						    { 0, NULL, 0 } };
static const struct required_op check_required[] = {
	OP_OR(perun_check_ops, compare, compare_series), { 0, NULL, 0 }
};
static const struct required_op fuzz_required[] = { OP(perun_fuzz_ops, fuzz), { 0, NULL, 0 } };
static const struct required_op vcs_required[] = {
	OP(perun_vcs_ops, init),       OP(perun_vcs_ops, open),
	OP(perun_vcs_ops, close),      OP(perun_vcs_ops, rev_parse),
	OP(perun_vcs_ops, major_head), OP(perun_vcs_ops, info),
	OP(perun_vcs_ops, walk),       OP(perun_vcs_ops, is_dirty),
	OP(perun_vcs_ops, save_state), OP(perun_vcs_ops, restore_state),
	OP(perun_vcs_ops, checkout),   { 0, NULL, 0 },
};
/* Size of each ops table in ABI 1.0: the smallest one we accept. */
static const struct {
	const struct required_op *required;
	size_t min_size;
} kind_ops[] = {
	[PERUN_KIND_COLLECT] = { collect_required,
				 offsetof(struct perun_collect_ops, default_units) +
					 sizeof(char *) },
	[PERUN_KIND_POSTPROCESS] = { postprocess_required,
				     offsetof(struct perun_postprocess_ops, after) +
					     sizeof(void *) },
	[PERUN_KIND_VIEW] = { view_required,
			      offsetof(struct perun_view_ops, show) + sizeof(void *) },
	[PERUN_KIND_VCS] = { vcs_required,
			     offsetof(struct perun_vcs_ops, checkout) + sizeof(void *) },
	[PERUN_KIND_CHECK] = { check_required,
			       offsetof(struct perun_check_ops, compare) + sizeof(void *) },
	[PERUN_KIND_FUZZ] = { fuzz_required,
			      offsetof(struct perun_fuzz_ops, fuzz) + sizeof(void *) },
};

static int valid_plugin_name(const char *name)
{
	if (!*name)
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	return 1;
}

static void check_descriptor(struct perun_loaded_plugin *e, enum perun_plugin_kind dir_kind)
{
	const struct perun_plugin *d = e->desc;
	if (d->magic != PERUN_PLUGIN_MAGIC) {
		reject(e, "bad magic 0x%08x (expected 0x%08x); not a perun plugin", d->magic,
		       PERUN_PLUGIN_MAGIC);
		return;
	}
	if (d->abi_major != PERUN_PLUGIN_ABI_MAJOR) {
		reject(e,
		       "ABI %u.%u not supported (core provides %u.%u); rebuild it against perun "
		       "ABI %u.x",
		       d->abi_major, d->abi_minor, PERUN_PLUGIN_ABI_MAJOR, PERUN_PLUGIN_ABI_MINOR,
		       PERUN_PLUGIN_ABI_MAJOR);
		return;
	}
	if (d->abi_minor > PERUN_PLUGIN_ABI_MINOR) {
		reject(e,
		       "ABI %u.%u is newer than the core's %u.%u; upgrade perun or rebuild the "
		       "plugin",
		       d->abi_major, d->abi_minor, PERUN_PLUGIN_ABI_MAJOR, PERUN_PLUGIN_ABI_MINOR);
		return;
	}
	if (d->size < PLUGIN_DESC_MIN_SIZE) {
		reject(e, "descriptor size %u is smaller than the ABI %u.0 size %zu", d->size,
		       PERUN_PLUGIN_ABI_MAJOR, (size_t)PLUGIN_DESC_MIN_SIZE);
		return;
	}
	if (!perun_plugin_kind_name(d->kind)) {
		reject(e, "unknown plugin kind %u", d->kind);
		return;
	}
	if (dir_kind && d->kind != (uint32_t)dir_kind) {
		reject(e, "is a %s plugin but lies in a '%s' directory",
		       perun_plugin_kind_name(d->kind), perun_plugin_kind_name(dir_kind));
		return;
	}
	if (!d->name || strcmp(d->name, e->name)) {
		reject(e, "descriptor names itself '%s'; the file must be named after the plugin",
		       d->name ? d->name : "(null)");
		return;
	}
	const uint32_t *ops_size = d->ops;
	if (!ops_size) {
		reject(e, "%s plugin has no operations table", perun_plugin_kind_name(d->kind));
		return;
	}
	if (*ops_size < kind_ops[d->kind].min_size) {
		reject(e, "%s operations table size %u is smaller than the ABI %u.0 size %zu",
		       perun_plugin_kind_name(d->kind), *ops_size, PERUN_PLUGIN_ABI_MAJOR,
		       kind_ops[d->kind].min_size);
		return;
	}
	for (const struct required_op *op = kind_ops[d->kind].required; op->name; op++) {
		void *const *fn = (void *const *)((const char *)d->ops + op->offset);
		void *const *alt = NULL;
		if (op->alt_offset && *ops_size >= op->alt_offset + sizeof(void *))
			alt = (void *const *)((const char *)d->ops + op->alt_offset);
		if (!*fn && !(alt && *alt)) {
			reject(e, "%s plugin lacks required operation '%s'",
			       perun_plugin_kind_name(d->kind), op->name);
			return;
		}
	}
	e->kind = (enum perun_plugin_kind)d->kind;
}

struct perun_loaded_plugin *perun_plugin_open_file(const char *path, enum perun_plugin_kind kind)
{
	struct perun_loaded_plugin *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(base);
	if (len > 3 && !strcmp(base + len - 3, ".so"))
		len -= 3;
	e->name = strndup(base, len);
	e->path = strdup(path);
	e->kind = kind;
	if (!e->name || !e->path) {
		perun_plugin_entry_free(e);
		return NULL;
	}
	if (!valid_plugin_name(e->name)) {
		reject(e, "file name is not a valid plugin name ([a-z0-9_]+.so)");
		return e;
	}
	if (!ltdl_ready) {
		errno = 0;
		if (lt_dlinit()) {
			/* libltdl names its own failed allocation "invalid loader" */
			if (errno == ENOMEM)
				reject(e, "cannot initialise libltdl: out of memory (%s)",
				       lt_dlerror());
			else
				reject(e, "cannot initialise libltdl: %s", lt_dlerror());
			e->transient = 1; /* it has nothing else to fail on */
			return e;
		}
		ltdl_ready = 1;
	}
	lt_dladvise advise;
	/* lt_dladvise_init allocates; out of memory, libltdl asserts in
	 * lt_dladvise_local on the advise it did not make. */
	if (lt_dladvise_init(&advise)) {
		reject(e, "cannot load: out of memory");
		e->transient = 1;
		return e;
	}
	lt_dladvise_local(&advise);
	lt_dladvise_ext(&advise);
	lt_dlhandle handle = lt_dlopenadvise(path, advise);
	lt_dladvise_destroy(&advise);
	if (!handle) {
		/* libltdl reports any failure as "file not found", yet the
		 * file is there: ask dlopen for the real reason (a missing
		 * library, an undefined symbol, a foreign architecture). */
		const char *why = lt_dlerror();
		void *probe = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
		if (probe)
			dlclose(probe);
		else
			why = dlerror();
		/* It loads now, or the loader ran out of memory: not the
		 * plugin's fault, nor the user's (exit 3, not 2). */
		e->transient = probe || (why && strstr(why, "memory"));
		if (e->transient)
			reject(e, "cannot load: out of memory? (%s)", why ? why : "unknown error");
		else
			reject(e, "cannot load: %s (missing dependency? try 'ldd %s')",
			       why ? why : "unknown error", path);
		return e;
	}
	e->handle = handle;
	char symbol[300];
	snprintf(symbol, sizeof(symbol),
		 PERUN_PLUGIN_DESCRIBE_SYMBOL_PREFIX "%s" PERUN_PLUGIN_DESCRIBE_SYMBOL_SUFFIX,
		 e->name);
	void *sym = lt_dlsym(handle, symbol);
	if (!sym) {
		reject(e, "no symbol '%s'; not a perun plugin, or built under another name",
		       symbol);
		return e;
	}
	const struct perun_plugin *(*describe)(void);
	*(void **)&describe = sym;
	perun_crash_enter_at(perun_plugin_kind_name(kind), e->name, e->path, "describe");
	e->desc = describe();
	perun_crash_leave();
	if (!e->desc) {
		reject(e, "'%s' returned no descriptor", symbol);
		return e;
	}
	check_descriptor(e, kind);
	if (!e->error)
		perun_crash_report_add_plugin(perun_plugin_kind_name(e->desc->kind), e->name,
					      e->desc->version ? e->desc->version : "?", e->path);
	return e;
}

static int is_regular(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void normalise_name(const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s", name);
	for (char *p = out; *p; p++)
		if (*p == '-')
			*p = '_';
}

struct name_set {
	char names[64][64];
	size_t n;
};

static void add_file_name(const char *path, enum perun_plugin_kind kind, void *data)
{
	struct name_set *set = data;
	const char *base = strrchr(path, '/');
	char name[64];
	(void)kind;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(base ? base + 1 : path, "."),
		 base ? base + 1 : path);
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->names[i], name))
			return;
	if (set->n < sizeof(set->names) / sizeof(set->names[0]))
		memcpy(set->names[set->n++], name, sizeof(name));
}

/* "; did you mean 'tableof'?" among the installed plugins of kind. */
static void plugin_suggestion(enum perun_plugin_kind kind, const char *name, char *buf, size_t len)
{
	struct name_set set = { .n = 0 };
	const char *names[64];
	perun_plugins_each_file(kind, add_file_name, &set);
	for (size_t i = 0; i < set.n; i++)
		names[i] = set.names[i];
	perun_suggest(name, names, set.n, "", buf, len);
}

const char *perun_plugin_loaded_path(const char *kind, const char *name)
{
	enum perun_plugin_kind k = kind ? perun_plugin_kind_from_name(kind) : 0;
	for (size_t i = 0; name && i < nloaded; i++)
		if (loaded[i]->kind == k && !strcmp(loaded[i]->name, name))
			return loaded[i]->path;
	return NULL;
}

const struct perun_loaded_plugin *perun_plugin_load(enum perun_plugin_kind kind, const char *name,
						    struct perun_error *err)
{
	char norm[256];
	normalise_name(name, norm, sizeof(norm));
	if (search_oom) {
		/* A search path missing a directory would say "no plugin". */
		perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM, "cannot load %s plugin '%s'",
				      perun_plugin_kind_name(kind), name);
		return NULL;
	}
	for (size_t i = 0; i < nloaded; i++)
		if (loaded[i]->kind == kind && !strcmp(loaded[i]->name, norm)) {
			if (loaded[i]->error) {
				perun_error_set(err, PERUN_EINVAL, "%s", loaded[i]->error);
				return NULL;
			}
			return loaded[i];
		}
	if (!valid_plugin_name(norm)) {
		perun_error_set(err, PERUN_EINVAL, "'%s' is not a valid %s plugin name", name,
				perun_plugin_kind_name(kind));
		return NULL;
	}
	for (size_t d = 0; d < search_len; d++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s/%s.so", search_path[d],
			 perun_plugin_kind_name(kind), norm);
		if (!is_regular(path))
			continue;
		struct perun_loaded_plugin *e = perun_plugin_open_file(path, kind), **grown;
		if (!e || !(grown = realloc(loaded, (nloaded + 1) * sizeof(*loaded)))) {
			perun_plugin_entry_free(e);
			perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM,
					      "cannot load plugin '%s'", path);
			return NULL;
		}
		loaded = grown;
		if (e->transient) {
			/* Not kept: it may load at the next attempt. */
			perun_error_set(err, PERUN_EGENERIC, "%s", e->error);
			perun_plugin_entry_free(e);
			return NULL;
		}
		loaded[nloaded++] = e;
		if (e->error) {
			perun_error_set(err, PERUN_EINVAL, "%s", e->error);
			return NULL;
		}
		return e;
	}
	char hint[256];
	plugin_suggestion(kind, norm, hint, sizeof(hint));
	perun_error_set(err, PERUN_ENOTFOUND,
			"no %s plugin named '%s'%s (see 'perun plugins list')",
			perun_plugin_kind_name(kind), name, hint);
	return NULL;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct perun_loaded_plugin *x = *(const struct perun_loaded_plugin *const *)a;
	const struct perun_loaded_plugin *y = *(const struct perun_loaded_plugin *const *)b;
	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	/* The winner (not shadowed) first. */
	return (x->shadowed_by != NULL) - (y->shadowed_by != NULL);
}

void perun_plugins_each_file_in(const char *root, enum perun_plugin_kind only,
				perun_plugin_file_fn fn, void *data)
{
	for (int k = 1; k <= KIND_MAX; k++) {
		if (only && k != (int)only)
			continue;
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s/%s", root, kind_names[k]);
		DIR *dh = opendir(dir);
		if (!dh)
			continue;
		struct dirent *de;
		while ((de = readdir(dh))) {
			size_t len = strlen(de->d_name);
			if (len < 4 || strcmp(de->d_name + len - 3, ".so"))
				continue;
			char path[PATH_MAX + 256];
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (is_regular(path))
				fn(path, (enum perun_plugin_kind)k, data);
		}
		closedir(dh);
	}
}

void perun_plugins_each_file(enum perun_plugin_kind only, perun_plugin_file_fn fn, void *data)
{
	for (size_t d = 0; d < search_len; d++)
		perun_plugins_each_file_in(search_path[d], only, fn, data);
}

/* Loads through perun_plugin_load, so each name's first match wins and
 * the entries stay cached. */
static void load_file(const char *path, enum perun_plugin_kind kind, void *data)
{
	(void)data;
	const char *base = strrchr(path, '/');
	char name[256];
	snprintf(name, sizeof(name), "%s", base ? base + 1 : path);
	name[strlen(name) - 3] = '\0'; /* ".so" */
	struct perun_error err = { 0 };
	if (valid_plugin_name(name))
		perun_plugin_load(kind, name, &err);
}

static int loaded_cmp(const void *a, const void *b)
{
	const struct perun_loaded_plugin *const *x = a, *const *y = b;
	return strcmp((*x)->name, (*y)->name);
}

size_t perun_plugins_load_all(enum perun_plugin_kind kind, const struct perun_loaded_plugin ***out)
{
	perun_plugins_each_file(kind, load_file, NULL);
	size_t n = 0;
	*out = malloc((nloaded + 1) * sizeof(**out));
	if (!*out)
		return 0;
	for (size_t i = 0; i < nloaded; i++)
		if (loaded[i]->kind == kind && !loaded[i]->error)
			(*out)[n++] = loaded[i];
	qsort(*out, n, sizeof(**out), loaded_cmp);
	return n;
}

struct scan {
	struct perun_loaded_plugin **list;
	size_t n;
};

static void scan_file(const char *path, enum perun_plugin_kind kind, void *data)
{
	struct scan *s = data;
	struct perun_loaded_plugin *e = perun_plugin_open_file(path, kind);
	if (!e)
		return; /* out of memory: the listing misses it */
	e->kind = kind;
	for (size_t i = 0; i < s->n; i++) {
		struct perun_loaded_plugin *other = s->list[i];
		if (strcmp(other->name, e->name) || other->shadowed_by)
			continue;
		if (other->kind == e->kind) {
			e->shadowed_by = strdup(other->path);
		} else if (!e->error && !other->error) {
			char msg[PATH_MAX + 64];
			snprintf(msg, sizeof(msg), "duplicate of %s plugin %s",
				 perun_plugin_kind_name(other->kind), other->path);
			reject(e, "%s", msg);
		}
		break;
	}
	s->list = realloc(s->list, (s->n + 1) * sizeof(*s->list));
	s->list[s->n++] = e;
}

size_t perun_plugins_scan(struct perun_loaded_plugin ***out)
{
	struct scan s = { NULL, 0 };
	perun_plugins_each_file(0, scan_file, &s);
	if (s.n)
		qsort(s.list, s.n, sizeof(*s.list), entry_cmp);
	*out = s.list;
	return s.n;
}

void perun_plugins_scan_free(struct perun_loaded_plugin **entries, size_t n)
{
	for (size_t i = 0; i < n; i++)
		perun_plugin_entry_free(entries[i]);
	free(entries);
}
