/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers shared by the cmd_*.c files. */
#ifndef PERUN_CORE_CMD_UTIL_H
#define PERUN_CORE_CMD_UTIL_H

#include "command.h"
#include "instance.h"

/* The worse of exit_code and err's exit code: a tool or I/O failure (3)
 * over bad input (2), so that one failed write among bad names is 3. */
int perun_exit_worse(int exit_code, const struct perun_error *err);

/* Print err and return the matching exit code. */
int perun_error_exit(const struct perun_error *err);

/* rev (NULL = HEAD) to a full id via the instance's VCS; sha holds 65. */
int perun_resolve_minor(struct perun_instance *inst, const char *rev, char *sha,
			struct perun_error *err);

/* Terminal colours, only when cli->color. */
const char *perun_color(const struct perun_cli *cli, const char *name);

#endif
