/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Crashes on a line starting with 100 spaces, hangs on one ending with
 * 100 spaces, and is quick otherwise. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
	if (!f)
		return 2;
	static char line[1 << 20];
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");
		if (n >= 100 && strspn(line, " ") >= 100)
			raise(SIGSEGV);
		size_t t = 0;
		while (t < n && line[n - 1 - t] == ' ')
			t++;
		if (t >= 100 && t < n)
			for (;;)
				pause();
	}
	fclose(f);
	return 0;
}
