/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: the readers of "perun import perf": perf script text
 * folded as stackcollapse-perf.pl folds it (plain, gzip or zstd), with
 * the options chosen by the first byte, and folded stack lines ("a;b 3",
 * import perf stack) when its top bit is set.  Each stack read back must
 * be one the table holds: the walk and the sizes agree. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "command.h"
#include "compressed.h"
#include "folded_stacks.h"
#include "perf_script.h"

/* The core's warnings (an event filtered out) say nothing here. */
void perun_warn(const char *fmt, ...)
{
	(void)fmt;
}

static int count_stack(const char *stack, size_t len, uint64_t count, void *data)
{
	(void)stack, (void)len, (void)count;
	(*(size_t *)data)++;
	return 0;
}

/* The lines of in as folded stacks, as import perf stack reads them. */
static int fold_lines(struct compressed_file *in, struct folded_stacks *out,
		      struct perun_error *err)
{
	char *line;
	size_t len;
	int rc;
	while ((rc = compressed_getline(in, &line, &len, err)) > 0) {
		size_t stack_len;
		uint64_t count;
		if (folded_line_parse(line, len, &stack_len, &count) == 0 &&
		    folded_stacks_add(out, line, stack_len, count) < 0)
			return -1;
	}
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t flags = data[0];
	int fd = memfd_create("fuzz-perf-script", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
		close(fd);
		return 0;
	}
	char name[64];
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	struct perun_error err = { 0 };
	struct compressed_file *in;
	if (compressed_open(name, &in, &err)) {
		close(fd);
		return 0;
	}
	struct folded_stacks *stacks = folded_stacks_new();
	if (stacks) {
		struct perf_script_options opts = {
			.pid = flags & 1,
			.tid = (flags >> 1) & 1,
			.kernel = (flags >> 2) & 1,
			.jit = (flags >> 3) & 1,
			.addrs = (flags >> 4) & 1,
			.srcline = (flags >> 5) & 1,
			.event = (flags >> 6) & 1 ? "cpu-clock" : NULL,
		};
		if (flags & 0x80)
			fold_lines(in, stacks, &err);
		else
			perf_script_collapse(in, name, &opts, stacks, &err);
		size_t walked = 0;
		folded_stacks_foreach(stacks, count_stack, &walked);
		if (walked != folded_stacks_size(stacks))
			abort();
		folded_stacks_free(stacks);
	}
	compressed_close(in);
	close(fd);
	return 0;
}
