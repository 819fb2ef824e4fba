/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Listing and selecting an instance's profiles: tracked and pending ones
 * and Perun's selectors (see profiles.h).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "command.h"
#include "profiles.h"
#include "selector.h"
#include "store.h"

void perun_profile_list_release(struct perun_profile_list *list)
{
	for (size_t i = 0; i < list->n; i++) {
		perun_index_entry_release(&list->items[i].entry);
		free(list->items[i].file);
	}
	free(list->items);
	list->items = NULL;
	list->n = 0;
}

static int out_of_memory(struct perun_error *err)
{
	return perun_error_set(err, PERUN_EGENERIC, "out of memory");
}

/* Append a copy of e; -1 when out of memory, list as it was.  A field
 * copied as "" instead would match nothing: rm would remove nothing and
 * succeed. */
static int list_push(struct perun_profile_list *list, const struct perun_index_entry *e,
		     const char *file, int pending)
{
	struct perun_profile_info *items =
		realloc(list->items, (list->n + 1) * sizeof(*list->items));
	if (!items)
		return -1;
	list->items = items;
	struct perun_profile_info *info = &items[list->n];
	memset(info, 0, sizeof(*info));
	info->entry = *e;
	info->entry.path = strdup(e->path ? e->path : "");
	info->entry.type = strdup(e->type ? e->type : "");
	info->entry.cmd = strdup(e->cmd ? e->cmd : "");
	info->entry.workload = strdup(e->workload ? e->workload : "");
	info->entry.collector = strdup(e->collector ? e->collector : "");
	info->entry.postprocessors = strdup(e->postprocessors ? e->postprocessors : "");
	info->file = file ? strdup(file) : NULL;
	info->pending = pending;
	if (!info->entry.path || !info->entry.type || !info->entry.cmd || !info->entry.workload ||
	    !info->entry.collector || !info->entry.postprocessors || (file && !info->file)) {
		perun_index_entry_release(&info->entry);
		free(info->file);
		return -1;
	}
	list->n++;
	return 0;
}

static char *minor_index_path(const struct perun_instance *inst, const char *sha)
{
	char rel[64];
	snprintf(rel, sizeof(rel), "objects/%.2s/%s", sha, sha + 2);
	return perun_instance_path(inst, rel);
}

int perun_minor_index_read(const struct perun_instance *inst, const char *sha,
			   struct perun_index *idx, struct perun_error *err)
{
	char *path = minor_index_path(inst, sha);
	int rc = perun_index_read(path, idx, err);
	free(path);
	return rc;
}

int perun_minor_index_write(const struct perun_instance *inst, const char *sha,
			    const struct perun_index *idx, struct perun_error *err)
{
	char rel[16];
	snprintf(rel, sizeof(rel), "objects/%.2s", sha);
	char *dir = perun_instance_path(inst, rel);
	char *path = minor_index_path(inst, sha);
	int rc = perun_mkdirs(dir, 0755, err);
	if (!rc)
		rc = perun_index_write(path, idx, err);
	free(dir);
	free(path);
	return rc;
}

int perun_minor_index_add(const struct perun_instance *inst, struct perun_index *idx,
			  const struct perun_profile *profile, const char *name, uint32_t mtime,
			  char created_sha[PERUN_SHA1_HEX], struct perun_error *err)
{
	char *objects = perun_instance_path(inst, "objects");
	char object_sha[PERUN_SHA1_HEX];
	int created;
	int rc = perun_store_write_profile(objects, profile, object_sha, &created, err);
	free(objects);
	if (rc)
		return rc;
	if (created_sha)
		snprintf(created_sha, PERUN_SHA1_HEX, "%s", created ? object_sha : "");
	struct perun_index_entry e;
	if (perun_index_entry_fill(&e, mtime, object_sha, name, profile) ||
	    (rc = perun_index_insert(idx, &e)) < 0)
		return perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM, "cannot index '%s'",
					     name);
	return rc;
}

static const char *sort_field(const struct perun_profile_info *info, const char *key)
{
	const struct perun_index_entry *e = &info->entry;
	if (!strcmp(key, "type"))
		return e->type;
	if (!strcmp(key, "cmd"))
		return e->cmd;
	if (!strcmp(key, "workload"))
		return e->workload;
	if (!strcmp(key, "collector"))
		return e->collector;
	if (!strcmp(key, "checksum"))
		return e->checksum;
	if (!strcmp(key, "realpath") && info->file)
		return info->file;
	if (!strcmp(key, "source") || !strcmp(key, "realpath"))
		return e->path;
	return e->time;
}

/* Stable descending sort (Python's sorted(reverse=True) keeps ties in order). */
static void sort_profiles(struct perun_profile_list *list, const char *key)
{
	for (size_t i = 1; i < list->n; i++) {
		struct perun_profile_info item = list->items[i];
		size_t j = i;
		while (j > 0 &&
		       strcmp(sort_field(&list->items[j - 1], key), sort_field(&item, key)) < 0) {
			list->items[j] = list->items[j - 1];
			j--;
		}
		list->items[j] = item;
	}
}

static const char *sort_key(struct perun_instance *inst)
{
	static const char *const valid[] = { "realpath",  "type",     "time",	"cmd", "workload",
					     "collector", "checksum", "source", NULL };
	const char *key =
		perun_config_lookup_string(&inst->config, "format.sort_profiles_by", "time");
	for (const char *const *v = valid; *v; v++)
		if (!strcmp(*v, key))
			return key;
	perun_warn("format.sort_profiles_by: '%s' is not a profile attribute; sorting by time",
		   key);
	return "time";
}

int perun_profiles_tracked(struct perun_instance *inst, const char *sha,
			   struct perun_profile_list *out, struct perun_error *err)
{
	memset(out, 0, sizeof(*out));
	struct perun_index idx;
	int rc = perun_minor_index_read(inst, sha, &idx, err);
	if (rc)
		return rc;
	if (idx.version == 1) {
		/* Version 1 lacks the profile details: read them from the objects. */
		char *objects = perun_instance_path(inst, "objects");
		for (size_t i = 0; i < idx.n && !rc; i++) {
			struct perun_profile *p;
			rc = perun_store_read_profile(objects, idx.entries[i].checksum, &p, err);
			if (rc)
				break;
			struct perun_index_entry full;
			if (perun_index_entry_fill(&full, idx.entries[i].mtime,
						   idx.entries[i].checksum, idx.entries[i].path,
						   p)) {
				perun_profile_free(p);
				rc = out_of_memory(err);
				break;
			}
			perun_profile_free(p);
			perun_index_entry_release(&idx.entries[i]);
			idx.entries[i] = full;
		}
		free(objects);
		if (rc) {
			perun_index_release(&idx);
			return rc;
		}
	}
	for (size_t i = 0; i < idx.n && !rc; i++)
		if (list_push(out, &idx.entries[i], NULL, 0))
			rc = out_of_memory(err);
	perun_index_release(&idx);
	if (rc) {
		perun_profile_list_release(out);
		return rc;
	}
	sort_profiles(out, sort_key(inst));
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int perun_profiles_pending(struct perun_instance *inst, struct perun_profile_list *out,
			   struct perun_error *err)
{
	memset(out, 0, sizeof(*out));
	char *jobs = perun_instance_path(inst, "jobs");
	char *index_path = perun_instance_path(inst, "jobs/.index");
	char **names = NULL;
	size_t nnames = 0;
	struct perun_index idx = { 0 };
	int rc = 0, changed = 0;
	DIR *dir = opendir(jobs);
	if (!dir) {
		if (errno != ENOENT)
			rc = perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot list '%s'",
						   jobs);
		goto out;
	}
	struct dirent *de;
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 4, "perf"))
			continue;
		char **more = realloc(names, (nnames + 1) * sizeof(*names));
		if (more)
			names = more;
		if (!more || !(names[nnames] = strdup(de->d_name))) {
			closedir(dir);
			rc = out_of_memory(err);
			goto out;
		}
		nnames++;
	}
	closedir(dir);
	if (nnames)
		qsort(names, nnames, sizeof(*names), name_cmp);

	rc = perun_index_read(index_path, &idx, err);
	if (rc) {
		/* A broken pending index is only a cache: rebuild it. */
		perun_warn("%s; rebuilding it", err->message);
		perun_error_clear(err);
		memset(&idx, 0, sizeof(idx));
		changed = 1;
		rc = 0;
	}
	/* Drop entries whose file is gone, or that are duplicates. */
	char *seen = calloc(nnames ? nnames : 1, 1);
	if (!seen) {
		rc = out_of_memory(err);
		goto out;
	}
	for (size_t i = 0; i < idx.n;) {
		char **hit = nnames ? bsearch(&idx.entries[i].path, names, nnames, sizeof(*names),
					      name_cmp)
				    : NULL;
		if (!hit || seen[hit - names] || idx.version < 2) {
			perun_index_remove(&idx, i);
			changed = 1;
			continue;
		}
		seen[hit - names] = 1;
		i++;
	}
	for (size_t k = 0; k < nnames; k++) {
		if (seen[k])
			continue;
		char file[PATH_MAX];
		snprintf(file, sizeof(file), "%s/%s", jobs, names[k]);
		struct perun_profile *p;
		struct perun_error perr = { 0 };
		if (perun_profile_load_file(file, &p, &perr)) {
			perun_warn("skipping pending profile: %s", perr.message);
			continue;
		}
		struct stat st;
		stat(file, &st);
		char sha[PERUN_SHA1_HEX];
		perun_sha1_hex(file, strlen(file), sha);
		struct perun_index_entry e;
		int filled = perun_index_entry_fill(&e, perun_index_mtime(&st), sha, names[k], p);
		perun_profile_free(p);
		if (filled || perun_index_insert(&idx, &e) < 0) {
			free(seen);
			rc = out_of_memory(err);
			goto out;
		}
		changed = 1;
	}
	free(seen);
	if (changed) {
		struct perun_error werr = { 0 };
		if (!perun_instance_lock(inst, &werr))
			perun_index_write(index_path, &idx, &werr);
	}
	for (size_t i = 0; i < idx.n; i++) {
		char file[PATH_MAX];
		snprintf(file, sizeof(file), "%s/%s", jobs, idx.entries[i].path);
		if (list_push(out, &idx.entries[i], file, 1)) {
			rc = out_of_memory(err);
			perun_profile_list_release(out);
			goto out;
		}
	}
	sort_profiles(out, sort_key(inst));
out:
	perun_index_release(&idx);
	for (size_t k = 0; k < nnames; k++)
		free(names[k]);
	free(names);
	free(jobs);
	free(index_path);
	return rc;
}

static int select_tags(struct perun_instance *inst, const char *sha, long from, long to,
		       char letter, int is_range, const char *selector,
		       struct perun_profile_list *out, struct perun_error *err)
{
	struct perun_profile_list all;
	int rc = letter == 'i' ? perun_profiles_tracked(inst, sha, &all, err)
			       : perun_profiles_pending(inst, &all, err);
	if (rc)
		return rc;
	if (!is_range && (size_t)from >= all.n) {
		rc = perun_error_set(err, PERUN_ENOTFOUND,
				     "no profile %s: there %s %zu %s profile%s", selector,
				     all.n == 1 ? "is" : "are", all.n,
				     letter == 'i' ? "tracked" : "pending", all.n == 1 ? "" : "s");
		perun_profile_list_release(&all);
		return rc;
	}
	if ((size_t)to >= all.n)
		perun_warn("%s: only %zu %s profile%s; the rest of the range is skipped", selector,
			   all.n, letter == 'i' ? "tracked" : "pending", all.n == 1 ? "" : "s");
	for (long k = from; k <= to && (size_t)k < all.n && !rc; k++)
		if (list_push(out, &all.items[k].entry, all.items[k].file, all.items[k].pending))
			rc = out_of_memory(err);
	perun_profile_list_release(&all);
	return rc;
}

/* A tag outside an instance is no file name: say what is missing. */
static int outside_instance(const char *selector, struct perun_error *err)
{
	struct stat st;
	if (!perun_selector_is_tag(selector) || stat(selector, &st) == 0)
		return 0;
	return perun_error_set(err, PERUN_EINVAL,
			       "not a perun instance: '%s' names a profile of one "
			       "(run 'perun init' first, or name a profile file)",
			       selector);
}

/* A tag of the kind scope leaves out, e.g. "perun add 0@i". */
static int tag_out_of_scope(const char *selector, char letter, const char *sha, unsigned scope,
			    struct perun_error *err)
{
	if (letter == 'i' && !(scope & PERUN_SELECT_TRACKED))
		return perun_error_set(err, PERUN_EINVAL, "profile %s is already tracked at %.12s",
				       selector, sha);
	if (letter == 'p' && !(scope & PERUN_SELECT_PENDING))
		return perun_error_set(err, PERUN_EINVAL, "profile %s is pending, not tracked",
				       selector);
	return 0;
}

int perun_profiles_select(struct perun_instance *inst, const char *sha, const char *selector,
			  unsigned scope, struct perun_profile_list *out, struct perun_error *err)
{
	struct perun_selector sel;
	if (inst) {
		int rc = perun_selector_parse(selector, &sel, err);
		if (rc)
			return rc;
	}
	if (inst && sel.kind == PERUN_SELECTOR_REV_TAG) {
		char rev[256], resolved[65];
		snprintf(rev, sizeof(rev), "%.*s", (int)sel.rev_len, selector);
		int rc = perun_vcs_rev_parse(&inst->vcs, rev, resolved, err);
		if (rc)
			return rc;
		return perun_profiles_select(inst, resolved, selector + sel.rev_len + 1, scope, out,
					     err);
	}
	if (inst && sel.kind != PERUN_SELECTOR_OTHER) {
		int rc = tag_out_of_scope(selector, sel.letter, sha, scope, err);
		return rc ? rc
			  : select_tags(inst, sha, sel.from, sel.to, sel.letter,
					sel.kind == PERUN_SELECTOR_RANGE, selector, out, err);
	}
	if (inst && (scope & PERUN_SELECT_TRACKED)) {
		struct perun_profile_list tracked;
		int rc = perun_profiles_tracked(inst, sha, &tracked, err);
		if (rc)
			return rc;
		size_t before = out->n;
		for (size_t i = 0; i < tracked.n && !rc; i++)
			if ((!strcmp(tracked.items[i].entry.path, selector) ||
			     !strcasecmp(tracked.items[i].entry.checksum, selector)) &&
			    list_push(out, &tracked.items[i].entry, NULL, 0))
				rc = out_of_memory(err);
		perun_profile_list_release(&tracked);
		if (rc || out->n > before)
			return rc;
	}
	if (inst && (scope & PERUN_SELECT_PENDING)) {
		char rel[PATH_MAX];
		snprintf(rel, sizeof(rel), "jobs/%s", selector);
		char *file = perun_instance_path(inst, rel);
		struct stat st;
		if (!strchr(selector, '/') && stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
			struct perun_index_entry e = { .path = (char *)selector };
			int rc = list_push(out, &e, file, 1) ? out_of_memory(err) : 0;
			free(file);
			return rc;
		}
		free(file);
	}
	if (scope & PERUN_SELECT_FILES) {
		struct stat st;
		if (stat(selector, &st) == 0 && S_ISREG(st.st_mode)) {
			char abs[PATH_MAX];
			const char *base = strrchr(selector, '/');
			struct perun_index_entry e = { .path = (char *)(base ? base + 1
									     : selector) };
			return list_push(out, &e, realpath(selector, abs) ? abs : selector, 1)
				       ? out_of_memory(err)
				       : 0;
		}
	}
	return perun_error_set(err, PERUN_ENOTFOUND, "no profile matches '%s'", selector);
}

static int load_file(const char *path, enum perun_load_how how, struct perun_profile **out,
		     struct perun_error *err)
{
	return how == PERUN_LOAD_STREAMED ? perun_profile_load_file_streamed(path, out, err)
					  : perun_profile_load_file(path, out, err);
}

static int info_load(struct perun_instance *inst, const struct perun_profile_info *info,
		     enum perun_load_how how, struct perun_profile **out, struct perun_error *err)
{
	if (info->file)
		return load_file(info->file, how, out, err);
	char *objects = perun_instance_path(inst, "objects");
	int rc =
		how == PERUN_LOAD_STREAMED
			? perun_store_read_profile_streamed(objects, info->entry.checksum, out, err)
			: perun_store_read_profile(objects, info->entry.checksum, out, err);
	free(objects);
	return rc;
}

int perun_profile_info_load(struct perun_instance *inst, const struct perun_profile_info *info,
			    struct perun_profile **out, struct perun_error *err)
{
	return info_load(inst, info, PERUN_LOAD_WHOLE, out, err);
}

int perun_profile_info_load_as(struct perun_instance *inst, const struct perun_profile_info *info,
			       enum perun_load_how how, struct perun_profile **out,
			       struct perun_error *err)
{
	return info_load(inst, info, how, out, err);
}

int perun_profiles_load_any(struct perun_instance *inst, const char *sha, const char *selector,
			    enum perun_load_how how, struct perun_profile **out,
			    struct perun_error *err)
{
	if (!inst) {
		int rc = outside_instance(selector, err);
		return rc ? rc : load_file(selector, how, out, err);
	}
	struct perun_profile_list found = { 0 };
	int rc = perun_profiles_select(inst, sha, selector, PERUN_SELECT_ANY, &found, err);
	if (rc)
		return rc;
	if (found.n > 1)
		perun_warn("'%s' matches %zu profiles; using the first", selector, found.n);
	rc = info_load(inst, &found.items[0], how, out, err);
	perun_profile_list_release(&found);
	return rc;
}

/* ---- two profiles at once (perun check profiles, perun showdiff) -------- */

struct load_job {
	struct perun_instance *inst;
	const struct perun_profile_info *info;
	enum perun_load_how how;
	struct perun_profile *profile;
	struct perun_error err;
	int rc;
};

static void *load_job_run(void *arg)
{
	struct load_job *job = arg;
	job->rc = info_load(job->inst, job->info, job->how, &job->profile, &job->err);
	return NULL;
}

static void *free_profile_run(void *arg)
{
	perun_profile_free(arg);
	return NULL;
}

int perun_profiles_load_two(struct perun_instance *inst, const char *sha, const char *const sel[2],
			    enum perun_load_how how, struct perun_profile *out[2],
			    struct perun_error *err)
{
	struct perun_profile_list found[2] = { { 0 }, { 0 } };
	struct load_job jobs[2];
	int rc = 0;
	out[0] = out[1] = NULL;
	for (int i = 0; i < 2 && !rc; i++) {
		if (!inst) {
			/* Outside an instance a selector is a file. */
			if ((rc = outside_instance(sel[i], err)))
				break;
			found[i].items = calloc(1, sizeof(*found[i].items));
			if (!found[i].items || !(found[i].items[0].file = strdup(sel[i])))
				rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			found[i].n = found[i].items ? 1 : 0;
			continue;
		}
		rc = perun_profiles_select(inst, sha, sel[i], PERUN_SELECT_ANY, &found[i], err);
		if (!rc && found[i].n > 1)
			perun_warn("'%s' matches %zu profiles; using the first", sel[i],
				   found[i].n);
	}
	if (rc)
		goto out;
	/* Parsing is most of the work for big profiles: one per core. */
	for (int i = 0; i < 2; i++)
		jobs[i] = (struct load_job){ inst, &found[i].items[0], how, NULL, { 0 }, 0 };
	pthread_t thread;
	int threaded = pthread_create(&thread, NULL, load_job_run, &jobs[1]) == 0;
	load_job_run(&jobs[0]);
	if (threaded)
		pthread_join(thread, NULL);
	else
		load_job_run(&jobs[1]);
	for (int i = 0; i < 2; i++) {
		if (jobs[i].rc && !rc) {
			*err = jobs[i].err;
			rc = jobs[i].rc;
		}
		out[i] = jobs[i].profile;
	}
	if (rc) {
		perun_profiles_free_two(out);
		out[0] = out[1] = NULL;
	}
out:
	perun_profile_list_release(&found[0]);
	perun_profile_list_release(&found[1]);
	return rc;
}

void perun_profiles_free_two(struct perun_profile *p[2])
{
	pthread_t thread;
	if (p[1] && pthread_create(&thread, NULL, free_profile_run, p[1]) == 0) {
		perun_profile_free(p[0]);
		pthread_join(thread, NULL);
	} else {
		perun_profile_free(p[0]);
		perun_profile_free(p[1]);
	}
	p[0] = p[1] = NULL;
}
