/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Paging stdout through $PAGER on a terminal (see pager.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pager.h"

static pid_t pager_pid = -1;

/* At exit: end the pager's input and wait until the user has quit it. */
static void wait_for_pager(void)
{
	if (pager_pid < 0)
		return;
	fflush(stdout);
	close(STDOUT_FILENO);
	while (waitpid(pager_pid, NULL, 0) < 0)
		;
	pager_pid = -1;
}

static int paging_allows(const struct perun_config *config, const char *command)
{
	const char *paging =
		config ? perun_config_lookup_string(config, "general.paging", "auto") : "auto";
	if (!strcmp(paging, "always"))
		return 1;
	/* As git does: what can run long (less -FRX leaves a short text be). */
	if (!strcmp(paging, "auto"))
		return !strcmp(command, "log") || !strcmp(command, "status") ||
		       !strcmp(command, "check") || !strcmp(command, "show") ||
		       !strcmp(command, "showdiff");
	if (!strcmp(paging, "only-log"))
		return !strcmp(command, "log");
	if (!strcmp(paging, "only-status"))
		return !strcmp(command, "status");
	return 0;
}

void perun_pager_start(const struct perun_cli *cli, const struct perun_config *config,
		       const char *command)
{
	if (pager_pid >= 0 || cli->no_pager || !isatty(STDOUT_FILENO) ||
	    !paging_allows(config, command))
		return;
	const char *pager = getenv("PERUN_PAGER");
	if (!pager || !*pager)
		pager = getenv("PAGER");
	if (!pager || !*pager)
		pager = "less";
	if (!strcmp(pager, "cat"))
		return;
	int fds[2];
	if (pipe(fds))
		return;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		setenv("LESS", getenv("LESS") ? getenv("LESS") : "FRX", 1);
		execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		_exit(127);
	}
	dup2(fds[1], STDOUT_FILENO);
	close(fds[0]);
	close(fds[1]);
	pager_pid = pid;
	/* A pager quit early must not kill perun mid-write with SIGPIPE
	 * before the store is consistent; writes then just fail. */
	signal(SIGPIPE, SIG_IGN);
	atexit(wait_for_pager);
}
