/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sorts the numbers of each line 50 times with a quicksort that takes the
 * first element as its pivot: quadratic on sorted input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void qs(long *a, long lo, long hi)
{
	while (lo < hi) {
		long p = a[lo], i = lo;
		for (long j = lo + 1; j <= hi; j++)
			if (a[j] < p) {
				long t = a[++i];
				a[i] = a[j];
				a[j] = t;
			}
		a[lo] = a[i];
		a[i] = p;
		qs(a, lo, i - 1);
		lo = i + 1;
	}
}

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
	if (!f)
		return 2;
	static char line[1 << 20];
	static long v[1 << 17], w[1 << 17];
	long sum = 0;
	while (fgets(line, sizeof(line), f)) {
		long n = 0;
		for (char *p = line, *e; n < (1 << 17); p = e) {
			long x = strtol(p, &e, 10);
			if (e == p)
				break;
			v[n++] = x;
		}
		for (int r = 0; r < 50; r++) {
			memcpy(w, v, (size_t)n * sizeof(long));
			qs(w, 0, n - 1);
			sum += n ? w[n / 2] : 0;
		}
	}
	fclose(f);
	printf("%ld\n", sum);
	return 0;
}
