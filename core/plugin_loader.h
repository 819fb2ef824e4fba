/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Finding, checking and loading plugins (DESIGN.md section 2).
 *
 * Search path, first match by name wins: --plugin-path or
 * $PERUN_PLUGIN_PATH (colon separated), $XDG_DATA_HOME/perun/plugins
 * (~/.local/share/perun/plugins), then PERUN_PLUGINDIR.  Each directory
 * holds <kind>/<name>.so.  Plugins are loaded on demand by name; only
 * "perun plugins list" scans everything.
 */
#ifndef PERUN_CORE_PLUGIN_LOADER_H
#define PERUN_CORE_PLUGIN_LOADER_H

#include <perun/perun.h>

struct perun_loaded_plugin {
	char *name;
	char *path;
	enum perun_plugin_kind kind;	 /* from the directory it was found in */
	const struct perun_plugin *desc; /* NULL when rejected */
	char *error;			 /* rejection message, or NULL */
	char *shadowed_by;		 /* path of the plugin that wins, or NULL */
	int transient;			 /* rejected for want of memory, not for a defect */
	void *handle;			 /* lt_dlhandle */
};

/* Set the search path from --plugin-path (may be NULL); call once. */
void perun_plugins_init(const char *cli_path);
void perun_plugins_release(void);

/* "collect", "view", ... and back; 0 / NULL when unknown. */
const char *perun_plugin_kind_name(enum perun_plugin_kind kind);
enum perun_plugin_kind perun_plugin_kind_from_name(const char *name);

/*
 * Load the plugin name of kind (hyphens in name are read as underscores).
 * Returns a borrowed entry that lives until perun_plugins_release, or NULL
 * with err filled ("no collect plugin named 'x'" or the rejection).
 */
const struct perun_loaded_plugin *perun_plugin_load(enum perun_plugin_kind kind, const char *name,
						    struct perun_error *err);

/* The file of the loaded plugin kind ("collect", ...) name, or NULL. */
const char *perun_plugin_loaded_path(const char *kind, const char *name);

/*
 * Check one file and load it (used by load and by the scan).  kind is what
 * the directory says; 0 accepts any kind.  The entry is returned with
 * error set when rejected, NULL only when out of memory; caller frees it
 * with perun_plugin_entry_free.
 */
struct perun_loaded_plugin *perun_plugin_open_file(const char *path, enum perun_plugin_kind kind);
void perun_plugin_entry_free(struct perun_loaded_plugin *entry);

/*
 * Scan the whole search path.  *out gets an array of entries (loaded,
 * rejected and shadowed) sorted by kind and name; free with
 * perun_plugins_scan_free.
 */
size_t perun_plugins_scan(struct perun_loaded_plugin ***out);
void perun_plugins_scan_free(struct perun_loaded_plugin **entries, size_t n);

/*
 * Call fn with the path of every regular <dir>/<kind>/<name>.so in the
 * search path, in search order, without loading anything; only limits it
 * to one kind (0: all).  path is valid during the call.
 */
typedef void (*perun_plugin_file_fn)(const char *path, enum perun_plugin_kind kind, void *data);
void perun_plugins_each_file(enum perun_plugin_kind only, perun_plugin_file_fn fn, void *data);
/* The same for the one directory root (laid out as <kind>/<name>.so),
 * whether it is in the search path or not. */
void perun_plugins_each_file_in(const char *root, enum perun_plugin_kind only,
				perun_plugin_file_fn fn, void *data);

/*
 * Load every plugin of kind in the search path (first match by name wins,
 * entries cached as perun_plugin_load caches them).  *out gets the
 * accepted ones sorted by name, a malloc'd array of borrowed entries
 * (free the array only).
 */
size_t perun_plugins_load_all(enum perun_plugin_kind kind, const struct perun_loaded_plugin ***out);
/* The directories searched, in order (borrowed, NULL terminated). */
const char *const *perun_plugins_search_path(void);

#endif
