/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The time collector and perun-spawn, its spawner, talk over a socket on
 * the spawner's fd PERUN_SPAWN_FD.  The spawner is started as
 *
 *     perun-spawn discard|stderr PATH ARGV0 ARGV1 ...
 *
 * and for every byte PERUN_SPAWN_RUN it reads it runs PATH once and answers
 * with one struct perun_spawn_result.  EOF on the socket ends it.  Both
 * sides are built from this tree for the same machine, so the struct goes
 * over the socket as it is.
 */
#ifndef PERUN_TIME_SPAWN_PROTO_H
#define PERUN_TIME_SPAWN_PROTO_H

#include <stdint.h>

#define PERUN_SPAWN_FD 3
#define PERUN_SPAWN_RUN 'r'

struct perun_spawn_result {
	int64_t real_ns;     /* CLOCK_MONOTONIC from before the spawn to after wait4 */
	int64_t user_us;     /* ru_utime */
	int64_t sys_us;      /* ru_stime */
	int64_t max_rss_kib; /* ru_maxrss */
	int32_t status;      /* wait status */
	int32_t spawn_errno; /* posix_spawn failed with it: nothing ran */
};

#endif
