/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Paging long output on a terminal, as git does: stdout goes through
 * $PERUN_PAGER, else $PAGER, else "less" (with LESS=FRX unless set, so
 * one screen of output is just printed), until perun exits.
 */
#ifndef PERUN_CORE_PAGER_H
#define PERUN_CORE_PAGER_H

#include "command.h"
#include "config.h"

/*
 * Page the rest of stdout when it is a terminal, --no-pager was not given
 * and general.paging allows it for command ("log", "status", "check",
 * "show"): "auto" (the default, as git pages) and "always" page all of
 * them, "only-log" and "only-status" that one (Python Perun's values;
 * "only-log" is its default), "never" none.
 * Call it once the command knows it will succeed, before it prints.
 */
void perun_pager_start(const struct perun_cli *cli, const struct perun_config *config,
		       const char *command);

#endif
