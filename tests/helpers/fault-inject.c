/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An LD_PRELOAD shim that fails the n-th write, fsync or rename of a
 * regular file, or the n-th allocation, for the fault-injection sweeps
 * (tests/t0404-faults.sh, tests/t0405-alloc-faults.sh):
 *
 *   PERUN_FAULT=write:3   the third write(2) to a regular file fails
 *                         with ENOSPC (fsync and syncfs, counted as
 *                         one: EIO, rename: EIO)
 *   PERUN_FAULT=malloc:7  the seventh malloc, calloc or realloc returns
 *                         NULL with ENOMEM
 *   PERUN_FAULT_SPARE=L   allocations made by a library whose path holds
 *                         one of the words of L (comma-separated), or by
 *                         libc for it, are neither counted nor failed
 *   PERUN_FAULT_TRACE=1   print the stack of the failed call to stderr
 *                         (to find who made it; not for the sweeps)
 *   PERUN_FAULT_COUNT=F   count the calls instead and append
 *                         "write N\nfsync N\nrename N\nmalloc N" to F
 *                         at exit
 *
 * Only perun's own writes are counted: writes to pipes, terminals and
 * other non-regular files pass through.  Allocations are counted only
 * from perun's main on, and only in a process whose program is perun:
 * the dynamic loader and libc's start-up must not fail (nothing could
 * report it), and the libtool wrapper script and the commands perun
 * runs (sh, true) are not under test.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum op { OP_WRITE, OP_FSYNC, OP_RENAME, OP_MALLOC, OP_COUNT };
static const char *const op_names[] = { "write", "fsync", "rename", "malloc" };
static unsigned long calls[OP_COUNT];
static int fail_op = -1;
static unsigned long fail_at;
static const char *count_file;
/* Set when perun's main starts: allocations count from then on. */
static int in_main;
static const char *spare;
static int trace;

static void report(void)
{
	if (!in_main)
		return; /* not perun: the wrapper script or a profiled command */
	FILE *f = count_file ? fopen(count_file, "a") : NULL;
	for (int i = 0; f && i < OP_COUNT; i++)
		fprintf(f, "%s %lu\n", op_names[i], calls[i]);
	if (f)
		fclose(f);
}

__attribute__((constructor)) static void setup(void)
{
	const char *spec = getenv("PERUN_FAULT");
	count_file = getenv("PERUN_FAULT_COUNT");
	spare = getenv("PERUN_FAULT_SPARE");
	trace = getenv("PERUN_FAULT_TRACE") != NULL;
	if (trace || spare) {
		void *frame; /* backtrace loads libgcc (and allocates) once: now */
		backtrace(&frame, 1);
	}
	if (count_file)
		atexit(report);
	for (int i = 0; spec && i < OP_COUNT; i++) {
		size_t len = strlen(op_names[i]);
		if (!strncmp(spec, op_names[i], len) && spec[len] == ':') {
			fail_op = i;
			fail_at = strtoul(spec + len + 1, NULL, 10);
		}
	}
}

/* Does this call fail?  Counts it either way. */
static int fault(enum op op)
{
	calls[op]++;
	int fail = (int)op == fail_op && calls[op] == fail_at;
	if (fail && trace) {
		void *frames[32];
		backtrace_symbols_fd(frames, backtrace(frames, 32), STDERR_FILENO);
	}
	return fail;
}

static int regular(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "write");
	if (regular(fd) && fault(OP_WRITE)) {
		errno = ENOSPC;
		return -1;
	}
	return real(fd, buf, n);
}

/* fsync, and syncfs (the batched sync of a command's writes, see
 * core/durable.c), counted as one: the real call unless this one fails. */
static int sync_call(int (**real)(int), const char *name, int fd)
{
	if (!*real)
		*(void **)real = dlsym(RTLD_NEXT, name);
	if (regular(fd) && fault(OP_FSYNC)) {
		errno = EIO;
		return -1;
	}
	return (*real)(fd);
}

int fsync(int fd)
{
	static int (*real)(int);
	return sync_call(&real, "fsync", fd);
}

int syncfs(int fd)
{
	static int (*real)(int);
	return sync_call(&real, "syncfs", fd);
}

int rename(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "rename");
	if (fault(OP_RENAME)) {
		errno = EIO;
		return -1;
	}
	return real(from, to);
}

/* The file of the object holding code address pc, or NULL. */
static const char *object_of(const void *pc)
{
	Dl_info info;
	return dladdr(pc, &info) ? info.dli_fname : NULL;
}

static int spared_object(const char *file)
{
	for (const char *w = spare; file && *w;) {
		size_t len = strcspn(w, ",");
		char word[256];
		snprintf(word, sizeof(word), "%.*s", (int)len, w);
		if (len && strstr(file, word))
			return 1;
		w += len + (w[len] == ',');
	}
	return 0;
}

/* Is this allocation, made from code at caller, to count?  One that libc
 * makes for its caller (strdup, fopen) belongs to that caller: the stack
 * is walked past libc's frames to find it. */
static int counted(const void *caller)
{
	if (!in_main)
		return 0;
	if (!spare)
		return 1;
	const char *file = object_of(caller);
	if (file && strstr(file, "/libc.so")) {
		void *frames[12];
		int n = backtrace(frames, 12);
		/* frames[0] is counted, [1] the allocator, [2] its caller */
		for (int i = 2; i < n && file && strstr(file, "/libc.so"); i++)
			file = object_of(frames[i]);
	}
	return !spared_object(file);
}

/* glibc's own allocator: no dlsym (which allocates) on the way. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

void *malloc(size_t n)
{
	if (counted(__builtin_return_address(0)) && fault(OP_MALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	if (counted(__builtin_return_address(0)) && fault(OP_MALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	if (counted(__builtin_return_address(0)) && fault(OP_MALLOC)) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}

/* _start calls this with main: wrap main to start counting there, and
 * only in perun (the build tree runs .libs/lt-perun or .libs/perun). */
typedef int (*main_fn)(int, char **, char **);
static main_fn real_main;

static int counting_main(int argc, char **argv, char **envp)
{
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		exe[len] = '\0';
		const char *base = strrchr(exe, '/');
		base = base ? base + 1 : exe;
		in_main = !strcmp(base, "perun") || !strcmp(base, "lt-perun");
	}
	return real_main(argc, argv, envp);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
		      void (*rtld_fini)(void), void *stack_end);
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
		      void (*rtld_fini)(void), void *stack_end)
{
	int (*real)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);
	*(void **)&real = dlsym(RTLD_NEXT, "__libc_start_main");
	real_main = main;
	return real(counting_main, argc, argv, init, fini, rtld_fini, stack_end);
}
