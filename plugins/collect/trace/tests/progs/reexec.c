/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Runs prep() once, then execs itself to run work() 3 times: main is
 * called once in each program image. */
#include <unistd.h>

void prep(void);
void work(void);

void prep(void)
{
	usleep(5000);
}

void work(void)
{
	usleep(1000);
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc == 1) {
		prep();
		execl("/proc/self/exe", "reexec", "again", (char *)0);
		return 1;
	}
	for (int i = 0; i < 3; i++)
		work();
	return 0;
}
