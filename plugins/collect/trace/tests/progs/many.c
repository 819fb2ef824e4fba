/* SPDX-License-Identifier: GPL-3.0-or-later */
/* leaf called argv[1] times: records enough that the reader gives their
 * pages back as it goes. */
#include <stdlib.h>

int leaf(int x);

int leaf(int x)
{
	return x * 3 + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, s = 0;
	for (long i = 0; i < n; i++)
		s += leaf((int)i);
	return s == 42;
}
