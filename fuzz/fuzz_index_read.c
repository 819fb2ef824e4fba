/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: the binary index of a minor version (pidx), read
 * strictly and salvaged, and written back when it reads. */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/perun-fuzz-pidx-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	ssize_t written = write(fd, data, size);
	close(fd);
	struct perun_index idx;
	struct perun_error err = { 0 };
	if (written == (ssize_t)size && !perun_index_read(path, &idx, &err)) {
		perun_index_write(path, &idx, &err);
		perun_index_release(&idx);
	}
	perun_index_salvage(path, &idx);
	perun_index_release(&idx);
	unlink(path);
	return 0;
}
