/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A program spending about 98% of its CPU time in hot_loop, 2% in
 * cold_loop, both called from work: the kperf tests' subject, compiled by
 * the tests with and without frame pointers.  The skew is wide on purpose:
 * on a shared machine a loop's CPU time per iteration varies (a sibling
 * hyperthread, frequency), and one run of a 90/10 split showed 78/22.
 *
 * Its argument is the CPU time to spend, in milliseconds (1000 if none):
 * the loops run until the process's CPU clock says so, so that every
 * machine takes as many samples.  Built with -DHOT_FIXED_WORK (the
 * benchmark, where a sampler's cost must show as time) it is the number
 * of chunks of work to do instead. */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

/* A chunk of work: 65536 multiplications in a chain, about 60-75 us on
 * any x86-64 of these years (a loop through memory ran one iteration a
 * cycle on a CPU that renames memory, five on another).  A macro, not an
 * inline function: kperf shows inlined functions as frames of their own,
 * and the samples are to fall in the loops themselves. */
#define CHUNK()                                                                                    \
	do {                                                                                       \
		unsigned long x_ = sink;                                                           \
		for (unsigned long i_ = 0; i_ < 65536; i_++)                                       \
			x_ = x_ * 6364136223846793005ul + i_;                                      \
		sink = x_;                                                                         \
	} while (0)

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Done when the CPU clock reaches *budget, or after *budget chunks. */
static int spent(double *budget)
{
#ifdef HOT_FIXED_WORK
	return --*budget <= 0;
#else
	return cpu_seconds() >= *budget;
#endif
}

__attribute__((noinline)) void hot_loop(double budget)
{
	do
		CHUNK();
	while (!spent(&budget));
}

__attribute__((noinline)) void cold_loop(double budget)
{
	do
		CHUNK();
	while (!spent(&budget));
}

__attribute__((noinline)) void work(double amount)
{
#ifdef HOT_FIXED_WORK
	hot_loop(amount * 0.98);
	cold_loop(amount * 0.02);
#else
	double start = cpu_seconds();
	hot_loop(start + amount / 1000 * 0.98);
	cold_loop(start + amount / 1000);
#endif
}

int main(int argc, char **argv)
{
	work(argc > 1 ? atof(argv[1]) : 1000);
	return 0;
}
