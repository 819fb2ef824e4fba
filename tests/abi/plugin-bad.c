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
 *   HANG_IN_COLLECT   a collector that never returns, deaf to its
 *                  ctx->interrupted (the timeout's request to stop)
 *   CRASH_VCS      a vcs (build with DESC_KIND=PERUN_KIND_VCS) whose
 *                  repository opens, whose HEAD is 0...0 and any other
 *                  revision 1...1, and which crashes when asked anything
 *                  more (major_head, info, walk, checkout)
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

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
#ifdef HANG_IN_COLLECT
	for (;;)
		sleep(1);
#endif
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

#ifdef CRASH_VCS
#include <string.h>

static int vcs_init(const char *path, const char *const *params, struct perun_error *err)
{
	return 0;
}

static int vcs_open(const char *path, void **state, struct perun_error *err)
{
	*state = NULL;
	return 0;
}

static void vcs_close(void *state)
{
}

static int vcs_rev_parse(void *state, const char *rev, char *buf, struct perun_error *err)
{
	memset(buf, strcmp(rev, "HEAD") ? '1' : '0', 40);
	buf[40] = '\0';
	return 0;
}

static int vcs_fine(void *state, struct perun_error *err)
{
	return 0;
}

static int vcs_crash(void)
{
	return raise(SIGSEGV);
}

static int vcs_major_head(void *state, char *buf, struct perun_error *err)
{
	return vcs_crash();
}

static int vcs_info(void *state, const char *rev, struct perun_vcs_commit *commit,
		    struct perun_error *err)
{
	return vcs_crash();
}

static int vcs_walk(void *state, const char *rev, perun_vcs_walk_fn fn, void *data,
		    struct perun_error *err)
{
	return vcs_crash();
}

static int vcs_checkout(void *state, const char *rev, struct perun_error *err)
{
	return vcs_crash();
}

static const struct perun_vcs_ops vcs_ops = {
	.size = sizeof(struct perun_vcs_ops),
	.init = vcs_init,
	.open = vcs_open,
	.close = vcs_close,
	.rev_parse = vcs_rev_parse,
	.major_head = vcs_major_head,
	.info = vcs_info,
	.walk = vcs_walk,
	.is_dirty = vcs_fine,
	.save_state = vcs_fine,
	.restore_state = vcs_fine,
	.checkout = vcs_checkout,
};
#define VCS_OPS ((const void *)&vcs_ops)
#else
#define VCS_OPS NULL
#endif

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
		       : DESC_KIND == PERUN_KIND_VCS   ? VCS_OPS
						       : (const void *)&view_ops,
	};
	return &descriptor;
}
