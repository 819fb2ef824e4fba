/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A program that closes every descriptor it did not open, reuses their
 * numbers, changes directory and allocates enough for the trace to grow:
 * the recorder must neither stop nor touch the program's files. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

__attribute__((noinline)) static void *keep(size_t n)
{
	return malloc(n); /* @keep */
}

int main(int argc, char **argv)
{
	/* libunwind validates the outermost frame through a pipe of its own
	 * the first time it meets it: let that happen before its descriptors
	 * are closed here (README.md, limits). */
	free(malloc(1));
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	int fd = open(argc > 1 ? argv[1] : "out.txt", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd != 3 || write(fd, "hello", 5) != 5)
		return 2;
	if (chdir("/") != 0)
		return 3;
	for (long i = 0; i < 700000; i++) {
		char *p = malloc(24 + (size_t)(i & 7)); /* @churn */
		p[0] = 1;
		free(p);
	}
	void *k = keep(42);
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size != 5)
		return 4;
	return k ? 0 : 5;
}
