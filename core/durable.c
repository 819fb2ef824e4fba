/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Batched durable writes of the store: one commit per command (durable.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perun/fsutil.h>

#include "durable.h"

struct pending {
	char *path, *tmp;
};

static struct {
	int depth; /* nesting of begin; 0: no batch */
	struct pending *files;
	size_t n, alloc;
} batch;

void perun_durable_begin(void)
{
	batch.depth++;
}

static size_t hash_path(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return (size_t)h;
}

/*
 * Where each path of the batch is: an open-addressing table of indexes
 * into batch.files (+1; 0 is free), so that a batch of 100,000 objects
 * (perun pull) does not compare every path with every other.  Without
 * memory for it, find looks through the list.
 */
static struct {
	size_t *slots, n; /* n: a power of two, or 0 */
	int broken;
} table;

static void table_put(size_t i)
{
	size_t mask = table.n - 1;
	const char *path = batch.files[i].path;
	size_t h = hash_path(path, strlen(path)) & mask;
	while (table.slots[h])
		h = (h + 1) & mask;
	table.slots[h] = i + 1;
}

static void table_reset(void)
{
	free(table.slots);
	memset(&table, 0, sizeof(table));
}

/* Index the batch's files anew, in a table of room for want of them. */
static void table_rebuild(size_t want)
{
	size_t n = 64;
	while (n < 2 * want)
		n *= 2;
	size_t *slots = calloc(n, sizeof(*slots));
	table_reset();
	if (!slots) {
		table.broken = 1;
		return;
	}
	table.slots = slots;
	table.n = n;
	for (size_t i = 0; i < batch.n; i++)
		table_put(i);
}

/* The batch just got files[batch.n - 1]. */
static void table_added(void)
{
	if (table.broken)
		return;
	if (2 * batch.n > table.n)
		table_rebuild(2 * batch.n);
	else
		table_put(batch.n - 1);
}

static struct pending *find(const char *path)
{
	if (table.broken || !table.n) {
		for (size_t i = batch.n; table.broken && i-- > 0;)
			if (!strcmp(batch.files[i].path, path))
				return &batch.files[i];
		return NULL;
	}
	size_t mask = table.n - 1;
	for (size_t h = hash_path(path, strlen(path)) & mask; table.slots[h]; h = (h + 1) & mask)
		if (!strcmp(batch.files[table.slots[h] - 1].path, path))
			return &batch.files[table.slots[h] - 1];
	return NULL;
}

const char *perun_durable_current(const char *path)
{
	const struct pending *p = batch.depth ? find(path) : NULL;
	return p ? p->tmp : path;
}

int perun_durable_write_with(const char *path, perun_write_fn fn, void *data,
			     struct perun_error *err)
{
	struct stat st;
	/* Devices and pipes are written in place, as perun_file_write_atomic
	 * writes them. */
	if (!batch.depth || (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
		return perun_file_write_atomic_with(path, fn, data, err);
	if (batch.n == batch.alloc) {
		size_t alloc = batch.alloc ? 2 * batch.alloc : 8;
		struct pending *grown = realloc(batch.files, alloc * sizeof(*grown));
		if (!grown)
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		batch.files = grown;
		batch.alloc = alloc;
	}
	struct pending p = { strdup(path), malloc(strlen(path) + sizeof(".tmp-XXXXXX")) };
	if (!p.path || !p.tmp) {
		free(p.path);
		free(p.tmp);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	sprintf(p.tmp, "%s.tmp-XXXXXX", path);
	int fd = mkstemp(p.tmp);
	if (fd < 0) {
		int e = errno;
		free(p.path);
		free(p.tmp);
		return perun_error_set_errno(err, PERUN_EGENERIC, e,
					     "cannot create a temporary file for '%s'", path);
	}
	int e = 0;
	errno = 0;
	if (fchmod(fd, 0644) || fn(fd, data))
		e = errno ? errno : EIO;
	if (close(fd) && !e)
		e = errno ? errno : EIO;
	if (e) {
		unlink(p.tmp);
		free(p.path);
		free(p.tmp);
		return perun_error_set_errno(err, PERUN_EGENERIC, e, "cannot write '%s'", path);
	}
	/* A second write of path in the batch replaces the first. */
	struct pending *old = find(path);
	if (old) {
		unlink(old->tmp);
		free(old->tmp);
		old->tmp = p.tmp;
		free(p.path);
		return 0;
	}
	batch.files[batch.n++] = p;
	table_added();
	return 0;
}

int perun_durable_write(const char *path, const void *data, size_t len, struct perun_error *err)
{
	struct perun_write_buffer b = { data, len };
	return perun_durable_write_with(path, perun_write_buffer, &b, err);
}

/* The directories synced by a commit (their paths point into the
 * batch's): a few hundred at most, told apart by hash first. */
static struct {
	struct synced_dir {
		const char *path;
		size_t len, hash;
	} * dirs;
	size_t n, alloc;
} synced;

static void synced_reset(void)
{
	free(synced.dirs);
	memset(&synced, 0, sizeof(synced));
}

static void drop(struct pending *p)
{
	unlink(p->tmp);
	free(p->tmp);
	free(p->path);
}

void perun_durable_forget(const char *path)
{
	struct pending *p = batch.depth ? find(path) : NULL;
	if (!p)
		return;
	drop(p);
	/* The others keep their order: it is the renames'. */
	size_t i = (size_t)(p - batch.files);
	memmove(p, p + 1, (batch.n - i - 1) * sizeof(*p));
	batch.n--;
	if (!table.broken)
		table_rebuild(batch.n);
}

/* End the batch: the files from the from-th on were not renamed. */
static void batch_clear(size_t from)
{
	for (size_t i = 0; i < batch.n; i++) {
		if (i >= from) {
			drop(&batch.files[i]);
			continue;
		}
		free(batch.files[i].path);
		free(batch.files[i].tmp);
	}
	free(batch.files);
	memset(&batch, 0, sizeof(batch));
	table_reset();
	synced_reset();
}

void perun_durable_abort(void)
{
	if (batch.depth && --batch.depth)
		return;
	batch_clear(0);
}

/* fsync the directory of path, once per directory of the batch; only
 * note it as seen when not sync. */
static void sync_directory(const char *path, int sync)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	size_t h = hash_path(path, dlen);
	for (size_t k = 0; k < synced.n; k++)
		if (synced.dirs[k].hash == h && synced.dirs[k].len == dlen &&
		    !strncmp(synced.dirs[k].path, path, dlen))
			return; /* done with an earlier file's */
	if (synced.n == synced.alloc) {
		size_t alloc = synced.alloc ? 2 * synced.alloc : 16;
		void *grown = realloc(synced.dirs, alloc * sizeof(*synced.dirs));
		if (grown) {
			synced.dirs = grown;
			synced.alloc = alloc;
		}
	}
	if (synced.n < synced.alloc)
		synced.dirs[synced.n++] = (struct synced_dir){ path, dlen, h };
	if (!sync)
		return;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(dlen ? dlen : 1) : 1, slash ? path : ".");
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	/* As perun_file_write_atomic: the data is safe whatever this says. */
	(void)fsync(fd);
	close(fd);
}

/* Directories beyond which one syncfs per file system is cheaper than
 * an fsync of each (add of 40 profiles renames into 40 object
 * directories). */
enum { DIRECTORIES_FSYNCED = 2 };

/* The renamed paths' directories made durable: each fsynced when they are
 * few, else every file system of the batch synced once, which covers
 * the directories' entries as it covers the data.  As
 * perun_file_write_atomic, the data is safe whatever this says. */
static void sync_directories(void)
{
	size_t ndirs = 0;
	for (size_t i = 0; i < batch.n && ndirs <= DIRECTORIES_FSYNCED; i++) {
		size_t before = synced.n;
		sync_directory(batch.files[i].path, 0);
		ndirs += synced.n > before;
	}
	synced_reset();
	if (ndirs <= DIRECTORIES_FSYNCED) {
		for (size_t i = 0; i < batch.n; i++)
			sync_directory(batch.files[i].path, 1);
		return;
	}
	for (size_t i = 0; i < batch.n; i++) {
		struct stat st, other;
		int seen = 0;
		if (stat(batch.files[i].path, &st) < 0)
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = stat(batch.files[k].path, &other) == 0 && other.st_dev == st.st_dev;
		if (seen)
			continue;
		/* By its directory: the data's sync above was the file's. */
		const char *path = batch.files[i].path, *slash = strrchr(path, '/');
		char dir[4096];
		snprintf(dir, sizeof(dir), "%.*s",
			 slash ? (int)(slash - path ? slash - path : 1) : 1, slash ? path : ".");
		int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		(void)syncfs(fd);
		close(fd);
	}
}

int perun_durable_commit(struct perun_error *err)
{
	if (!batch.depth || --batch.depth)
		return 0;
	/* The data of every file first, once per file system. */
	for (size_t i = 0; i < batch.n; i++) {
		struct stat st;
		int seen = 0;
		if (stat(batch.files[i].tmp, &st) < 0)
			goto failed_sync;
		for (size_t k = 0; k < i && !seen; k++) {
			struct stat other;
			seen = stat(batch.files[k].tmp, &other) == 0 && other.st_dev == st.st_dev;
		}
		if (seen)
			continue;
		int fd = open(batch.files[i].tmp, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syncfs(fd) < 0) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			errno = e;
			goto failed_sync;
		}
		close(fd);
		continue;
	failed_sync : {
		int rc = perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot write '%s'",
					       batch.files[i].path);
		batch_clear(0);
		return rc;
	}
	}
	/* Then the renames, in the order written (indexes after the objects
	 * they name), and their directories once each. */
	for (size_t i = 0; i < batch.n; i++) {
		if (rename(batch.files[i].tmp, batch.files[i].path) < 0) {
			int rc = perun_error_set_errno(err, PERUN_EGENERIC, errno,
						       "cannot write '%s'", batch.files[i].path);
			batch_clear(i);
			return rc;
		}
	}
	sync_directories();
	batch_clear(batch.n);
	return 0;
}
