/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: the profile loader, then everything that reads a
 * loaded profile back (the dumps, the type walk, the resource walk). */
#include <stdint.h>
#include <stdlib.h>

#include <perun/perun.h>

static int count_type(const char *type_id, const struct perun_jv *persistent,
		      const struct perun_jv *columns, void *data)
{
	(void)type_id, (void)persistent, (void)columns;
	(*(size_t *)data)++;
	return 0;
}

static int count_row(const json_t *row, void *data)
{
	(void)row;
	(*(size_t *)data)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perun_profile *profile;
	struct perun_error err = { 0 };
	if (perun_profile_load_buffer((const char *)data, size, "fuzz", &profile, &err))
		return 0;
	size_t len, n = 0;
	free(perun_profile_dump(profile, PERUN_DUMP_COMPACT, 1, &len));
	free(perun_profile_dump(profile, PERUN_DUMP_PENDING, 0, &len));
	perun_profile_foreach_type(profile, count_type, &n, &err);
	perun_profile_foreach_resource(profile, count_row, &n);
	perun_profile_free(profile);
	return 0;
}
