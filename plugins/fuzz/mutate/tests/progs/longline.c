/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A slow path on long lines: each line costs the square of its length
 * (every character is compared with every other one). */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
	if (!f)
		return 2;
	static char line[1 << 20];
	unsigned long same = 0;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n; j++)
				if (line[i] == line[j])
					same++;
	}
	fclose(f);
	printf("%lu\n", same);
	return 0;
}
