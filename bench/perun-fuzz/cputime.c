/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cputime <tries> <limit> <prog> <file>: the least CPU time (user +
 * system seconds, from wait4) of <tries> runs of <prog> <file>, or
 * "timeout" when a run takes longer than <limit> wall seconds.  CPU
 * time, not wall time: on a shared machine it is what the program did.
 */
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	if (argc < 5)
		return 2;
	int tries = atoi(argv[1]);
	double limit = atof(argv[2]), best = -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	for (int i = 0; i < tries; i++) {
		pid_t pid;
		if (posix_spawn(&pid, argv[3], &fa, NULL, argv + 3, environ))
			return 1;
		struct timespec start, now, nap = { 0, 1000000 };
		clock_gettime(CLOCK_MONOTONIC, &start);
		struct rusage ru;
		int st;
		while (!wait4(pid, &st, WNOHANG, &ru)) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((double)(now.tv_sec - start.tv_sec) > limit) {
				kill(pid, SIGKILL);
				waitpid(pid, &st, 0);
				puts("timeout");
				return 0;
			}
			nanosleep(&nap, NULL);
		}
		double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
			     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		if (best < 0 || cpu < best)
			best = cpu;
	}
	printf("%.4f\n", best);
	return 0;
}
