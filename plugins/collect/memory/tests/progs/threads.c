/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Several threads allocating at once: argv[1] threads, argv[2] rounds. */
#include <pthread.h>
#include <stdlib.h>

static int rounds;

static void *worker(void *arg)
{
	size_t size = 16 + (size_t)(long)arg; /* thread i allocates 16 + i bytes */
	for (int i = 0; i < rounds; i++) {
		char *p = malloc(size); /* @worker-malloc */
		p[0] = (char)i;
		free(p); /* @worker-free */
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	rounds = argc > 2 ? atoi(argv[2]) : 1000;
	pthread_t tids[64];
	for (long i = 0; i < n && i < 64; i++)
		pthread_create(&tids[i], NULL, worker, (void *)i);
	for (int i = 0; i < n && i < 64; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
