/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun fsck [--repair]: check every index and profile object of the
 * store, and repair what can be repaired: damaged files are moved to
 * .perun/lost, indexes lose the entries whose objects are gone, and a
 * damaged index is rebuilt from what still reads of it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd_util.h"
#include "command_list.h"
#include "index.h"
#include "profiles.h"
#include "runner.h"
#include "store.h"
#include "store_check.h"

/* Move the store file named sha to .perun/lost/<sha><suffix>, kept for
 * inspection; lost gets where it went. */
static int move_to_lost(struct perun_instance *inst, const char *sha, const char *suffix,
			char lost[PATH_MAX], struct perun_error *err)
{
	char *objects = perun_instance_path(inst, "objects");
	char *dir = perun_instance_path(inst, "lost");
	char from[PATH_MAX];
	perun_store_object_path(objects, sha, from, sizeof(from));
	snprintf(lost, PATH_MAX, "%s/%s%s", dir, sha, suffix);
	int rc = perun_mkdirs(dir, 0755, err);
	if (!rc && rename(from, lost))
		rc = perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot move '%s' to '%s'",
					   from, lost);
	free(objects);
	free(dir);
	if (!rc)
		printf("  moved to .perun/lost/%s%s", sha, suffix);
	return rc;
}

/*
 * Rebuild the index of minor, whose damaged file is at path, from the
 * whole entries before the damage that name readable objects.  (Objects
 * are stored without their origin, as Python Perun stores them, so those
 * after the damage cannot be told apart: they are left for 'perun add'
 * or 'perun gc'.)
 */
static int rebuild_index(struct perun_instance *inst, const struct perun_store_state *st,
			 const char *minor, const char *path, size_t *entries,
			 struct perun_error *err)
{
	struct perun_index idx;
	perun_index_salvage(path, &idx);
	for (size_t i = idx.n; i-- > 0;)
		if (!json_object_get(st->objects, idx.entries[i].checksum))
			perun_index_remove(&idx, i);
	*entries = idx.n;
	int rc = perun_minor_index_write(inst, minor, &idx, err);
	perun_index_release(&idx);
	return rc;
}

/* Drop from the index of minor the entries naming no readable object. */
static int prune_index(struct perun_instance *inst, const struct perun_store_state *st,
		       const char *minor, size_t *dropped, struct perun_error *err)
{
	struct perun_index idx;
	int rc = perun_minor_index_read(inst, minor, &idx, err);
	*dropped = 0;
	for (size_t i = idx.n; !rc && i-- > 0;)
		if (!json_object_get(st->objects, idx.entries[i].checksum)) {
			perun_index_remove(&idx, i);
			(*dropped)++;
		}
	if (!rc && *dropped)
		rc = perun_minor_index_write(inst, minor, &idx, err);
	if (!rc)
		perun_index_release(&idx);
	return rc;
}

struct fsck_counts {
	size_t problems, repaired;
};

static void problem(struct fsck_counts *c, const char *fmt, const char *a, const char *b)
{
	printf(fmt, a, b);
	putchar('\n');
	c->problems++;
}

static int check_objects(struct perun_instance *inst, const struct perun_store_state *st,
			 int repair, struct fsck_counts *c, struct perun_error *err)
{
	const char *sha;
	json_t *why;
	json_object_foreach(st->bad_objects, sha, why)
	{
		problem(c, "damaged profile object %s: %s", sha, json_string_value(why));
		char lost[PATH_MAX];
		if (!repair)
			continue;
		if (move_to_lost(inst, sha, ".object", lost, err))
			return -err->code;
		putchar('\n');
		c->repaired++;
	}
	return 0;
}

static int check_indexes(struct perun_instance *inst, const struct perun_store_state *st,
			 int repair, struct fsck_counts *c, struct perun_error *err)
{
	const char *minor;
	json_t *why, *names;
	json_object_foreach(st->bad_indexes, minor, why)
	{
		problem(c, "damaged index of minor version %s: %s", minor, json_string_value(why));
		char lost[PATH_MAX];
		size_t entries;
		if (!repair)
			continue;
		if (move_to_lost(inst, minor, ".pidx", lost, err) ||
		    rebuild_index(inst, st, minor, lost, &entries, err))
			return -err->code;
		printf("; rebuilt with the %zu profile%s that still read\n", entries,
		       entries == 1 ? "" : "s");
		c->repaired++;
	}
	json_object_foreach(st->indexes, minor, names)
	{
		size_t i, missing = 0;
		json_t *sum;
		json_array_foreach(names, i, sum)
		{
			const char *s = json_string_value(sum);
			if (json_object_get(st->objects, s))
				continue;
			problem(c, "index of minor version %s names %s", minor,
				json_object_get(st->bad_objects, s) ? "a damaged object"
								    : "a missing object");
			missing++;
		}
		size_t dropped;
		if (!repair || !missing)
			continue;
		if (prune_index(inst, st, minor, &dropped, err))
			return -err->code;
		printf("  dropped %zu entr%s from the index of %s\n", dropped,
		       dropped == 1 ? "y" : "ies", minor);
		c->repaired += missing;
	}
	return 0;
}

static int cmd_fsck(const struct perun_command *cmd, struct perun_cli *cli,
		    const struct perun_params *params, int argc, char **argv)
{
	struct perun_instance inst;
	struct perun_store_state st;
	struct perun_error err = { 0 };
	struct fsck_counts c = { 0 };
	int repair = perun_params_bool(params, "repair", 0);
	if (argc)
		return perun_fail(PERUN_EXIT_USAGE, "fsck takes no arguments");
	if (perun_store_state_open(&inst, &st, 1, &err))
		return perun_error_exit(&err);
	int rc = check_objects(&inst, &st, repair, &c, &err);
	if (!rc)
		rc = check_indexes(&inst, &st, repair, &c, &err);
	size_t unreferenced = 0;
	const char *sha;
	json_t *present;
	json_object_foreach(st.objects, sha, present) unreferenced +=
		!json_object_get(st.referenced, sha);
	printf("%zu index%s, %zu profile object%s, %zu .changes file%s: %zu problem%s",
	       json_object_size(st.indexes) + json_object_size(st.bad_indexes),
	       json_object_size(st.indexes) + json_object_size(st.bad_indexes) == 1 ? "" : "es",
	       json_object_size(st.objects) + json_object_size(st.bad_objects),
	       json_object_size(st.objects) + json_object_size(st.bad_objects) == 1 ? "" : "s",
	       st.changes, st.changes == 1 ? "" : "s", c.problems, c.problems == 1 ? "" : "s");
	if (repair)
		printf(", %zu repaired", c.repaired);
	printf("\n");
	if (unreferenced)
		printf("%zu profile object%s in no index ('perun gc' removes them)\n", unreferenced,
		       unreferenced == 1 ? " is" : "s are");
	perun_store_state_release(&st);
	perun_instance_close(&inst);
	if (rc)
		return perun_error_exit(&err);
	if (!c.problems || (repair && c.repaired >= c.problems))
		return PERUN_EXIT_OK;
	if (!repair)
		fprintf(stderr,
			"perun: the store has problems; 'perun fsck --repair' repairs them\n");
	return PERUN_EXIT_DEGRADED;
}

static const struct perun_option fsck_options[] = {
	{ "repair", NULL, PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "move damaged files to .perun/lost, drop index entries whose objects are gone "
	  "and rebuild damaged indexes",
	  0 },
	{ NULL },
};

const struct perun_command perun_cmd_fsck = {
	.name = "fsck",
	.fn = cmd_fsck,
	.options = fsck_options,
	.summary = "check the store, and repair it with --repair",
	.description = "Reads every index of a minor version and every profile object back\n"
		       "(inflated, its header and its JSON checked) and lists what is\n"
		       "damaged or missing.  With --repair, damaged files are moved to\n"
		       ".perun/lost, index entries naming objects that are gone are\n"
		       "dropped, and a damaged index is rebuilt from its whole entries\n"
		       "before the damage; objects then in no index are listed for\n"
		       "'perun gc'.  Exits 0 when the store is sound (or was repaired)\n"
		       "and 1 when problems remain.",
};
