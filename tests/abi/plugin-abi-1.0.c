/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A view plugin written against plugin ABI 1.0, FROZEN FOREVER: never edit
 * this file.  It does not include <perun/plugin.h> but carries its own copy
 * of the 1.0 layouts, so that whatever later minors add to the header, this
 * is exactly what a plugin built in the 1.0 days looks like.  Every 1.x
 * core must keep loading and running it (tests/abi/t0810-plugins-abi.sh).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- ABI 1.0, copied ---- */
struct abi10_error {
	int code;
	char message[1024];
};

struct abi10_option {
	const char *name;
	const char *short_name;
	int type; /* 4: string */
	const char *default_value;
	const char *choices;
	const char *metavar;
	const char *help;
	uint32_t flags;
};

struct abi10_view_ctx {
	uint32_t size;
	const void *params;
	const void *profile;
	int argc;
	char *const *argv;
	void *out;
	int color;
};

struct abi10_view_ops {
	uint32_t size;
	int (*show)(struct abi10_view_ctx *ctx, struct abi10_error *err);
};

struct abi10_plugin {
	uint32_t magic;
	uint16_t abi_major;
	uint16_t abi_minor;
	uint32_t size;
	uint32_t kind; /* 3: view */
	const char *name;
	const char *version;
	const char *summary;
	const struct abi10_option *options;
	const void *ops;
};

/* libperun functions as they were declared for ABI 1.0. */
const char *perun_params_string(const void *params, const char *name,
				const char *fallback);
const char *perun_profile_type(const void *profile);
size_t perun_profile_resource_count(const void *profile);
/* ---- end of the copy ---- */

static int abi10_show(struct abi10_view_ctx *ctx, struct abi10_error *err)
{
	(void)err;
	fprintf(ctx->out, "abi_1_0: %s profile, %zu resources, %d extra words, %s\n",
		perun_profile_type(ctx->profile),
		perun_profile_resource_count(ctx->profile), ctx->argc,
		perun_params_string(ctx->params, "greeting", "(none)"));
	return 0;
}

static const struct abi10_view_ops abi10_ops = {
	.size = sizeof(struct abi10_view_ops),
	.show = abi10_show,
};

static const struct abi10_option abi10_options[] = {
	{"greeting", "g", 4, "hello from 1.0", NULL, "<text>",
	 "what to print after the counts", 0},
	{NULL, NULL, 0, NULL, NULL, NULL, NULL, 0},
};

const struct abi10_plugin *perun_plugin_abi_1_0_describe(void);
const struct abi10_plugin *perun_plugin_abi_1_0_describe(void)
{
	static const struct abi10_plugin descriptor = {
		.magic = 0x4e524550u,
		.abi_major = 1,
		.abi_minor = 0,
		.size = sizeof(struct abi10_plugin),
		.kind = 3,
		.name = "abi_1_0",
		.version = "1.0",
		.summary = "frozen view plugin of plugin ABI 1.0",
		.options = abi10_options,
		.ops = &abi10_ops,
	};
	return &descriptor;
}
