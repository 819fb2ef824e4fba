/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A parent and its child allocate; then the program executes itself
 * ("exec" argument) so a new image of the same process records too. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "exec")) {
		free(malloc(333)); /* @after-exec */
		return 0;
	}
	void *before = malloc(111); /* @parent */
	pid_t pid = fork();
	if (pid == 0) {
		void *c = malloc(222); /* @child */
		free(c);	       /* @child-free */
		free(before);	       /* @child-free-copy */
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	free(before); /* @parent-free */
	execl(argv[0], argv[0], "exec", (char *)NULL);
	return 1;
}
