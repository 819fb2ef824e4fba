/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Exact work, random time: compares every pair of bytes of each line
 * (quadratic, so longer lines mean more coverage), crashes on a line
 * holding a byte above 0x7e, and then sleeps 0-30 ms at random, so the
 * time a profile measures, and the verdict on it, change from run to run
 * as on a loaded machine. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
	if (!f)
		return 2;
	static char line[1 << 16];
	unsigned long same = 0;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		for (size_t i = 0; i < n; i++) {
			if ((unsigned char)line[i] > 0x7e)
				raise(SIGSEGV);
			for (size_t j = i + 1; j < n; j++)
				same += line[i] == line[j];
		}
	}
	fclose(f);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	unsigned r = (unsigned)now.tv_nsec ^ (unsigned)getpid() * 2654435761u;
	struct timespec nap = { 0, (long)(r % 30000) * 1000 };
	nanosleep(&nap, NULL);
	printf("%lu\n", same);
	return 0;
}
