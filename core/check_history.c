/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun check head|all: the profiles of a minor version against the
 * compatible profiles of its parents, Perun's history graph of check all,
 * and the series of each configuration over the history for methods with
 * compare_series.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_history.h"
#include "profiles.h"
#include "share.h"
#include "store.h"

void perun_check_versions_release(struct perun_check_versions *v)
{
	for (size_t i = 0; i < v->n; i++) {
		struct perun_check_version *c = &v->items[i];
		free(c->desc);
		for (size_t k = 0; k < c->nparents; k++)
			free(c->parents[k]);
		free(c->parents);
	}
	free(v->items);
	memset(v, 0, sizeof(*v));
}

static int copy_commit(const struct perun_vcs_commit *c, struct perun_check_version *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->sha, sizeof(out->sha), "%s", c->checksum);
	const char *desc = c->desc ? c->desc : "";
	size_t len = strcspn(desc, "\n");
	out->desc = strndup(desc, len);
	out->parents = calloc(c->parent_count + 1, sizeof(*out->parents));
	if (!out->desc || !out->parents)
		return -1;
	for (size_t i = 0; i < c->parent_count; i++) {
		if (!(out->parents[i] = strdup(c->parents[i])))
			return -1;
		out->nparents++;
	}
	return 0;
}

struct walk_state {
	struct perun_check_versions *v;
	size_t max; /* 0: no limit */
	int failed;
};

static int on_commit(const struct perun_vcs_commit *c, void *data)
{
	struct walk_state *st = data;
	struct perun_check_versions *v = st->v;
	struct perun_check_version *grown = realloc(v->items, (v->n + 1) * sizeof(*grown));
	if (!grown) {
		st->failed = 1;
		return 1;
	}
	v->items = grown;
	if (copy_commit(c, &grown[v->n])) {
		v->n++;
		st->failed = 1;
		return 1;
	}
	v->n++;
	return st->max && v->n >= st->max; /* enough: stop the walk */
}

int perun_check_versions_walk(struct perun_instance *inst, const char *sha, size_t max,
			      struct perun_check_versions *out, struct perun_error *err)
{
	memset(out, 0, sizeof(*out));
	struct walk_state st = { out, max, 0 };
	int rc;
	if (max != 1) {
		rc = perun_vcs_walk(&inst->vcs, sha, on_commit, &st, err);
	} else {
		struct perun_vcs_commit c;
		rc = perun_vcs_info(&inst->vcs, sha, &c, err);
		if (!rc)
			on_commit(&c, &st);
	}
	if (!rc && st.failed)
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (rc)
		perun_check_versions_release(out);
	return rc;
}

/* ---- profiles, loaded once per object --------------------------------- */

struct cached {
	char checksum[PERUN_SHA1_HEX];
	struct perun_profile *profile;
};

void perun_check_cache_release(struct perun_check_cache *cache)
{
	for (size_t i = 0; i < cache->n; i++)
		perun_profile_free(cache->items[i].profile);
	free(cache->items);
	json_decref(cache->index);
	perun_share_view_close(cache->view);
	memset(cache, 0, sizeof(*cache));
}

/* The fetched remotes' profiles, opened once: NULL when nothing was
 * fetched; a fetched ref git cannot read is an error. */
static int cache_view(struct perun_instance *inst, struct perun_check_cache *cache,
		      struct perun_error *err)
{
	if (cache->view_opened)
		return 0;
	cache->view_opened = 1;
	return perun_share_view_open_strict(inst, &cache->view, err);
}

/* The cached profile of checksum, or NULL. */
static const struct perun_profile *cache_find(const struct perun_check_cache *cache,
					      const char *checksum)
{
	json_t *pos = cache->index ? json_object_get(cache->index, checksum) : NULL;
	return pos ? cache->items[json_integer_value(pos)].profile : NULL;
}

/* p cached under checksum (the cache's since): 0, or -1 (p freed). */
static int cache_insert(struct perun_check_cache *cache, const char *checksum,
			struct perun_profile *p, struct perun_error *err)
{
	struct cached *grown = realloc(cache->items, (cache->n + 1) * sizeof(*grown));
	if (!grown || (!cache->index && !(cache->index = json_object()))) {
		cache->items = grown ? grown : cache->items;
		perun_profile_free(p);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	cache->items = grown;
	snprintf(grown[cache->n].checksum, PERUN_SHA1_HEX, "%s", checksum);
	grown[cache->n].profile = p;
	json_object_set_new(cache->index, checksum, json_integer((json_int_t)cache->n));
	cache->n++;
	return 0;
}

/* A stored profile read as the cache reads them: streamed unless series
 * keep every profile (see cache->whole): a check walks the resources
 * once or twice, and a whole load of a big profile takes several times
 * its text. */
static int cache_read(struct perun_instance *inst, const struct perun_check_cache *cache,
		      const char *checksum, struct perun_profile **p, struct perun_error *err)
{
	char *objects = perun_instance_path(inst, "objects");
	int rc = cache->whole ? perun_store_read_profile(objects, checksum, p, err)
			      : perun_store_read_profile_streamed(objects, checksum, p, err);
	free(objects);
	return rc;
}

int perun_check_cache_load(struct perun_instance *inst, struct perun_check_cache *cache,
			   const char *checksum, const struct perun_profile **out,
			   struct perun_error *err)
{
	if ((*out = cache_find(cache, checksum)))
		return 0;
	struct perun_profile *p;
	int rc = cache_read(inst, cache, checksum, &p, err);
	if (rc && err->code == PERUN_ENOTFOUND) { /* a fetched baseline? */
		struct perun_error local = *err;
		rc = cache_view(inst, cache, err);
		if (!rc && cache->view)
			rc = perun_share_view_load(cache->view, checksum, &p, err);
		else if (!rc)
			rc = -(*err = local).code;
	}
	if (rc || (rc = cache_insert(cache, checksum, p, err)))
		return rc;
	*out = p;
	return 0;
}

/* A profile read for the cache in a thread of its own. */
struct cache_fill {
	struct perun_instance *inst;
	const struct perun_check_cache *cache;
	const char *checksum;
	struct perun_profile *profile; /* NULL when it could not be read */
};

static void *cache_fill_run(void *arg)
{
	struct cache_fill *f = arg;
	struct perun_error ignored = { 0 };
	if (cache_read(f->inst, f->cache, f->checksum, &f->profile, &ignored))
		f->profile = NULL;
	return NULL;
}

static int same_text(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/*
 * te's profile and the first of pidx's indexed as its kind, read at once,
 * one per core, when neither is cached yet: the outline of a big stored
 * profile takes a core for a while, and the check compares them next.
 * Nothing is reported here: what cannot be read is read again in order
 * by perun_check_cache_load, which says what is amiss.
 */
static void cache_read_pair(struct perun_instance *inst, struct perun_check_cache *cache,
			    const struct perun_index_entry *te, const struct perun_index *pidx)
{
	const struct perun_index_entry *be = NULL;
	for (size_t b = 0; b < pidx->n && !be; b++) {
		const struct perun_index_entry *e = &pidx->entries[b];
		if (same_text(e->type, te->type) && same_text(e->cmd, te->cmd) &&
		    same_text(e->workload, te->workload) &&
		    same_text(e->collector, te->collector) &&
		    same_text(e->postprocessors, te->postprocessors))
			be = e;
	}
	if (!be || !strcmp(be->checksum, te->checksum) || cache_find(cache, te->checksum) ||
	    cache_find(cache, be->checksum))
		return;
	struct cache_fill fill[2] = { { inst, cache, te->checksum, NULL },
				      { inst, cache, be->checksum, NULL } };
	pthread_t thread;
	int threaded = !pthread_create(&thread, NULL, cache_fill_run, &fill[1]);
	cache_fill_run(&fill[0]);
	if (threaded)
		pthread_join(thread, NULL);
	struct perun_error ignored = { 0 };
	for (int i = 0; i < 2; i++)
		if (fill[i].profile)
			cache_insert(cache, fill[i].checksum, fill[i].profile, &ignored);
}

int perun_check_fetched_index(struct perun_instance *inst, struct perun_check_cache *cache,
			      const char *sha, struct perun_index *idx, struct perun_error *err)
{
	memset(idx, 0, sizeof(*idx));
	int rc = cache_view(inst, cache, err);
	return rc ? rc : perun_share_view_add_index(cache->view, sha, idx, err);
}

/* Free the cached profiles that are not idx's (series borrow the cached
 * profiles to the end; without them, a walk of the history holds one
 * version's profiles and its parents', not all of them). */
static int cache_keep_only(struct perun_check_ctx *ctx, struct perun_check_cache *cache,
			   const struct perun_index *idx, struct perun_error *err)
{
	size_t kept = 0;
	for (size_t i = 0; i < cache->n; i++) {
		int own = 0;
		for (size_t k = 0; k < idx->n && !own; k++)
			own = !strcmp(idx->entries[k].checksum, cache->items[i].checksum);
		if (own)
			cache->items[kept++] = cache->items[i];
		else {
			perun_check_forget_profile(ctx, cache->items[i].profile);
			perun_profile_free(cache->items[i].profile);
		}
	}
	if (kept == cache->n)
		return 0;
	cache->n = kept;
	json_object_clear(cache->index);
	for (size_t i = 0; i < kept; i++)
		if (json_object_set_new(cache->index, cache->items[i].checksum,
					json_integer((json_int_t)i)))
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	return 0;
}

/* ---- the profiles of one version ---------------------------------------- */

/* Perun's config tuple of an index entry: collector, cmd, workload,
 * postprocessors (type is checked separately by compatibility). */
static char *config_key_dup(const struct perun_index_entry *e)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	perun_strbuf_addf(&sb, "%s\037%s\037%s\037%s", e->collector ? e->collector : "",
			  e->cmd ? e->cmd : "", e->workload ? e->workload : "",
			  e->postprocessors ? e->postprocessors : "");
	return perun_strbuf_detach(&sb, NULL);
}

/* The queue of a version: one entry per configuration, the last registered
 * winning, in index order (Perun's profiles_to_queue). */
static int version_queue(struct perun_instance *inst, const char *sha, struct perun_index *idx,
			 size_t **order, size_t *n, struct perun_error *err)
{
	int rc = perun_minor_index_read(inst, sha, idx, err);
	*order = NULL;
	*n = 0;
	if (rc)
		return rc;
	json_t *seen = json_object();
	*order = calloc(idx->n + 1, sizeof(**order));
	if (!seen || !*order) {
		json_decref(seen);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	for (size_t i = 0; i < idx->n; i++) {
		char *key = config_key_dup(&idx->entries[i]);
		json_t *pos = key ? json_object_get(seen, key) : NULL;
		if (pos) {
			(*order)[json_integer_value(pos)] = i;
		} else if (key) {
			json_object_set_new(seen, key, json_integer((json_int_t)*n));
			(*order)[(*n)++] = i;
		}
		free(key);
	}
	json_decref(seen);
	return 0;
}

/* Is the baseline entry e compatible with target (Perun's
 * ProfileInfo.is_compatible_with_profile)?  An empty postprocessor list is
 * no postprocessor (Perun reads it back from the index as [""], which
 * matches nothing: a quirk we do not keep). */
static int compatible(const struct perun_index_entry *e, const struct perun_profile *target)
{
	if (strcmp(e->type ? e->type : "", perun_profile_type(target)) ||
	    strcmp(e->cmd ? e->cmd : "", perun_profile_header(target, "cmd")) ||
	    strcmp(e->workload ? e->workload : "", perun_profile_header(target, "workload")) ||
	    strcmp(e->collector ? e->collector : "", perun_profile_collector(target)))
		return 0;
	char *posts = perun_profile_postprocessors_dup(target);
	if (!posts)
		return 0;
	int ok = 1;
	const char *p = e->postprocessors ? e->postprocessors : "";
	while (*p && ok) {
		size_t len = strcspn(p, " ");
		if (len) {
			int found = 0;
			for (const char *q = posts; *q;) {
				size_t qlen = strcspn(q, " ");
				found |= qlen == len && !strncmp(p, q, len);
				q += qlen + (q[qlen] == ' ');
			}
			ok = found;
		}
		p += len + (p[len] == ' ');
	}
	free(posts);
	return ok;
}

static char *label_dup(const char *sha, const char *path)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	perun_strbuf_addf(&sb, "%.7s:%s", sha, path);
	return perun_strbuf_detach(&sb, NULL);
}

/* Append (version, profile) to the series of its configuration. */
static int series_add(struct perun_check_series_set *set, const struct perun_index_entry *e,
		      const char *version, const struct perun_profile *profile,
		      struct perun_error *err)
{
	char *key = config_key_dup(e);
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	perun_strbuf_addf(&sb, "%s\037%s", key ? key : "", e->type ? e->type : "");
	free(key);
	char *full = perun_strbuf_detach(&sb, NULL);
	if (!full)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (!set->index)
		set->index = json_object();
	json_t *pos = json_object_get(set->index, full);
	struct perun_check_series *s;
	if (pos) {
		s = &set->items[json_integer_value(pos)];
	} else {
		s = realloc(set->items, (set->n + 1) * sizeof(*s));
		if (!s) {
			free(full);
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		}
		set->items = s;
		s = &s[set->n];
		memset(s, 0, sizeof(*s));
		json_object_set_new(set->index, full, json_integer((json_int_t)set->n++));
	}
	free(full);
	struct perun_check_series_entry *grown = realloc(s->entries, (s->n + 1) * sizeof(*grown));
	char *v = strdup(version);
	if (!grown || !v) {
		free(v);
		if (grown)
			s->entries = grown;
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	s->entries = grown;
	grown[s->n].version = v;
	grown[s->n].profile = profile;
	s->n++;
	return 0;
}

void perun_check_series_set_release(struct perun_check_series_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		for (size_t k = 0; k < set->items[i].n; k++)
			free((char *)set->items[i].entries[k].version);
		free(set->items[i].entries);
	}
	free(set->items);
	json_decref(set->index);
	memset(set, 0, sizeof(*set));
}

int perun_check_minor_series(struct perun_instance *inst, const struct perun_check_version *version,
			     struct perun_check_cache *cache, struct perun_check_series_set *series,
			     struct perun_error *err)
{
	struct perun_index idx = { 0 };
	size_t *order = NULL, n = 0;
	int rc = version_queue(inst, version->sha, &idx, &order, &n, err);
	for (size_t q = 0; q < n && !rc; q++) {
		const struct perun_index_entry *te = &idx.entries[order[q]];
		const struct perun_profile *target;
		rc = perun_check_cache_load(inst, cache, te->checksum, &target, err);
		if (!rc)
			rc = series_add(series, te, version->sha, target, err);
	}
	free(order);
	perun_index_release(&idx);
	return rc;
}

/* Were baseline and target collected in one interleaved run (perun run
 * --rounds)? */
static int interleaved_with(const struct perun_profile *baseline,
			    const struct perun_profile *target)
{
	const char *a = perun_profile_header(baseline, "interleaved_run");
	const char *b = perun_profile_header(target, "interleaved_run");
	return a && b && *b && !strcmp(a, b);
}

/*
 * Has the parent's index a profile compatible with target and collected
 * with it in one interleaved run?  Then only that pair is compared: the
 * parent's other profiles were measured at other times, under the
 * machine's drift the interleaving cancels.
 */
static int has_same_run(struct perun_instance *inst, struct perun_check_cache *cache,
			const struct perun_index *pidx, const struct perun_profile *target,
			int *found, struct perun_error *err)
{
	*found = 0;
	const char *run = perun_profile_header(target, "interleaved_run");
	for (size_t b = 0; run && *run && b < pidx->n && !*found; b++) {
		const struct perun_profile *baseline;
		if (!compatible(&pidx->entries[b], target))
			continue;
		if (perun_check_cache_load(inst, cache, pidx->entries[b].checksum, &baseline, err))
			return -err->code;
		*found = interleaved_with(baseline, target);
	}
	return 0;
}

/*
 * The target profile of *te's configuration to compare with the parent
 * (index pidx): *te itself (Perun: the last registered), unless it has no
 * baseline of its interleaved run there and an older profile of the same
 * configuration has one: a version profiled A/B with its parent and
 * later again as the baseline of its child is judged by the first pair.
 */
static int ab_target(struct perun_instance *inst, struct perun_check_cache *cache,
		     const struct perun_index *idx, const struct perun_index *pidx,
		     const struct perun_index_entry **te, const struct perun_profile **target,
		     int *same_run, struct perun_error *err)
{
	int rc = perun_check_cache_load(inst, cache, (*te)->checksum, target, err);
	if (!rc)
		rc = has_same_run(inst, cache, pidx, *target, same_run, err);
	/* Older profiles of the version are read only when the parent has an
	 * interleaved one they could pair with (those are read anyway). */
	int any = 0;
	for (size_t b = 0; !rc && !*same_run && !any && b < pidx->n; b++) {
		const struct perun_profile *p;
		if (compatible(&pidx->entries[b], *target) &&
		    !(rc = perun_check_cache_load(inst, cache, pidx->entries[b].checksum, &p, err)))
			any = *perun_profile_header(p, "interleaved_run") != '\0';
	}
	char *key = rc || *same_run || !any ? NULL : config_key_dup(*te);
	for (size_t i = idx->n; key && i-- > 0 && !rc && !*same_run;) {
		const struct perun_index_entry *e = &idx->entries[i];
		char *other = e == *te ? NULL : config_key_dup(e);
		const struct perun_profile *p;
		if (other && !strcmp(other, key) &&
		    !(rc = perun_check_cache_load(inst, cache, e->checksum, &p, err)) &&
		    !(rc = has_same_run(inst, cache, pidx, p, same_run, err)) && *same_run) {
			*te = e;
			*target = p;
		}
		free(other);
	}
	free(key);
	return rc;
}

int perun_check_minor(struct perun_check_ctx *ctx, struct perun_instance *inst,
		      const struct perun_check_version *version, struct perun_check_cache *cache,
		      struct perun_check_series_set *series, struct perun_error *err)
{
	struct perun_index idx = { 0 }, pidx = { 0 };
	size_t *order = NULL, n = 0;
	if (series && perun_check_minor_series(inst, version, cache, series, err))
		return -err->code;
	int rc = version_queue(inst, version->sha, &idx, &order, &n, err);
	if (!rc && !series)
		rc = cache_keep_only(ctx, cache, &idx, err);
	for (size_t q = 0; q < n && !rc; q++) {
		for (size_t k = 0; k < version->nparents && !rc; k++) {
			const char *parent = version->parents[k];
			const struct perun_index_entry *te = &idx.entries[order[q]];
			const struct perun_profile *target;
			int same_run = 0;
			rc = perun_minor_index_read(inst, parent, &pidx, err);
			if (!rc)
				rc = cache_view(inst, cache, err);
			if (!rc)
				rc = perun_share_view_add_index(cache->view, parent, &pidx, err);
			if (!rc)
				cache_read_pair(inst, cache, te, &pidx);
			if (!rc)
				rc = ab_target(inst, cache, &idx, &pidx, &te, &target, &same_run,
					       err);
			for (size_t b = 0; b < pidx.n && !rc; b++) {
				const struct perun_index_entry *be = &pidx.entries[b];
				if (!compatible(be, target))
					continue;
				const struct perun_profile *baseline;
				rc = perun_check_cache_load(inst, cache, be->checksum, &baseline,
							    err);
				if (rc || (same_run && !interleaved_with(baseline, target)))
					continue;
				char *blabel = label_dup(parent, be->path);
				char *tlabel = label_dup(version->sha, te->path);
				rc = perun_check_pair(ctx, baseline, target, blabel, tlabel,
						      version->sha, parent, err);
				free(blabel);
				free(tlabel);
			}
			perun_index_release(&pidx);
		}
	}
	free(order);
	perun_index_release(&idx);
	return rc;
}

/* ---- Perun's history graph (log.History) ------------------------------- */

void perun_check_graph_init(struct perun_check_graph *g, const char *head)
{
	memset(g, 0, sizeof(*g));
	g->edges = calloc(1, sizeof(*g->edges));
	if (g->edges) {
		snprintf(g->edges[0].next, sizeof(g->edges[0].next), "%s", head);
		g->n = 1;
	}
}

void perun_check_graph_release(struct perun_check_graph *g)
{
	free(g->edges);
	memset(g, 0, sizeof(*g));
}

/* "| | |  ": one column per unresolved edge. */
void perun_check_graph_border(FILE *out, const struct perun_check_graph *g)
{
	for (size_t i = 0; i < g->n; i++)
		fputs(i ? " |" : "|", out);
	fputs("  ", out);
}

static size_t edge_index(const struct perun_check_graph *g, const char *sha)
{
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->edges[i].next, sha))
			return i;
	return 0;
}

/* Branches that end in sha move left to its column: "|/ /". */
static void fork_point(FILE *out, struct perun_check_graph *g, const char *sha)
{
	size_t at = edge_index(g, sha);
	size_t *src = calloc(g->n + 1, sizeof(*src)), *tgt = calloc(g->n + 1, sizeof(*tgt));
	if (!src || !tgt)
		goto out;
	for (size_t i = 0; i < g->n; i++) {
		src[i] = i;
		tgt[i] = !strcmp(g->edges[i].next, sha) ? at : i;
	}
	for (;;) {
		int same = 1;
		size_t max = 0;
		for (size_t i = 0; i < g->n; i++) {
			same &= src[i] == tgt[i];
			if (src[i] > max)
				max = src[i];
		}
		if (same)
			break;
		size_t width = (max + 1) * 2;
		char *line = malloc(width + 1);
		if (!line)
			break;
		memset(line, ' ', width);
		line[width] = '\0';
		for (size_t i = 0; i < g->n; i++) {
			if (tgt[i] != src[i]) {
				line[2 * src[i] - 1] = '/';
				src[i]--;
			} else {
				line[2 * src[i]] = '|';
			}
		}
		fprintf(out, "%s\n", line);
		free(line);
	}
out:
	free(src);
	free(tgt);
}

/* Only the first edge leading to sha stays. */
static void merge_parents(struct perun_check_graph *g, const char *sha)
{
	size_t k = 0;
	int found = 0;
	for (size_t i = 0; i < g->n; i++) {
		int match = !strcmp(g->edges[i].next, sha);
		if (match && found)
			continue;
		found |= match;
		g->edges[k++] = g->edges[i];
	}
	g->n = k;
}

void perun_check_graph_version(FILE *out, struct perun_check_graph *g,
			       const struct perun_check_version *v)
{
	fork_point(out, g, v->sha);
	merge_parents(g, v->sha);
	for (size_t i = 0; i < g->n; i++)
		fprintf(out, "%s%s", i ? " " : "", !strcmp(g->edges[i].next, v->sha) ? "*" : "|");
	fprintf(out, " %.6s: %s | ", v->sha, v->desc);
}

int perun_check_graph_finish(FILE *out, struct perun_check_graph *g,
			     const struct perun_check_version *v)
{
	size_t at = edge_index(g, v->sha);
	size_t np = v->nparents;
	struct perun_check_edge *edges = calloc(g->n - 1 + np + 1, sizeof(*edges));
	if (!edges)
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < at; i++)
		edges[k++] = g->edges[i];
	for (size_t p = 0; p < np; p++)
		snprintf(edges[k++].next, sizeof(edges->next), "%s", v->parents[p]);
	for (size_t i = at + 1; i < g->n; i++)
		edges[k++] = g->edges[i];
	free(g->edges);
	g->edges = edges;
	g->n = k;
	/* The merge point: "|\" for every further parent. */
	size_t right = g->n - at - np;
	if (np == 1) {
		perun_check_graph_border(out, g);
		fputc('\n', out);
		return 0;
	}
	for (size_t p = 1; p < np; p++) {
		at++;
		struct perun_strbuf left = PERUN_STRBUF_INIT, rs = PERUN_STRBUF_INIT;
		for (size_t i = 0; i < at; i++)
			perun_strbuf_addstr(&left, i ? " |" : "|");
		for (size_t i = 0; i < right; i++)
			perun_strbuf_addstr(&rs, i ? " \\" : "\\");
		char *l = perun_strbuf_detach(&left, NULL), *r = perun_strbuf_detach(&rs, NULL);
		fprintf(out, "%s%s\n%s\\ %s\n", l ? l : "", r ? r : "", l ? l : "", r ? r : "");
		free(l);
		free(r);
	}
	return 0;
}
