/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An LD_PRELOAD shim that fails the n-th write, fsync or rename of a
 * regular file, for the fault-injection sweep (tests/t0404-faults.sh):
 *
 *   PERUN_FAULT=write:3   the third write(2) to a regular file fails
 *                         with ENOSPC (fsync: EIO, rename: EIO)
 *   PERUN_FAULT_COUNT=F   count the calls instead and append
 *                         "write N\nfsync N\nrename N" to F at exit
 *
 * Only perun's own writes are counted: writes to pipes, terminals and
 * other non-regular files pass through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum op { OP_WRITE, OP_FSYNC, OP_RENAME, OP_COUNT };
static const char *const op_names[] = { "write", "fsync", "rename" };
static unsigned long calls[OP_COUNT];
static int fail_op = -1;
static unsigned long fail_at;
static const char *count_file;

static void report(void)
{
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
	return (int)op == fail_op && calls[op] == fail_at;
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

int fsync(int fd)
{
	static int (*real)(int);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "fsync");
	if (regular(fd) && fault(OP_FSYNC)) {
		errno = EIO;
		return -1;
	}
	return real(fd);
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
