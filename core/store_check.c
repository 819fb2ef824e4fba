/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading the whole store for fsck and gc (see store_check.h). */
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "store.h"
#include "store_check.h"
#include "store_scan.h"

struct reading {
	struct perun_instance *inst;
	const char *objects_dir;
	struct perun_store_state *state;
	int verify;
};

int perun_store_names_commit(struct perun_instance *inst, const char *sha)
{
	char full[65];
	struct perun_error err = { 0 };
	return perun_vcs_rev_parse(&inst->vcs, sha, full, &err) == 0 && !strcasecmp(full, sha);
}

static void read_index(struct reading *r, const struct perun_store_item *item)
{
	struct perun_index idx;
	struct perun_error err = { 0 };
	if (perun_index_read(item->path, &idx, &err)) {
		json_object_set_new(r->state->bad_indexes, item->sha, json_string(err.message));
		return;
	}
	json_t *names = json_array();
	for (size_t i = 0; i < idx.n; i++) {
		json_array_append_new(names, json_string(idx.entries[i].checksum));
		json_object_set_new(r->state->referenced, idx.entries[i].checksum,
				    json_string(item->sha));
	}
	json_object_set_new(r->state->indexes, item->sha, names);
	perun_index_release(&idx);
}

static void read_object(struct reading *r, const struct perun_store_item *item)
{
	struct perun_profile *profile;
	struct perun_error err = { 0 };
	if (!r->verify) {
		json_object_set_new(r->state->objects, item->sha, json_true());
		return;
	}
	if (perun_store_read_profile(r->objects_dir, item->sha, &profile, &err)) {
		if (perun_store_names_commit(r->inst, item->sha))
			json_object_set_new(r->state->bad_indexes, item->sha,
					    json_string("not an index (no pidx magic)"));
		else
			json_object_set_new(r->state->bad_objects, item->sha,
					    json_string(err.message));
		return;
	}
	json_object_set_new(r->state->objects, item->sha, json_true());
	perun_profile_free(profile);
}

static int read_item(const struct perun_store_item *item, void *data)
{
	struct reading *r = data;
	switch (item->kind) {
	case PERUN_STORE_INDEX: read_index(r, item); break;
	case PERUN_STORE_PROFILE: read_object(r, item); break;
	case PERUN_STORE_CHANGES: r->state->changes++; break;
	case PERUN_STORE_OTHER: break;
	}
	return 0;
}

int perun_store_state_read(struct perun_instance *inst, struct perun_store_state *state, int verify,
			   struct perun_error *err)
{
	char *objects = perun_instance_path(inst, "objects");
	memset(state, 0, sizeof(*state));
	state->objects = json_object();
	state->bad_objects = json_object();
	state->indexes = json_object();
	state->bad_indexes = json_object();
	state->referenced = json_object();
	if (!objects || !state->objects || !state->bad_objects || !state->indexes ||
	    !state->bad_indexes || !state->referenced) {
		free(objects);
		perun_store_state_release(state);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	struct reading r = { inst, objects, state, verify };
	perun_store_scan(objects, read_item, &r);
	free(objects);
	return 0;
}

void perun_store_state_release(struct perun_store_state *state)
{
	json_decref(state->objects);
	json_decref(state->bad_objects);
	json_decref(state->indexes);
	json_decref(state->bad_indexes);
	json_decref(state->referenced);
	memset(state, 0, sizeof(*state));
}

int perun_store_state_open(struct perun_instance *inst, struct perun_store_state *state, int verify,
			   struct perun_error *err)
{
	int rc = perun_instance_open(inst, err);
	if (rc)
		return rc;
	rc = perun_instance_lock(inst, err);
	if (!rc)
		rc = perun_store_state_read(inst, state, verify, err);
	if (rc)
		perun_instance_close(inst);
	return rc;
}
