/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The project's version control system through a vcs plugin.  Every call
 * into the plugin goes through here, marked for the crash handler, so a
 * crashing vcs plugin is named like any other plugin.
 */
#include <string.h>

#include "crash.h"
#include "plugin_loader.h"
#include "vcs.h"

/* rc = the plugin's op on the open repository, marked as phase op. */
#define VCS_CALL(rc, vcs, op, ...)                                                                 \
	do {                                                                                       \
		perun_crash_enter("vcs", (vcs)->type, #op);                                        \
		(rc) = (vcs)->ops->op((vcs)->state, __VA_ARGS__);                                  \
		perun_crash_leave();                                                               \
	} while (0)

static const struct perun_vcs_ops *vcs_ops(const char *type, struct perun_error *err)
{
	const struct perun_loaded_plugin *plugin = perun_plugin_load(PERUN_KIND_VCS, type, err);
	return plugin ? plugin->desc->ops : NULL;
}

int perun_vcs_open(struct perun_vcs *vcs, const char *type, const char *path,
		   struct perun_error *err)
{
	memset(vcs, 0, sizeof(*vcs));
	const struct perun_vcs_ops *ops = vcs_ops(type, err);
	if (!ops)
		return -err->code;
	perun_crash_enter("vcs", type, "open");
	int rc = ops->open(path, &vcs->state, err);
	perun_crash_leave();
	if (rc)
		return rc;
	vcs->type = type;
	vcs->ops = ops;
	return 0;
}

void perun_vcs_close(struct perun_vcs *vcs)
{
	if (vcs->ops) {
		perun_crash_enter("vcs", vcs->type, "close");
		vcs->ops->close(vcs->state);
		perun_crash_leave();
	}
	memset(vcs, 0, sizeof(*vcs));
}

int perun_vcs_create(const char *type, const char *path, const char *const *params,
		     struct perun_error *err)
{
	const struct perun_vcs_ops *ops = vcs_ops(type, err);
	if (!ops)
		return -err->code;
	perun_crash_enter("vcs", type, "init");
	int rc = ops->init(path, params, err);
	perun_crash_leave();
	return rc;
}

int perun_vcs_rev_parse(const struct perun_vcs *vcs, const char *rev, char *buf,
			struct perun_error *err)
{
	int rc;
	VCS_CALL(rc, vcs, rev_parse, rev, buf, err);
	return rc;
}

int perun_vcs_major_head(const struct perun_vcs *vcs, char *buf, struct perun_error *err)
{
	int rc;
	VCS_CALL(rc, vcs, major_head, buf, err);
	return rc;
}

int perun_vcs_info(const struct perun_vcs *vcs, const char *rev, struct perun_vcs_commit *commit,
		   struct perun_error *err)
{
	int rc;
	VCS_CALL(rc, vcs, info, rev, commit, err);
	return rc;
}

/* The walk calls back into perun: the callback runs unmarked, so a crash
 * there is perun's, not the plugin's. */
struct walk_trampoline {
	const struct perun_vcs *vcs;
	perun_vcs_walk_fn fn;
	void *data;
};

static int walk_step(const struct perun_vcs_commit *commit, void *data)
{
	struct walk_trampoline *t = data;
	perun_crash_leave();
	int rc = t->fn(commit, t->data);
	perun_crash_enter("vcs", t->vcs->type, "walk");
	return rc;
}

int perun_vcs_walk(const struct perun_vcs *vcs, const char *rev, perun_vcs_walk_fn fn, void *data,
		   struct perun_error *err)
{
	struct walk_trampoline t = { vcs, fn, data };
	int rc;
	VCS_CALL(rc, vcs, walk, rev, walk_step, &t, err);
	return rc;
}

int perun_vcs_save_state(const struct perun_vcs *vcs, struct perun_error *err)
{
	int rc;
	VCS_CALL(rc, vcs, save_state, err);
	return rc;
}

int perun_vcs_restore_state(const struct perun_vcs *vcs, struct perun_error *err)
{
	int rc;
	VCS_CALL(rc, vcs, restore_state, err);
	return rc;
}

int perun_vcs_checkout(const struct perun_vcs *vcs, const char *rev, struct perun_error *err)
{
	int rc;
	VCS_CALL(rc, vcs, checkout, rev, err);
	return rc;
}
