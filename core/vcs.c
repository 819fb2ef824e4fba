/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The project's version control system through a vcs plugin. */
#include <string.h>

#include "plugin_loader.h"
#include "vcs.h"

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
	int rc = ops->open(path, &vcs->state, err);
	if (rc)
		return rc;
	vcs->type = type;
	vcs->ops = ops;
	return 0;
}

void perun_vcs_close(struct perun_vcs *vcs)
{
	if (vcs->ops)
		vcs->ops->close(vcs->state);
	memset(vcs, 0, sizeof(*vcs));
}

int perun_vcs_create(const char *type, const char *path, const char *const *params,
		     struct perun_error *err)
{
	const struct perun_vcs_ops *ops = vcs_ops(type, err);
	if (!ops)
		return -err->code;
	return ops->init(path, params, err);
}
