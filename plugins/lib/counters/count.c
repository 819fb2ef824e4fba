/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Counting one process (count.h).  A started command waits on a pipe
 * until its counters are open (enable_on_exec), so that nothing of
 * perun and everything of the command is counted; a process ends the
 * wait through a pidfd, polled together with the interval timer and,
 * when attached, a signalfd for SIGINT.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "count.h"
#include "spawn.h"

/* How often a wait without interval looks at *interrupted, in ms. */
#define POLL_MS 100

struct counting {
	const struct counters_event *events;
	size_t n;
	const struct counters_target *target;
	int *fds;		       /* n per thread: fds[thread * n + event] */
	size_t nthreads;	       /* 1, or the threads of an attached process */
	struct counters_reading *last; /* at the previous tick */
	struct counters_reading *delta;
	struct counters_child child; /* started command, pid 0 if none */
	int pidfd, sigfd;	     /* attached process, SIGINT */
	sigset_t old_mask;
	struct timespec start;
};

static double now_since(const struct timespec *start)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - start->tv_sec) + (double)(t.tv_nsec - start->tv_nsec) / 1e9;
}

static void scale(struct counters_reading *r)
{
	r->value = r->running_ns ? (double)r->raw * ((double)r->enabled_ns / (double)r->running_ns)
				 : 0.0;
}

/* Each event's counts summed over the threads, then scaled (perf stat's
 * aggregation: counts, enabled and running times added up). */
static int read_all(struct counting *c, struct counters_reading *out, struct perun_error *err)
{
	for (size_t i = 0; i < c->n; i++) {
		out[i].raw = out[i].enabled_ns = out[i].running_ns = 0;
		for (size_t t = 0; t < c->nthreads; t++) {
			unsigned long long v[3];
			if (read(c->fds[t * c->n + i], v, sizeof(v)) != (ssize_t)sizeof(v))
				return perun_error_set_errno(err, PERUN_ETOOL, errno,
							     "cannot read the counter of '%s'",
							     c->events[i].name);
			out[i].raw += v[0];
			out[i].enabled_ns += v[1];
			out[i].running_ns += v[2];
		}
		scale(&out[i]);
	}
	return 0;
}

/* The events of thread number t (tid). */
static int open_all(struct counting *c, size_t t, int tid, int on_exec, struct perun_error *err)
{
	for (size_t i = 0; i < c->n; i++) {
		struct counters_event ev = c->events[i];
		ev.attr.disabled = 1;
		ev.attr.enable_on_exec = on_exec;
		ev.attr.inherit = c->target->inherit ? 1 : 0;
		int fd = counters_event_open(&ev, tid, err);
		if (fd < 0)
			return fd;
		c->fds[t * c->n + i] = fd;
	}
	return 0;
}

/* An attached process's threads: a counter opened for a pid counts its
 * main thread only, and inherit reaches only threads started later, so
 * each thread running now gets its own (as perf stat -p opens them). */
static int open_threads(struct counting *c, int pid, struct perun_error *err)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	DIR *d = opendir(path);
	if (!d) /* pidfd_open succeeded: the process is gone meanwhile */
		return perun_error_set(err, PERUN_ENOTFOUND, "no process with pid %d", pid);
	int rc = 0;
	c->nthreads = 0;
	for (struct dirent *e; !rc && (e = readdir(d));) {
		int tid = atoi(e->d_name);
		if (tid <= 0)
			continue;
		int *grown = realloc(c->fds, (c->nthreads + 1) * c->n * sizeof(*grown));
		if (!grown) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			break;
		}
		c->fds = grown;
		for (size_t i = 0; i < c->n; i++)
			c->fds[c->nthreads * c->n + i] = -1;
		c->nthreads++;
		rc = open_all(c, c->nthreads - 1, tid, 0, err);
		/* A thread that ended since the listing is not an error. */
		if (rc == -PERUN_ENOTFOUND && tid != pid) {
			perun_error_clear(err);
			rc = 0;
		}
	}
	closedir(d);
	return rc;
}

static int start_command(struct counting *c, struct perun_error *err)
{
	const struct counters_target *t = c->target;
	int rc = counters_child_spawn(&c->child, t->argv, t->path, t->output_fd, err);
	if (!rc)
		rc = open_all(c, 0, c->child.pid, 1, err);
	if (rc)
		return rc; /* releasing the child makes it exit unrun */
	clock_gettime(CLOCK_MONOTONIC, &c->start);
	return counters_child_go(&c->child, t->argv[0], err);
}

static int attach(struct counting *c, struct perun_error *err)
{
	const struct counters_target *t = c->target;
	c->pidfd = counters_pid_watch(t->pid, err);
	if (c->pidfd < 0)
		return c->pidfd;
	int rc = open_threads(c, t->pid, err);
	if (rc)
		return rc;
	/* SIGINT ends the counting of an attached process (perf stat -p):
	 * taken from a signalfd, never reaching perun's handler. */
	if (t->duration <= 0) {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		sigprocmask(SIG_BLOCK, &set, &c->old_mask);
		c->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	}
	clock_gettime(CLOCK_MONOTONIC, &c->start);
	for (size_t i = 0; i < c->nthreads * c->n; i++)
		if (c->fds[i] >= 0)
			ioctl(c->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	/* Said once the counting runs: a Ctrl-C before it interrupts perun. */
	if (t->duration <= 0)
		fprintf(stderr, "perun: counters: counting process %d until Ctrl-C\n", t->pid);
	return 0;
}

static int tick(struct counting *c, size_t interval, struct counters_result *res,
		struct perun_error *err)
{
	int rc = read_all(c, res->totals, err);
	if (rc)
		return rc;
	for (size_t i = 0; i < c->n; i++) {
		struct counters_reading *d = &c->delta[i];
		d->raw = res->totals[i].raw - c->last[i].raw;
		d->enabled_ns = res->totals[i].enabled_ns - c->last[i].enabled_ns;
		d->running_ns = res->totals[i].running_ns - c->last[i].running_ns;
		scale(d);
	}
	memcpy(c->last, res->totals, c->n * sizeof(*c->last));
	struct counters_tick tk = { interval, now_since(&c->start), c->delta, res->totals };
	return c->target->on_tick(c->target->data, &tk, err);
}

/* Wait for the end, ticking each interval; then the final reading. */
static int wait_counting(struct counting *c, struct counters_result *res, struct perun_error *err)
{
	const struct counters_target *t = c->target;
	double interval = t->interval_ms / 1000.0;
	size_t ticks = 0;
	double last_tick = 0;
	for (;;) {
		if (t->interrupted && *(const volatile int *)t->interrupted)
			return perun_error_set(err, PERUN_EINTR, "interrupted while counting");
		double now = now_since(&c->start);
		if (t->on_tick && interval > 0 && now >= (double)(ticks + 1) * interval) {
			int rc = tick(c, ++ticks, res, err);
			if (rc)
				return rc;
			last_tick = now;
			continue;
		}
		if (t->pid > 0 && t->duration > 0 && now >= t->duration)
			break;
		double wait = POLL_MS / 1000.0;
		if (t->on_tick && interval > 0 && (double)(ticks + 1) * interval - now < wait)
			wait = (double)(ticks + 1) * interval - now;
		if (t->pid > 0 && t->duration > 0 && t->duration - now < wait)
			wait = t->duration - now;
		int exit_fd = c->child.pid ? c->child.pidfd : c->pidfd;
		struct pollfd p[2] = { { .fd = exit_fd, .events = POLLIN },
				       { .fd = c->sigfd, .events = POLLIN } };
		int n = poll(p, c->sigfd >= 0 ? 2 : 1, (int)ceil(wait * 1000));
		if (n < 0 && errno != EINTR)
			return perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot wait");
		if (n > 0 && p[0].revents) {
			if (c->child.pid)
				res->exit_code = counters_child_reap(&c->child);
			else
				res->ended_early = 1;
			break;
		}
		if (n > 0 && c->sigfd >= 0 && p[1].revents) {
			struct signalfd_siginfo si;
			if (read(c->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				res->stopped_by_sigint = 1;
				break;
			}
		}
	}
	res->seconds = now_since(&c->start);
	/* The rest of the last interval, when anything happened in it. */
	if (t->on_tick && interval > 0 && res->seconds > last_tick + 1e-3)
		return tick(c, ++ticks, res, err);
	return read_all(c, res->totals, err);
}

int counters_count(const struct counters_event *events, size_t n,
		   const struct counters_target *target, struct counters_result *res,
		   struct perun_error *err)
{
	struct counting c = {
		.events = events,
		.n = n,
		.target = target,
		.nthreads = 1,
		.pidfd = -1,
		.sigfd = -1,
		.child = { .pidfd = -1, .go = -1, .report = -1 },
	};
	int rc = 0;
	res->seconds = 0;
	res->exit_code = res->ended_early = res->stopped_by_sigint = 0;
	c.fds = malloc((n ? n : 1) * sizeof(*c.fds));
	c.last = calloc(n ? n : 1, sizeof(*c.last));
	c.delta = calloc(n ? n : 1, sizeof(*c.delta));
	if (!c.fds || !c.last || !c.delta) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		c.fds[i] = -1;
	rc = target->pid > 0 ? attach(&c, err) : start_command(&c, err);
	if (!rc)
		rc = wait_counting(&c, res, err);
out:
	counters_child_release(&c.child);
	if (c.sigfd >= 0) {
		/* A SIGINT still pending is ours: take it before unblocking. */
		sigset_t set;
		struct timespec zero = { 0, 0 };
		sigemptyset(&set);
		sigaddset(&set, SIGINT);
		while (sigtimedwait(&set, NULL, &zero) > 0)
			;
		close(c.sigfd);
		sigprocmask(SIG_SETMASK, &c.old_mask, NULL);
	}
	if (c.pidfd >= 0)
		close(c.pidfd);
	for (size_t i = 0; c.fds && i < c.nthreads * n; i++)
		if (c.fds[i] >= 0)
			close(c.fds[i]);
	free(c.fds);
	free(c.last);
	free(c.delta);
	return rc;
}
