/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: "perun import chrome", the reader of Chrome Trace
 * Event JSON (core/import_chrome.c), on one file of arbitrary bytes.  An
 * accepted file gives a profile with resources whose amounts are finite
 * and >= 0 and whose exclusive times lie within them; a refused one an
 * error that names the file. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "import.h"

static int check_row(const json_t *row, void *data)
{
	(void)data;
	double amount = json_number_value(json_object_get(row, "amount"));
	json_t *excl = json_object_get(row, "exclusive");
	if (!isfinite(amount) || amount < 0)
		abort();
	if (excl && (json_number_value(excl) < -1e-6 * (1 + amount) ||
		     json_number_value(excl) > amount * (1 + 1e-9) + 1e-9))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("trace", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	char *paths[] = { path };
	struct perun_error err = { 0 };
	struct perun_profile *profile = perun_profile_new("mixed");
	if (profile) {
		int rc = perun_import_chrome.read_many(paths, 1, profile, &err);
		if (rc && !strstr(err.message, path))
			abort();
		if (!rc) {
			if (!perun_profile_resource_count(profile))
				abort();
			perun_profile_foreach_resource(profile, check_row, NULL);
		}
		perun_profile_free(profile);
	}
	close(fd);
	return 0;
}
