/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: reading a store object (inflating with the header's
 * bound, the header, the UTF-8 length, the profile), whole and streamed
 * (a segmented object's index, its map inflated as it is walked). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"

#define SHA "0123456789abcdef0123456789abcdef01234567"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_type(const char *id, const struct perun_jv *type, const struct perun_jv *columns,
		      void *data)
{
	(void)id;
	(void)type;
	(void)columns;
	++*(size_t *)data;
	return 0;
}
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64];
	char path[128];
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/perun-fuzz-objects-%d", (int)getpid());
		mkdir(dir, 0700);
		snprintf(path, sizeof(path), "%s/01", dir);
		mkdir(path, 0700);
	}
	const char *sha = SHA;
	snprintf(path, sizeof(path), "%s/01/%s", dir, sha + 2);
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	struct perun_profile *profile;
	struct perun_error err = { 0 };
	if (!perun_store_read_profile(dir, SHA, &profile, &err))
		perun_profile_free(profile);
	size_t types = 0;
	if (!perun_store_read_profile_streamed(dir, SHA, &profile, &err)) {
		perun_profile_foreach_type(profile, count_type, &types, &err);
		perun_profile_free(profile);
	}
	return 0;
}
