/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Every kind of annotation, on 4 threads: per thread, work() (critical path,
 * around) 5 times sleeping 2 ms in a sync scope "nap", a load begin/end
 * region of 1 ms, an instant and a counter per call; prep() (before) and
 * finish() (after) once each in main; 4 async "request" regions begun in
 * main and ended by the workers, each 3 ms or more.  With an argument
 * "crash" main dies of SIGSEGV inside an open region; "exit" leaves with
 * _exit after flushing nothing itself; "fork" forks a child that runs
 * work() 3 times; "exec" flushes and runs itself again in the same pid.
 */
#define _POSIX_C_SOURCE 200809L
#include <perun/annotate.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	while (nanosleep(&ts, &ts))
		;
}

static int work(int i)
{
	PERUN_CRITICAL_PATH(work, around);
	{
		PERUN_SYNC_SCOPE(nap);
		sleep_ms(2);
	}
	PERUN_SYNC_BEGIN(load);
	sleep_ms(1);
	PERUN_SYNC_END(load);
	PERUN_INSTANT(step, "i", i);
	PERUN_COUNTER(progress, "done", i + 1);
	return i;
}

static void prep(void)
{
	PERUN_CRITICAL_PATH(prep, before);
	sleep_ms(1);
}

static void finish(void)
{
	PERUN_CRITICAL_PATH(finish, after);
	sleep_ms(1);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	sleep_ms(3);
	PERUN_ASYNC_END(request, id);
	int s = 0;
	for (int i = 0; i < 5; i++)
		s += work(i);
	return (void *)(long)s;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	pthread_t th[4];
	prep();
	if (!strcmp(mode, "fork")) {
		pid_t pid = fork();
		if (pid == 0) {
			for (int i = 0; i < 3; i++)
				work(i);
			exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	for (long i = 0; i < 4; i++) {
		PERUN_ASYNC_BEGIN(request, i);
		pthread_create(&th[i], NULL, worker, (void *)i);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	finish();
	if (!strcmp(mode, "crash")) {
		PERUN_SYNC_BEGIN(doomed);
		raise(SIGSEGV);
	}
	if (!strcmp(mode, "exec")) {
		perun_annotate_flush();
		execl("/proc/self/exe", argv[0], "", (char *)NULL);
		return 1;
	}
	if (!strcmp(mode, "exit")) {
		PERUN_SYNC_BEGIN(cut);
		_exit(0);
	}
	return 0;
}
