/* SPDX-License-Identifier: GPL-3.0-or-later */
/* before_crash 4 times, then crasher dies of SIGSEGV after 20 ms. */
#include <signal.h>
#include <unistd.h>

void before_crash(void);
void crasher(void);

void before_crash(void)
{
	usleep(1000);
}

void crasher(void)
{
	usleep(20000);
	raise(SIGSEGV);
}

int main(void)
{
	for (int i = 0; i < 4; i++)
		before_crash();
	crasher();
	return 0;
}
