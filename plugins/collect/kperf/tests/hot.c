/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A program spending about 98% of its CPU time in hot_loop, 2% in
 * cold_loop, both called from work: the kperf tests' subject, compiled by
 * the tests with and without frame pointers.  The skew is wide on purpose:
 * on a shared machine a loop's CPU time per iteration varies (a sibling
 * hyperthread, frequency), and one run of a 90/10 split showed 78/22. */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) void hot_loop(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)(i * i);
}

__attribute__((noinline)) void cold_loop(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)(i * i);
}

__attribute__((noinline)) void work(long n)
{
	hot_loop(10 * n - n / 5);
	cold_loop(n / 5);
}

int main(int argc, char **argv)
{
	work(argc > 1 ? atol(argv[1]) : 10000000);
	return 0;
}
