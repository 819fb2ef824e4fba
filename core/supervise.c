/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The supervisor of tree-changing commands (see supervise.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervise.h"

/* In a child: its parent's flag, 1 while the parent must restore. */
static volatile int *held;
static volatile pid_t worker;

static void forward(int sig)
{
	if (worker > 0)
		kill(worker, sig);
}

int perun_supervise(const struct perun_vcs *vcs)
{
	/* Shared, so that the child can say it restored the tree itself. */
	volatile int *flag = mmap(NULL, sizeof(*flag), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (flag == MAP_FAILED)
		return -1;
	*flag = 1;
	fflush(NULL);
	pid_t parent = getpid(), pid = fork();
	if (pid < 0) {
		munmap((void *)flag, sizeof(*flag));
		return -1;
	}
	if (pid == 0) {
		held = flag;
		/* A supervisor killed outright stops the work as SIGTERM does:
		 * the child restores and exits. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			raise(SIGTERM);
		return 0;
	}
	worker = pid;
	struct sigaction sa = { .sa_handler = forward, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			_exit(3);
	/* A child that exits on its own restored the tree, unless it had
	 * to end at once (a collector that ignored its timeout). */
	int code = WIFEXITED(status) ? WEXITSTATUS(status)
				     : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL);
	if (*flag) {
		struct perun_error err = { 0 };
		if (perun_vcs_restore_state(vcs, &err))
			fprintf(stderr,
				"perun: cannot restore the original branch and working tree: %s\n",
				err.message);
		else
			fprintf(stderr,
				"perun: the original branch and working tree are restored\n");
	}
	_exit(code);
}

void perun_supervise_release(void)
{
	if (held)
		*held = 0;
	held = NULL;
}
