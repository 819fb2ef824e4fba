/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Checking the store as a whole, for perun fsck and perun gc: every index
 * of a minor version read, which index names which object, and (for fsck)
 * every profile object read back (inflated, header and JSON checked).
 */
#ifndef PERUN_CORE_STORE_CHECK_H
#define PERUN_CORE_STORE_CHECK_H

#include "instance.h"

struct perun_store_state {
	json_t *objects;     /* profile object sha -> true */
	json_t *bad_objects; /* profile object sha -> why it does not read
			      * (only when the objects were verified) */
	json_t *indexes;     /* minor sha -> [checksums it names] */
	json_t *bad_indexes; /* minor sha -> why it does not read */
	json_t *referenced;  /* checksum -> a minor sha whose index names it */
	size_t changes;	     /* .changes files */
};

/* Read the whole store into *state (release it with
 * perun_store_state_release); with verify, every profile object is read
 * back too.  Fails only when the store cannot be read. */
int perun_store_state_read(struct perun_instance *inst, struct perun_store_state *state, int verify,
			   struct perun_error *err);
void perun_store_state_release(struct perun_store_state *state);

/* Open the instance here, lock its store and read it (fsck and gc);
 * on failure nothing is left open. */
int perun_store_state_open(struct perun_instance *inst, struct perun_store_state *state, int verify,
			   struct perun_error *err);

/* Is the store file named sha the index of a minor version, however
 * damaged its magic (sha names a commit of the project)? */
int perun_store_names_commit(struct perun_instance *inst, const char *sha);

#endif
