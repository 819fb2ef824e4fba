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

#endif
