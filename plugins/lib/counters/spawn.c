/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A command held before its exec (spawn.h): it waits on a pipe; an exec
 * error goes back through a close-on-exec pipe, which a successful exec
 * closes empty.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static void child_exec(char *const *argv, const char *path, int output_fd, int go, int report)
{
	int null = open("/dev/null", O_RDWR);
	int out = output_fd >= 0 ? output_fd : null;
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
	    dup2(out, STDERR_FILENO) < 0)
		_exit(127);
	char byte;
	if (read(go, &byte, 1) != 1)
		_exit(127); /* the events could not be opened */
	execv(path, argv);
	int e = errno;
	if (write(report, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int counters_child_spawn(struct counters_child *c, char *const *argv, const char *path,
			 int output_fd, struct perun_error *err)
{
	int go[2], report[2];
	c->pid = 0;
	c->pidfd = c->go = c->report = -1;
	if (pipe2(go, O_CLOEXEC))
		return perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot make a pipe");
	if (pipe2(report, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot make a pipe");
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(report[0]);
		child_exec(argv, path, output_fd, go[0], report[1]);
	}
	close(go[0]);
	close(report[1]);
	c->go = go[1];
	c->report = report[0];
	if (pid < 0)
		return perun_error_set_errno(err, PERUN_ETOOL, errno, "cannot start '%s'", argv[0]);
	c->pid = pid;
	c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (c->pidfd < 0)
		return perun_error_set_errno(err, PERUN_ETOOL, errno,
					     "cannot watch the command (pidfd_open)");
	return 0;
}

int counters_child_go(struct counters_child *c, const char *argv0, struct perun_error *err)
{
	if (write(c->go, "x", 1) != 1)
		return perun_error_set_errno(err, PERUN_ETOOL, errno, "cannot start '%s'", argv0);
	close(c->go);
	c->go = -1;
	int e;
	ssize_t got;
	while ((got = read(c->report, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	if (got == (ssize_t)sizeof(e))
		return perun_error_set_errno(err, PERUN_ETOOL, e, "cannot run command '%s'", argv0);
	return 0;
}

int counters_child_reap(struct counters_child *c)
{
	int status = 0;
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	c->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

void counters_child_release(struct counters_child *c)
{
	if (c->go >= 0)
		close(c->go); /* a child still held exits unrun */
	if (c->pid > 0) {
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (c->pidfd >= 0)
		close(c->pidfd);
	if (c->report >= 0)
		close(c->report);
	c->pid = 0;
	c->pidfd = c->go = c->report = -1;
}

int counters_pid_watch(int pid, struct perun_error *err)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd >= 0)
		return fd;
	if (errno == ESRCH || errno == EINVAL)
		return perun_error_set(err, PERUN_ENOTFOUND, "no process with pid %d", pid);
	return perun_error_set_errno(err, PERUN_ETOOL, errno, "cannot watch process %d", pid);
}

int counters_runs_read(const struct perun_params *params, struct counters_runs *runs,
		       struct perun_error *err)
{
	runs->repeat = perun_params_int(params, "repeat", 1);
	runs->warmup = perun_params_int(params, "warmup", 0);
	long long pid = perun_params_int(params, "pid", 0);
	runs->duration = perun_params_float(params, "duration", 0);
	if (runs->repeat < 1 || runs->repeat > 1000000)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--repeat' must be 1 to 1000000, not %lld",
				       runs->repeat);
	if (runs->warmup < 0)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--warmup' must be 0 or more, not %lld",
				       runs->warmup);
	if (pid < 0 || pid > 0x7fffffff)
		return perun_error_set(err, PERUN_EINVAL, "option '--pid' is not a pid: %lld", pid);
	runs->pid = (int)pid;
	if (runs->duration < 0)
		return perun_error_set(err, PERUN_EINVAL,
				       "option '--duration' must be 0 or more, not %g",
				       runs->duration);
	if (runs->duration > 0 && !runs->pid)
		return perun_error_set(
			err, PERUN_EINVAL,
			"option '--duration' needs '--pid' (a command runs to its end)");
	if (runs->pid && (runs->repeat > 1 || runs->warmup > 0))
		return perun_error_set(
			err, PERUN_EINVAL,
			"options '--repeat' and '--warmup' need a command, not '--pid'");
	return 0;
}
