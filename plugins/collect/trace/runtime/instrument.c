/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * libperun-instrument.so - the instrument engine's LD_PRELOAD runtime for
 * programs built with -finstrument-functions (Python Perun's "complexity"
 * collector did this with a static library linked in).
 *
 * Every thread writes {timestamp, function address} records into its own
 * file, <dir>/t.<pid>.<image>.<tid>, through a shared memory mapping: a call costs
 * two stores and a clock read, no system call and no lock, and the records
 * survive a crash or a kill because the kernel owns the pages.  The file is
 * grown a window at a time and its zero tail marks the end.  The collector
 * symbolises the addresses afterwards with the copy of /proc/self/maps
 * written here as <dir>/maps.<pid>.<image> (an exec'd program is the next
 * image of the same pid).
 *
 * Record layout (shared with engine_instrument.c): fn holds the address,
 * with the top bit set for a return; small values are markers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "instrument-record.h"

#define NOINST __attribute__((no_instrument_function))
#define EXPORT __attribute__((visibility("default")))

struct tbuf {
	struct perun_inst_record *cur, *end;
	int fd;
	int busy; /* set while the runtime itself is running */
	pid_t pid;
	off_t off;
};

/* initial-exec: a preloaded library has static TLS, and this spares a
 * __tls_get_addr call on every function entry and exit. */
static __thread
	__attribute__((tls_model("initial-exec"))) struct tbuf tb = { NULL, NULL, -1, 0, 0, 0 };
static char dir[4096];
static int enabled;
static pthread_key_t end_key;

/* The time stamp of a record: the TSC where there is one (a third of the
 * cost of clock_gettime here; the collector converts it to ns with the
 * rate it measures over the run), CLOCK_MONOTONIC ns elsewhere. */
NOINST static inline uint64_t now_stamp(void)
{
#if PERUN_INST_USE_TSC
	return __rdtsc();
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
#endif
}

/* Which program image of this pid we are: an exec keeps the pid, and the
 * files of the image before it must stay as they are. */
static unsigned image;

NOINST static void claim_image(void)
{
	char path[4200];
	for (image = 0; image < 100000; image++) {
		snprintf(path, sizeof(path), "%s/maps.%d.%u", dir, (int)getpid(), image);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			close(fd);
			return;
		}
		if (errno != EEXIST)
			return;
	}
}

NOINST static void copy_maps(void)
{
	char path[4200], buf[65536];
	snprintf(path, sizeof(path), "%s/maps.%d.%u", dir, (int)getpid(), image);
	int in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t n;
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

/* Map the next window of this thread's file; 0 or -1 (tracing stops). */
NOINST static int next_window(void)
{
	const size_t bytes = PERUN_INST_WINDOW * sizeof(struct perun_inst_record);
	int first = tb.fd < 0;
	if (first) {
		char path[4200];
		tb.pid = getpid();
		snprintf(path, sizeof(path), "%s/t.%d.%u.%ld", dir, (int)tb.pid, image,
			 (long)syscall(SYS_gettid));
		tb.fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		tb.off = 0;
		if (tb.fd < 0)
			return -1;
		/* Non-NULL so that the destructor runs at the thread's exit. */
		pthread_setspecific(end_key, (void *)1);
	} else {
		munmap(tb.end - PERUN_INST_WINDOW, bytes);
		tb.off += (off_t)bytes;
	}
	tb.cur = tb.end = NULL;
	if (ftruncate(tb.fd, tb.off + (off_t)bytes))
		return -1;
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, tb.fd, tb.off);
	if (p == MAP_FAILED)
		return -1;
	tb.cur = p;
	tb.end = tb.cur + PERUN_INST_WINDOW;
	if (first) {
		int main_thread = syscall(SYS_gettid) == tb.pid;
		tb.cur->ts = now_stamp();
		tb.cur->fn = main_thread ? PERUN_INST_PROCESS_BEGIN | ((uint64_t)getppid() << 8)
					 : PERUN_INST_THREAD_BEGIN;
		tb.cur++;
	}
	return 0;
}

NOINST static inline void record(uint64_t fn)
{
	if (__builtin_expect(!enabled || tb.busy, 0))
		return;
	if (__builtin_expect(tb.cur == tb.end, 0)) {
		tb.busy = 1;
		int rc = next_window();
		tb.busy = 0;
		if (rc) {
			tb.busy = 1; /* give up on this thread, quietly */
			return;
		}
	}
	tb.cur->ts = now_stamp();
	tb.cur->fn = fn;
	tb.cur++;
}

EXPORT NOINST void __cyg_profile_func_enter(void *fn, void *site);
EXPORT NOINST void __cyg_profile_func_exit(void *fn, void *site);

void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	record((uint64_t)(uintptr_t)fn);
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	record((uint64_t)(uintptr_t)fn | PERUN_INST_EXIT);
}

NOINST static void thread_end(void *unused)
{
	(void)unused;
	record(PERUN_INST_THREAD_END);
}

/* A forked child must not write into its parent's files. */
NOINST static void after_fork(void)
{
	if (tb.fd >= 0) {
		munmap(tb.end - PERUN_INST_WINDOW,
		       PERUN_INST_WINDOW * sizeof(struct perun_inst_record));
		close(tb.fd);
	}
	tb.cur = tb.end = NULL;
	tb.fd = -1;
	if (enabled) {
		claim_image();
		copy_maps();
	}
}

NOINST __attribute__((constructor)) static void start(void)
{
	const char *d = getenv("PERUN_TRACE_DIR");
	if (!d || !*d || strlen(d) >= sizeof(dir))
		return;
	strcpy(dir, d);
	if (pthread_key_create(&end_key, thread_end))
		return;
	pthread_atfork(NULL, NULL, after_fork);
	claim_image();
	copy_maps();
	enabled = 1;
}

NOINST __attribute__((destructor)) static void stop(void)
{
	if (!enabled)
		return;
	record(PERUN_INST_PROCESS_END);
	/* Libraries opened at run time are in the maps only now. */
	tb.busy = 1;
	copy_maps();
}
