/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Runs <prog> <file> n times the plainest way (posix_spawn with output to
 * /dev/null, waitpid): the baseline that perun fuzz's cost per execution
 * is measured against.  Prints the mean seconds per run. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	long n = atol(argv[1]);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		pid_t pid;
		int st;
		if (posix_spawn(&pid, argv[2], &fa, NULL, argv + 2, environ))
			return 1;
		waitpid(pid, &st, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.6f\n",
	       ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9) / (double)n);
	return 0;
}
