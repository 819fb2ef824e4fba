/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The top-level commands, in the order of "perun --help": each is defined
 * with its options in its own core/cmd_<name>.c as
 * "const struct perun_command perun_cmd_<name>".  A new command is that
 * file, a line here and its name in core/local.mk; tests/t0004-build-lists.sh
 * fails when one of them is missed.  See docs/adding-a-command.md.
 */
#ifndef PERUN_CORE_COMMAND_LIST_H
#define PERUN_CORE_COMMAND_LIST_H

#include "command.h"

#define PERUN_COMMAND_LIST(X)                                                                      \
	X(init)                                                                                    \
	X(config)                                                                                  \
	X(add)                                                                                     \
	X(rm)                                                                                      \
	X(status)                                                                                  \
	X(log)                                                                                     \
	X(show)                                                                                    \
	X(showdiff)                                                                                \
	X(collect)                                                                                 \
	X(import)                                                                                  \
	X(postprocessby)                                                                           \
	X(run)                                                                                     \
	X(check)                                                                                   \
	X(serve)                                                                                   \
	X(push)                                                                                    \
	X(fetch)                                                                                   \
	X(pull)                                                                                    \
	X(fuzz)                                                                                    \
	X(fsck)                                                                                    \
	X(gc)                                                                                      \
	X(plugins)                                                                                 \
	X(utils)                                                                                   \
	X(docs)

#define PERUN_COMMAND_DECLARE(name) extern const struct perun_command perun_cmd_##name;
PERUN_COMMAND_LIST(PERUN_COMMAND_DECLARE)
#undef PERUN_COMMAND_DECLARE

#endif
