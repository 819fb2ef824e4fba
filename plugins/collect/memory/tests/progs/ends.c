/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Programs that end abruptly: argv[1] is _exit, crash, kill, abort or
 * fail (exit status 7). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "_exit";
	char *kept = malloc(123); /* @kept */
	kept[0] = 0;
	free(malloc(77)); /* @freed */
	if (!strcmp(how, "_exit"))
		_exit(0);
	if (!strcmp(how, "fail"))
		return 7;
	if (!strcmp(how, "kill"))
		kill(getpid(), SIGKILL);
	if (!strcmp(how, "abort"))
		abort();
	volatile int *nothing = NULL;
	return *nothing; /* crash */
}
