/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: the YAML reader of the configuration, then its
 * one-line formatting and its emitter (what config get and set do). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "config_yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *value;
	struct perun_error err = { 0 };
	if (perun_yaml_load((const char *)data, size, &value, &err))
		return 0;
	free(perun_yaml_format_inline(value));
	char path[] = "/tmp/perun-fuzz-yaml-XXXXXX";
	int fd = mkstemp(path);
	if (fd >= 0) {
		close(fd);
		perun_yaml_save_file(path, value, &err);
		unlink(path);
	}
	json_decref(value);
	return 0;
}
