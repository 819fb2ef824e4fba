/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun-spawn - the time collector's spawner (see spawn-proto.h).
 *
 * Linux charges a child with the peak resident size of the address space
 * it was started from (recorded at its exec), so a command spawned by perun
 * itself had perun's size as its max-rss floor, and that floor moved with
 * whatever else perun did.  This program is started once per collection,
 * stays small, and starts and measures every run from its own address
 * space.  It uses nothing but libc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn-proto.h"

extern char **environ;

static volatile sig_atomic_t child; /* the running command, or 0 */
static volatile sig_atomic_t stop;  /* a signal asked us to end */

/* Ending must not orphan a running command: it goes first. */
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
	if (child > 0)
		kill((pid_t)child, SIGKILL);
}

static void setup_signals(sigset_t *handled)
{
	static const int ends[] = { SIGTERM, SIGINT, SIGQUIT, SIGHUP };
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(handled);
	sa.sa_handler = on_signal; /* no SA_RESTART: a blocked read must see it */
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		struct sigaction old;
		/* What perun ignores (nohup, a background job) we ignore too,
		 * except SIGTERM, which is how perun stops us. */
		if (ends[i] != SIGTERM && !sigaction(ends[i], NULL, &old) &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(ends[i], &sa, NULL);
		sigaddset(handled, ends[i]);
	}
	/* wait4 needs children that are not reaped for us; a write to a gone
	 * perun must fail, not kill. */
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* A perun killed outright takes its running command with it. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
}

static int prepare(int to_stderr, posix_spawn_file_actions_t *actions, posix_spawnattr_t *attr)
{
	if (posix_spawn_file_actions_init(actions) || posix_spawnattr_init(attr))
		return -1;
	/* The command must not eat perun's input nor write to its stdout. */
	int rc = posix_spawn_file_actions_addopen(actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (to_stderr) {
		rc = rc ? rc
			: posix_spawn_file_actions_adddup2(actions, STDERR_FILENO, STDOUT_FILENO);
	} else {
		rc = rc ? rc
			: posix_spawn_file_actions_addopen(actions, STDOUT_FILENO, "/dev/null",
							   O_WRONLY, 0);
		rc = rc ? rc
			: posix_spawn_file_actions_addopen(actions, STDERR_FILENO, "/dev/null",
							   O_WRONLY, 0);
	}
	/* Signals perun ignores or blocks must behave normally in the command. */
	sigset_t none, defaults;
	sigemptyset(&none);
	sigemptyset(&defaults);
	static const int reset[] = { SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE, SIGCHLD };
	for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
		sigaddset(&defaults, reset[i]);
	rc = rc ? rc : posix_spawnattr_setsigmask(attr, &none);
	rc = rc ? rc : posix_spawnattr_setsigdefault(attr, &defaults);
	rc = rc ? rc
		: posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	return rc ? -1 : 0;
}

static int64_t timespec_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static int64_t timeval_us(const struct timeval *t)
{
	return (int64_t)t->tv_sec * 1000000 + t->tv_usec;
}

/* One run of the command into res; -1 if it could not be waited for. */
static int run(const char *path, char **argv, const posix_spawn_file_actions_t *actions,
	       const posix_spawnattr_t *attr, const sigset_t *handled,
	       struct perun_spawn_result *res)
{
	struct timespec t0, t1;
	struct rusage ru;
	sigset_t old;
	pid_t pid;
	int status;

	memset(res, 0, sizeof(*res));
	/* Until child is set, a signal must wait, or it would miss the command. */
	sigprocmask(SIG_BLOCK, handled, &old);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = posix_spawn(&pid, path, actions, attr, argv, environ);
	if (!rc)
		child = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		res->spawn_errno = rc;
		return 0;
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	child = 0;
	res->real_ns = timespec_ns(&t1) - timespec_ns(&t0);
	res->user_us = timeval_us(&ru.ru_utime);
	res->sys_us = timeval_us(&ru.ru_stime);
	res->max_rss_kib = ru.ru_maxrss;
	res->status = status;
	return 0;
}

static int failed(const struct perun_spawn_result *res)
{
	return res->spawn_errno || !WIFEXITED(res->status) || WEXITSTATUS(res->status);
}

/* Read exactly len bytes; 0 on EOF, on an error or when a signal ended us. */
static int read_full(void *buf, size_t len)
{
	size_t got = 0;
	while (got < len && !stop) {
		ssize_t n = read(PERUN_SPAWN_FD, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		got += (size_t)n;
	}
	return got == len;
}

int main(int argc, char **argv)
{
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	sigset_t handled;

	if (argc < 4 || (strcmp(argv[1], "discard") && strcmp(argv[1], "stderr"))) {
		fputs("usage: perun-spawn discard|stderr PATH ARGV0 [ARG...] "
		      "(run by perun's time collector)\n",
		      stderr);
		return 2;
	}
	/* Only our socket goes on; perun's other descriptors (locks,
	 * profiles) are none of the command's business. */
	closefrom(PERUN_SPAWN_RESULTS_FD + 1);
	if (fcntl(PERUN_SPAWN_FD, F_SETFD, FD_CLOEXEC) < 0 ||
	    fcntl(PERUN_SPAWN_RESULTS_FD, F_SETFD, FD_CLOEXEC) < 0) {
		perror("perun-spawn: no socket on descriptor 3 or results file on 4");
		return 2;
	}
	setup_signals(&handled);
	if (prepare(!strcmp(argv[1], "stderr"), &actions, &attr) < 0) {
		fputs("perun-spawn: out of memory\n", stderr);
		return 1;
	}
	struct perun_spawn_request req;
	while (read_full(&req, sizeof(req))) {
		struct perun_spawn_done done = { 0 };
		while (done.runs < req.runs) {
			struct perun_spawn_result res;
			if (run(argv[2], argv + 3, &actions, &attr, &handled, &res) < 0) {
				perror("perun-spawn: cannot wait for the command");
				return 1;
			}
			/* Stopped by perun: it reads nothing more. */
			if (stop)
				return 0;
			if (write(PERUN_SPAWN_RESULTS_FD, &res, sizeof(res)) !=
			    (ssize_t)sizeof(res)) {
				perror("perun-spawn: cannot write a result");
				return 1;
			}
			done.runs++;
			if (req.stop_on_failure && failed(&res))
				break;
		}
		/* Small enough for one send on a local socket; perun gone ends us. */
		if (send(PERUN_SPAWN_FD, &done, sizeof(done), MSG_NOSIGNAL) !=
		    (ssize_t)sizeof(done))
			return 0;
	}
	return 0;
}
