/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A program whose event counts are known, for the counters tests:
 *   pages N      touches N fresh pages: at least N page faults
 *   sleeps N     sleeps 1 ms N times: at least N context switches
 *   spin MS FILE burns MS ms of CPU, then writes its CPU time in ns to FILE
 *   children N P N children each touching P fresh pages (inherit)
 *   threads N P  N threads each touching P fresh pages (inherit)
 *   exit CODE    exits with CODE
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void touch_pages(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
}

static void *thread_pages(void *arg)
{
	touch_pages((long)(intptr_t)arg);
	return NULL;
}

static long long cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long n = atol(argv[2]);
	if (!strcmp(argv[1], "pages")) {
		touch_pages(n);
	} else if (!strcmp(argv[1], "sleeps")) {
		for (long i = 0; i < n; i++)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	} else if (!strcmp(argv[1], "spin") && argc > 3) {
		volatile unsigned long x = 0;
		while (cpu_ns() < n * 1000000LL)
			for (int i = 0; i < 100000; i++)
				x += (unsigned long)i;
		FILE *f = fopen(argv[3], "w");
		if (!f)
			return 1;
		fprintf(f, "%lld\n", cpu_ns());
		fclose(f);
	} else if (!strcmp(argv[1], "children") && argc > 3) {
		for (long i = 0; i < n; i++)
			if (fork() == 0) {
				touch_pages(atol(argv[3]));
				_exit(0);
			}
		while (wait(NULL) > 0)
			;
	} else if (!strcmp(argv[1], "threads") && argc > 3) {
		pthread_t t[64];
		if (n > 64)
			n = 64;
		for (long i = 0; i < n; i++)
			pthread_create(&t[i], NULL, thread_pages, (void *)(intptr_t)atol(argv[3]));
		for (long i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	} else if (!strcmp(argv[1], "exit")) {
		return (int)n;
	} else {
		return 2;
	}
	return 0;
}
