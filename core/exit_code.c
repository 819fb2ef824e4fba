/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun's exit status (DESIGN.md section 4): from an error code, and from
 * the signal that interrupted a run (128 + its number, as shells report a
 * process killed by it: 130 for Ctrl-C), set by the core's signal handlers.
 */
#include <signal.h>

#include "command.h"

static volatile sig_atomic_t interrupted_by;

void perun_note_interrupt(int sig)
{
	interrupted_by = sig;
}

int perun_interrupt_exit(void)
{
	return 128 + (interrupted_by ? interrupted_by : SIGINT);
}

int perun_exit_for(int error_code)
{
	if (error_code < 0)
		error_code = -error_code;
	switch (error_code) {
	case PERUN_OK: return PERUN_EXIT_OK;
	case PERUN_EINVAL:
	case PERUN_ENOTFOUND: return PERUN_EXIT_USAGE;
	case PERUN_EINTR: return perun_interrupt_exit();
	default: return PERUN_EXIT_FAILURE;
	}
}
