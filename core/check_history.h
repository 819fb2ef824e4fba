/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun check head|all over the history of the project: versions, the
 * pairs of a version with its parents, the series of each configuration
 * and Perun's graph of check all.
 */
#ifndef PERUN_CORE_CHECK_HISTORY_H
#define PERUN_CORE_CHECK_HISTORY_H

#include "check.h"
#include "index.h"

/* A minor version with what the graph and the pairing need. */
struct perun_check_version {
	char sha[65];
	char *desc; /* first line of the message */
	char **parents;
	size_t nparents;
};

struct perun_check_versions {
	struct perun_check_version *items;
	size_t n;
};

/* The versions reachable from sha, newest first: PERUN_CHECK_ALL_VERSIONS,
 * or at most max of them (1: sha alone). */
#define PERUN_CHECK_ALL_VERSIONS 0
int perun_check_versions_walk(struct perun_instance *inst, const char *sha, size_t max,
			      struct perun_check_versions *out, struct perun_error *err);
void perun_check_versions_release(struct perun_check_versions *v);

/* Profiles loaded once per object while a check needs them (streamed
 * from the store unless whole; perun_check_minor without series frees all
 * but its version's own); baselines come from the store and from the
 * remotes perun fetch brought (the view, opened at the first baseline). */
struct perun_share_view;
struct perun_check_cache {
	struct cached *items;
	size_t n;
	/* Load whole, not streamed: for methods that judge histories, which
	 * keep every profile and read each one's type list (a streamed
	 * profile's is a whole load of its own each time). */
	int whole;
	json_t *index;
	struct perun_share_view *view;
	int view_opened;
};
void perun_check_cache_release(struct perun_check_cache *cache);

/* A profile of the store, or of a remote perun fetch brought (verified by
 * its SHA-1), loaded once while the check needs it: the cache owns *out,
 * valid until a perun_check_minor call without series frees it. */
int perun_check_cache_load(struct perun_instance *inst, struct perun_check_cache *cache,
			   const char *checksum, const struct perun_profile **out,
			   struct perun_error *err);

/* The entries of minor sha's index on the fetched remotes into idx (made
 * empty first; released by the caller). */
int perun_check_fetched_index(struct perun_instance *inst, struct perun_check_cache *cache,
			      const char *sha, struct perun_index *idx, struct perun_error *err);

/* The profiles of one configuration, in walk order (newest first). */
struct perun_check_series {
	struct perun_check_series_entry *entries; /* versions owned, profiles
						   * borrowed from the cache */
	size_t n;
};

struct perun_check_series_set {
	struct perun_check_series *items;
	size_t n;
	json_t *index;
};
void perun_check_series_set_release(struct perun_check_series_set *set);

/*
 * Perun's degradation_in_minor: every profile of version (the last one of
 * each configuration) against each compatible profile of each parent,
 * registered in the store or fetched from a remote (perun fetch).
 * With series, the version's profiles are also added to the series of
 * their configurations, and the cache keeps every profile; without, it
 * first frees all but the version's own.
 */
int perun_check_minor(struct perun_check_ctx *ctx, struct perun_instance *inst,
		      const struct perun_check_version *version, struct perun_check_cache *cache,
		      struct perun_check_series_set *series, struct perun_error *err);

/* Only add the profiles of version to the series of their
 * configurations (the history before the version check head checks). */
int perun_check_minor_series(struct perun_instance *inst, const struct perun_check_version *version,
			     struct perun_check_cache *cache, struct perun_check_series_set *series,
			     struct perun_error *err);

/* Perun's history graph: one column per branch still to be printed. */
struct perun_check_edge {
	char next[65];
};

struct perun_check_graph {
	struct perun_check_edge *edges;
	size_t n;
};

void perun_check_graph_init(struct perun_check_graph *g, const char *head);
void perun_check_graph_release(struct perun_check_graph *g);
/* Fork lines, then "| * | <sha:6>: <desc> | " without a newline. */
void perun_check_graph_version(FILE *out, struct perun_check_graph *g,
			       const struct perun_check_version *v);
/* Replace the version by its parents; print the merge point or a border. */
int perun_check_graph_finish(FILE *out, struct perun_check_graph *g,
			     const struct perun_check_version *v);
/* The left border of lines printed between versions. */
void perun_check_graph_border(FILE *out, const struct perun_check_graph *g);

#endif
