/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An opened Perun instance: the .perun directory, its config and VCS. */
#ifndef PERUN_CORE_INSTANCE_H
#define PERUN_CORE_INSTANCE_H

#include "command.h"
#include "config.h"
#include "vcs.h"

struct perun_instance {
	char *root; /* the directory holding .perun */
	char *dir;  /* root/.perun */
	struct perun_config config;
	struct perun_vcs vcs;
	int lock_fd; /* held store lock, or -1 */
};

/* Walk up from the current directory to the nearest .perun and open it
 * (config, and the VCS of vcs.type at vcs.url). */
int perun_instance_open(struct perun_instance *inst, struct perun_error *err);
void perun_instance_close(struct perun_instance *inst);
/* Like perun_instance_open without the VCS (inst->vcs stays empty): for
 * commands that only need the configuration, e.g. perun config. */
int perun_instance_open_config(struct perun_instance *inst, struct perun_error *err);
/* The nearest directory at or above the absolute path start holding a
 * .perun directory (malloc'd), or NULL (errno ENOENT; ENOMEM when out
 * of memory). */
char *perun_instance_locate(const char *start);

/* Path below .perun: perun_instance_path(inst, "jobs") -> malloc'd, never
 * NULL (out of memory ends perun, see xalloc.h). */
char *perun_instance_path(const struct perun_instance *inst, const char *rel);

/*
 * Take the store lock (.perun/lock, flock) before changing anything;
 * waits for another perun holding it.  Released by close or unlock.
 */
int perun_instance_lock(struct perun_instance *inst, struct perun_error *err);
void perun_instance_unlock(struct perun_instance *inst);

/* Remove the "<name>.tmp-XXXXXX" files of atomic writes directly in dir
 * that are a minute old: left by killed processes (call with the lock). */
void perun_remove_stale_temps(const char *dir);

#endif
