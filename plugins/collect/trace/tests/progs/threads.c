/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Four threads, each calling job 25 times; job sleeps 1 ms. */
#include <pthread.h>
#include <unistd.h>

void job(void);
void *worker(void *arg);

void job(void)
{
	usleep(1000);
}

void *worker(void *arg)
{
	for (int i = 0; i < 25; i++)
		job();
	return arg;
}

int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
