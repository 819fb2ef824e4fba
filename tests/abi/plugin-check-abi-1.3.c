/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A check plugin written against plugin ABI 1.3, FROZEN FOREVER: never
 * edit this file.  Like plugin-abi-1.0.c it carries its own copy of the
 * layouts of its day, so it is exactly what a check plugin built before
 * 1.4 looks like: its ops end at compare_series, without the method's long
 * name and title that 1.4 added.  Every 1.x core must keep running it by
 * its plugin name and title it by that name (tests/abi/t0810-plugins-abi.sh).
 */
#include <stddef.h>
#include <stdint.h>
#include <math.h>

/* ---- ABI 1.3, copied ---- */
struct abi13_error {
	int code;
	char message[1024];
};

struct abi13_degradation {
	uint32_t size;
	int result; /* -2: degradation */
	const char *type;
	const char *location;
	const char *from_baseline;
	const char *to_target;
	double rate_degradation;
	const char *confidence_type;
	double confidence_rate;
	double rate_degradation_relative;
	double effect_size;
	double noise;
	const char *version;
};

typedef int (*abi13_emit_fn)(const struct abi13_degradation *change, void *data);

struct abi13_check_ops {
	uint32_t size;
	int (*compare)(const void *baseline, const void *target, const void *params,
		       abi13_emit_fn emit, void *data, struct abi13_error *err);
	int (*compare_series)(const void *series, size_t count, const void *params,
			      abi13_emit_fn emit, void *data, struct abi13_error *err);
};

struct abi13_plugin {
	uint32_t magic;
	uint16_t abi_major;
	uint16_t abi_minor;
	uint32_t size;
	uint32_t kind; /* 5: check */
	const char *name;
	const char *version;
	const char *summary;
	const void *options;
	const void *ops;
};
/* ---- end of the copy ---- */

/* Every pair degrades at one location, so its verdict always shows. */
static int abi13_compare(const void *baseline, const void *target, const void *params,
			 abi13_emit_fn emit, void *data, struct abi13_error *err)
{
	(void)baseline, (void)target, (void)params, (void)err;
	struct abi13_degradation d = {
		.size = sizeof(d),
		.result = -2,
		.type = "frozen",
		.location = "frozen_location",
		.from_baseline = "1",
		.to_target = "2",
		.rate_degradation = 2.0,
		.confidence_type = "no",
		.confidence_rate = 0.0,
		.rate_degradation_relative = 1.0,
		.effect_size = NAN,
		.noise = NAN,
		.version = NULL,
	};
	return emit(&d, data);
}

static const struct abi13_check_ops abi13_ops = {
	.size = sizeof(struct abi13_check_ops),
	.compare = abi13_compare,
	.compare_series = NULL,
};

const struct abi13_plugin *perun_plugin_check_1_3_describe(void);
const struct abi13_plugin *perun_plugin_check_1_3_describe(void)
{
	static const struct abi13_plugin descriptor = {
		.magic = 0x4e524550u,
		.abi_major = 1,
		.abi_minor = 3,
		.size = sizeof(struct abi13_plugin),
		.kind = 5,
		.name = "check_1_3",
		.version = "1.3",
		.summary = "frozen check plugin of plugin ABI 1.3",
		.options = NULL,
		.ops = &abi13_ops,
	};
	return &descriptor;
}
