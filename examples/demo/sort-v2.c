/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Version 2 of the demo's sort: qsort from the C library. */
static int cmp_long(const void *x, const void *y)
{
	long a = *(const long *)x, b = *(const long *)y;
	return (a > b) - (a < b);
}

static void sort(long *a, long n)
{
	qsort(a, (size_t)n, sizeof(*a), cmp_long);
}
