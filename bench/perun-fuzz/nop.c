/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reads its input and does nothing with it: the program whose own run
 * time is all there is, for the fuzzer's overhead per execution. */
#include <stdio.h>

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
	if (!f)
		return 2;
	while (fgetc(f) != EOF)
		;
	fclose(f);
	return 0;
}
