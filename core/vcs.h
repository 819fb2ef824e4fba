/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The project's version control system, through a vcs plugin. */
#ifndef PERUN_CORE_VCS_H
#define PERUN_CORE_VCS_H

#include <perun/perun.h>

struct perun_vcs {
	const char *type;		 /* plugin name, borrowed */
	const struct perun_vcs_ops *ops; /* borrowed from the plugin */
	void *state;			 /* the plugin's */
};

/* Load the vcs plugin type and open the repository at path. */
int perun_vcs_open(struct perun_vcs *vcs, const char *type, const char *path,
		   struct perun_error *err);
void perun_vcs_close(struct perun_vcs *vcs);

/* Load the vcs plugin type and create a repository at path. */
int perun_vcs_create(const char *type, const char *path, const char *const *params,
		     struct perun_error *err);

/*
 * The plugin's operations on the open repository (see struct
 * perun_vcs_ops), each marked for the crash handler as "vcs plugin
 * <type> in <op>".  Callers use these, never vcs->ops directly.
 */
int perun_vcs_rev_parse(const struct perun_vcs *vcs, const char *rev, char *buf,
			struct perun_error *err);
int perun_vcs_major_head(const struct perun_vcs *vcs, char *buf, struct perun_error *err);
int perun_vcs_info(const struct perun_vcs *vcs, const char *rev, struct perun_vcs_commit *commit,
		   struct perun_error *err);
int perun_vcs_walk(const struct perun_vcs *vcs, const char *rev, perun_vcs_walk_fn fn, void *data,
		   struct perun_error *err);
int perun_vcs_save_state(const struct perun_vcs *vcs, struct perun_error *err);
int perun_vcs_restore_state(const struct perun_vcs *vcs, struct perun_error *err);
int perun_vcs_checkout(const struct perun_vcs *vcs, const char *rev, struct perun_error *err);

#endif
