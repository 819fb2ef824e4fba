/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The time collector and perun-spawn, its spawner, talk over a socket on
 * the spawner's fd PERUN_SPAWN_FD.  The spawner is started as
 *
 *     perun-spawn discard|stderr PATH ARGV0 ARGV1 ...
 *
 * and for every struct perun_spawn_request it reads it runs PATH that many
 * times in a row, appending one struct perun_spawn_result per run to the
 * file on its fd PERUN_SPAWN_RESULTS_FD (a memfd of perun's), then answers
 * with one struct perun_spawn_done.  Nothing wakes perun between two runs,
 * and nothing grows in the spawner.  EOF on the socket ends it.  Both
 * sides are built from this tree for the same machine, so the structs are
 * exchanged as they are.
 */
#ifndef PERUN_TIME_SPAWN_PROTO_H
#define PERUN_TIME_SPAWN_PROTO_H

#include <stdint.h>

#define PERUN_SPAWN_FD	       3
#define PERUN_SPAWN_RESULTS_FD 4

struct perun_spawn_request {
	int64_t runs;		 /* how many runs */
	int32_t stop_on_failure; /* end the batch after a run that failed */
	int32_t reserved;
};

struct perun_spawn_done {
	int64_t runs; /* results written; fewer than asked after a failure */
};

struct perun_spawn_result {
	int64_t real_ns;     /* CLOCK_MONOTONIC from before the spawn to after wait4 */
	int64_t user_us;     /* ru_utime */
	int64_t sys_us;	     /* ru_stime */
	int64_t max_rss_kib; /* ru_maxrss */
	int32_t status;	     /* wait status */
	int32_t spawn_errno; /* posix_spawn failed with it: nothing ran */
};

#endif
