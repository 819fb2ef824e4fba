/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The demo's profiled program: sorts n pseudo-random numbers. */
#include <stdio.h>
#include <stdlib.h>

static void sort(long *a, long n)
{
	/* Version 1: insertion sort. */
	for (long i = 1; i < n; i++) {
		long v = a[i], j = i;
		while (j > 0 && a[j - 1] > v) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	long *a = malloc((size_t)n * sizeof(*a));
	if (!a)
		return 1;
	unsigned long x = 88172645463325252UL;
	for (long i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		a[i] = (long)(x % 1000000);
	}
	sort(a, n);
	printf("%ld %ld\n", a[0], a[n - 1]);
	free(a);
	return 0;
}
