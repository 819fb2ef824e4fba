/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Every command, each defined in its own cmd_<name>.c. */
#ifndef PERUN_CORE_COMMANDS_H
#define PERUN_CORE_COMMANDS_H

#include "command.h"

extern const struct perun_command perun_cmd_init;
extern const struct perun_command perun_cmd_config;
extern const struct perun_command perun_cmd_add;
extern const struct perun_command perun_cmd_rm;
extern const struct perun_command perun_cmd_status;
extern const struct perun_command perun_cmd_log;
extern const struct perun_command perun_cmd_show;
extern const struct perun_command perun_cmd_showdiff;
extern const struct perun_command perun_cmd_collect;
extern const struct perun_command perun_cmd_postprocessby;
extern const struct perun_command perun_cmd_run;
extern const struct perun_command perun_cmd_check;
extern const struct perun_command perun_cmd_plugins;
extern const struct perun_command perun_cmd_docs;

#endif
