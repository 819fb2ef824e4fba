/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A supervisor for the commands that change the working tree (collect -m,
 * run at other versions).  Restoring the tree from a crash handler is not
 * safe (the crash may be inside libgit2 or malloc), so once the state is
 * saved perun forks: the child does the work and the parent, which holds
 * the saved state, waits.  When the child dies by a signal while the state
 * is still saved (a plugin crashed, SIGKILL, the OOM killer), the parent
 * restores the branch and the changes and exits 128 + the signal; else it
 * exits with the child's status.  SIGINT, SIGTERM and SIGHUP sent to the
 * parent are passed on to the child, which restores and exits as it did
 * before (130 for Ctrl-C).
 */
#ifndef PERUN_CORE_SUPERVISE_H
#define PERUN_CORE_SUPERVISE_H

#include "vcs.h"

/* Call right after perun_vcs_save_state succeeded.  Returns 0 in the child
 * (go on working), never in the parent; -1 when no child could be made
 * (the work then goes on unsupervised, as before). */
int perun_supervise(const struct perun_vcs *vcs);

/* The child has restored the saved state itself: its parent must not. */
void perun_supervise_release(void);

#endif
