/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The profiled command: forked into its own process group and stopped
 * before exec, so that the engine can set up its probes and filters for
 * the pid before any of the program runs; then continued, waited for, and
 * killed with its whole group at the timeout or on an interrupt.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trace.h"

/* After the timeout's SIGTERM, how long the program gets before SIGKILL. */
#define KILL_GRACE_NS 1000000000ULL

unsigned long long trace_now_ns(void)
{
	struct timespec ts;
	/* The clock of bpf_ktime_get_ns. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static void child_setup(const struct trace_config *cfg, char *const *env, int errfd)
{
	int out = -1;
	if (!strcmp(cfg->output_handling, "suppress")) {
		out = open("/dev/null", O_WRONLY);
	} else if (!strcmp(cfg->output_handling, "capture")) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/output.txt", cfg->tmpdir);
		out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	} else {
		/* perun's stdout carries its own report: the program's output
		 * goes where the user sees it without mixing into that. */
		out = dup(STDERR_FILENO);
	}
	int in = open("/dev/null", O_RDONLY);
	if (out < 0 || in < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
	    dup2(out, STDERR_FILENO) < 0)
		goto fail;
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	for (size_t i = 0; env && env[i]; i++)
		putenv(env[i]);
	raise(SIGSTOP);
	execvp(cfg->argv[0], cfg->argv);
fail:;
	int e = errno;
	if (write(errfd, &e, sizeof(e)) < 0)
		_exit(126);
	_exit(127);
}

int trace_child_spawn(struct trace_child *child, const struct trace_config *cfg, char *const *env,
		      struct perun_error *err)
{
	int fds[2];
	memset(child, 0, sizeof(*child));
	child->pid = -1;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot create a pipe");
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return perun_error_set_errno(err, PERUN_ETOOL, errno, "cannot fork");
	}
	if (pid == 0) {
		close(fds[0]);
		setpgid(0, 0);
		child_setup(cfg, env, fds[1]);
	}
	close(fds[1]);
	setpgid(pid, pid);
	child->pid = pid;
	int status;
	pid_t got;
	while ((got = waitpid(pid, &status, WUNTRACED)) < 0 && errno == EINTR)
		;
	if (got == pid && WIFSTOPPED(status)) {
		/* Kept open: continue reads whether exec worked. */
		child->execfd = fds[0];
		return 0;
	}
	int e = 0;
	if (read(fds[0], &e, sizeof(e)) != sizeof(e))
		e = ECHILD;
	close(fds[0]);
	child->exited = 1;
	child->pid = -1;
	return perun_error_set_errno(err, PERUN_ETOOL, e, "cannot start '%s'", cfg->argv[0]);
}

int trace_child_continue(struct trace_child *child)
{
	int fd = child->execfd;
	child->execfd = -1;
	child->start_ns = trace_now_ns();
	kill(child->pid, SIGCONT);
	/* Returns at exec (the pipe closes) or with the exec's errno. */
	int e = 0;
	ssize_t n;
	while ((n = read(fd, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(fd);
	if (n != sizeof(e))
		return 0;
	while (waitpid(child->pid, &child->status, 0) < 0 && errno == EINTR)
		;
	child->exited = 1;
	return e;
}

void trace_child_kill(struct trace_child *child)
{
	if (child->pid <= 0 || child->exited)
		return;
	kill(-child->pid, SIGKILL);
	kill(child->pid, SIGKILL);
	while (waitpid(child->pid, &child->status, 0) < 0 && errno == EINTR)
		;
	child->exited = 1;
	child->end_ns = trace_now_ns();
}

int trace_child_wait(struct trace_child *child, const struct trace_config *cfg,
		     int (*poll)(void *data, int timeout_ms), void *data, struct perun_error *err)
{
	unsigned long long deadline =
		cfg->timeout > 0 ? child->start_ns + (unsigned long long)(cfg->timeout * 1e9) : 0;
	unsigned long long term_sent = 0;
	/* Without a poll of the caller, its end wakes us at once. */
	int pidfd = poll ? -1 : (int)syscall(SYS_pidfd_open, child->pid, 0);
	while (!child->exited) {
		if (*cfg->interrupted && !child->interrupted) {
			child->interrupted = 1;
			kill(-child->pid, SIGKILL);
		}
		unsigned long long now = trace_now_ns();
		if (deadline && now >= deadline && !term_sent) {
			trace_log(cfg, "timeout of %gs reached: terminating process group %d",
				  cfg->timeout, (int)child->pid);
			child->timed_out = 1;
			kill(-child->pid, SIGTERM);
			term_sent = now;
		}
		if (term_sent && now >= term_sent + KILL_GRACE_NS)
			kill(-child->pid, SIGKILL);
		if (poll) {
			int rc = poll(data, 100);
			if (rc < 0) {
				trace_child_kill(child);
				return perun_error_set(err, PERUN_ETOOL,
						       "reading the trace data failed: %s",
						       strerror(-rc));
			}
		} else if (pidfd >= 0) {
			struct pollfd end = { .fd = pidfd, .events = POLLIN };
			/* ppoll: poll names the parameter here. */
			ppoll(&end, 1, &(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
		} else {
			struct timespec ts = { 0, 20 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		pid_t got = waitpid(child->pid, &child->status, WNOHANG);
		if (got == child->pid) {
			child->exited = 1;
			child->end_ns = trace_now_ns();
		} else if (got < 0 && errno != EINTR) {
			int e = errno;
			if (pidfd >= 0)
				close(pidfd);
			return perun_error_set_errno(err, PERUN_ETOOL, e, "cannot wait for '%s'",
						     cfg->argv[0]);
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	if (child->timed_out)
		/* What the program left running in its group goes too. */
		kill(-child->pid, SIGKILL);
	if (child->interrupted)
		return perun_error_set(err, PERUN_EINTR, "interrupted while tracing '%s'",
				       cfg->argv[0]);
	return 0;
}

/* The executable execvp would run for name; caller frees. */
char *trace_which(const char *name)
{
	if (strchr(name, '/'))
		return access(name, X_OK) ? NULL : realpath(name, NULL);
	const char *path = getenv("PATH");
	for (const char *dir = path ? path : "/usr/bin:/bin"; dir;) {
		const char *colon = strchr(dir, ':');
		int len = colon ? (int)(colon - dir) : (int)strlen(dir);
		char *candidate;
		if (asprintf(&candidate, "%.*s/%s", len ? len : 1, len ? dir : ".", name) < 0)
			return NULL;
		struct stat sb;
		if (!stat(candidate, &sb) && S_ISREG(sb.st_mode) && !access(candidate, X_OK)) {
			char *real = realpath(candidate, NULL);
			free(candidate);
			return real;
		}
		free(candidate);
		dir = colon ? colon + 1 : NULL;
	}
	return NULL;
}

void trace_child_describe(const struct trace_child *child, char *buf, size_t len)
{
	int st = child->status;
	if (child->timed_out)
		snprintf(buf, len, "was stopped at the timeout");
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else if (WIFEXITED(st) && WEXITSTATUS(st))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
	else
		buf[0] = '\0';
}
