/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The child calls child_work 7 times, the parent parent_work 3 times. */
#include <sys/wait.h>
#include <unistd.h>

void child_work(void);
void parent_work(void);

void child_work(void)
{
	usleep(2000);
}

void parent_work(void)
{
	usleep(2000);
}

int main(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 7; i++)
			child_work();
		_exit(0);
	}
	for (int i = 0; i < 3; i++)
		parent_work();
	waitpid(pid, NULL, 0);
	return 0;
}
