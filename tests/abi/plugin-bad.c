/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Test plugins for the loader's checks (tests/abi/t0810-plugins-abi.sh).
 * One source, built once per case by tests/abi/local.mk; each build
 * overrides exactly one field with -D, so every plugin is valid but for
 * the defect its name says:
 *   PLUGIN_NAME    the file name (and the describe symbol's)
 *   EXPORT_NAME    the name in the describe symbol
 *   DESC_MAGIC, DESC_MAJOR, DESC_MINOR, DESC_SIZE, DESC_KIND, DESC_NAME
 *   NO_SHOW        a view without its required show operation
 *   USE_DEP        need a library that is not there (libabigone)
 *   USE_UNDEFINED  call a function defined nowhere: loads with lazy
 *                  binding, fails with LD_BIND_NOW=1
 *   CRASH_IN       crash (SIGSEGV) in DESCRIBE, SHOW or COLLECT
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include <perun/plugin.h>

#ifndef EXPORT_NAME
#define EXPORT_NAME PLUGIN_NAME
#endif
#ifndef DESC_MAGIC
#define DESC_MAGIC PERUN_PLUGIN_MAGIC
#endif
#ifndef DESC_MAJOR
#define DESC_MAJOR PERUN_PLUGIN_ABI_MAJOR
#endif
#ifndef DESC_MINOR
#define DESC_MINOR PERUN_PLUGIN_ABI_MINOR
#endif
#ifndef DESC_SIZE
#define DESC_SIZE sizeof(struct perun_plugin)
#endif
#ifndef DESC_KIND
#define DESC_KIND PERUN_KIND_VIEW
#endif
#define STR_(x) #x
#define STR(x)	STR_(x)
#ifndef DESC_NAME
#define DESC_NAME STR(PLUGIN_NAME)
#endif
#define DESCRIBE_(n) perun_plugin_##n##_describe
#define DESCRIBE(n)  DESCRIBE_(n)

#ifdef USE_DEP
int abi_dep_answer(void);
#endif
#ifdef USE_UNDEFINED
int abi_test_undefined_function(void);
#endif

#define CRASH_DESCRIBE 1
#define CRASH_SHOW     2
#define CRASH_COLLECT  3
#ifdef CRASH_IN
#define CRASH_HERE(where)                                                                          \
	do {                                                                                       \
		if ((CRASH_IN) == (where))                                                         \
			raise(SIGSEGV);                                                            \
	} while (0)
#else
#define CRASH_HERE(where) ((void)0)
#endif

#ifndef NO_SHOW
static int test_show(struct perun_view_ctx *ctx, struct perun_error *err)
{
	CRASH_HERE(CRASH_SHOW);
#if defined(USE_DEP)
	fprintf(ctx->out, "%s: %d\n", DESC_NAME, abi_dep_answer());
#elif defined(USE_UNDEFINED)
	fprintf(ctx->out, "%s: %d\n", DESC_NAME, abi_test_undefined_function());
#else
	fprintf(ctx->out, "%s\n", DESC_NAME);
#endif
	return 0;
}
#endif

static const struct perun_view_ops view_ops = {
	.size = sizeof(struct perun_view_ops),
#ifndef NO_SHOW
	.show = test_show,
#endif
};

/* A collector only to be found by the loader: it refuses to collect. */
static int test_collect(struct perun_collect_ctx *ctx, struct perun_error *err)
{
	CRASH_HERE(CRASH_COLLECT);
	err->code = PERUN_EGENERIC;
	snprintf(err->message, sizeof(err->message),
		 "%s is a loader test plugin and collects nothing", DESC_NAME);
	return -PERUN_EGENERIC;
}

static const struct perun_collect_ops collect_ops = {
	.size = sizeof(struct perun_collect_ops),
	.collect = test_collect,
	.profile_type = "time",
	.default_units = "{\"time\": \"s\"}",
};

const struct perun_plugin *DESCRIBE(EXPORT_NAME)(void);
const struct perun_plugin *DESCRIBE(EXPORT_NAME)(void)
{
	CRASH_HERE(CRASH_DESCRIBE);
	static const struct perun_plugin descriptor = {
		.magic = DESC_MAGIC,
		.abi_major = DESC_MAJOR,
		.abi_minor = DESC_MINOR,
		.size = DESC_SIZE,
		.kind = DESC_KIND,
		.name = DESC_NAME,
		.version = "0",
		.summary = "loader test plugin " STR(PLUGIN_NAME),
		.ops = DESC_KIND == PERUN_KIND_COLLECT ? (const void *)&collect_ops
						       : (const void *)&view_ops,
	};
	return &descriptor;
}
