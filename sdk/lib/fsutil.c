/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Files: reading one whole, writing one atomically, making directories,
 * advice to the kernel on big buffers (perun/fsutil.h).
 *
 * Layer 0 of libperun, the base: it uses errors (error.c) only; every
 * layer above may use it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perun/fsutil.h>

void perun_advise_huge_pages(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20, page = (uintptr_t)sysconf(_SC_PAGESIZE);
	if (len < 16 * huge)
		return;
	/* The pages it touches, so that a big malloc block (a mapping of its
	 * own, a header before p) is advised whole: a mapping split in two
	 * could no longer grow by mremap, and realloc would copy it. */
	uintptr_t start = (uintptr_t)p & ~(page - 1);
	uintptr_t end = ((uintptr_t)p + len + page - 1) & ~(page - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
	(void)p;
	(void)len;
#endif
}

int perun_file_read(const char *path, char **buf, size_t *len, struct perun_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return perun_error_set_errno(err,
					     errno == ENOENT ? PERUN_ENOTFOUND : PERUN_EGENERIC,
					     errno, "cannot open '%s'", path);
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = errno;
		close(fd);
		if (S_ISDIR(st.st_mode))
			return perun_error_set(err, PERUN_EINVAL, "'%s' is a directory", path);
		return perun_error_set_errno(err, PERUN_EGENERIC, e, "cannot stat '%s'", path);
	}
	size_t alloc = (size_t)st.st_size + 1, used = 0;
	char *data = malloc(alloc);
	if (!data) {
		close(fd);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory reading '%s'", path);
	}
	perun_advise_huge_pages(data, alloc);
	for (;;) {
		if (used + 1 >= alloc) {
			/* The size fstat gave is read: see whether the file
			 * grew before copying the whole buffer to grow it. */
			char probe;
			ssize_t more = read(fd, &probe, 1);
			if (more < 0 && errno == EINTR)
				continue;
			if (more <= 0) {
				if (more < 0) {
					int e = errno;
					free(data);
					close(fd);
					return perun_error_set_errno(err, PERUN_EGENERIC, e,
								     "cannot read '%s'", path);
				}
				break;
			}
			char *grown = realloc(data, alloc * 2);
			if (!grown) {
				free(data);
				close(fd);
				return perun_error_set(err, PERUN_EGENERIC,
						       "out of memory reading '%s'", path);
			}
			data = grown;
			alloc *= 2;
			data[used++] = probe;
		}
		ssize_t n = read(fd, data + used, alloc - used - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(data);
			close(fd);
			return perun_error_set_errno(err, PERUN_EGENERIC, e, "cannot read '%s'",
						     path);
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	data[used] = '\0';
	*buf = data;
	if (len)
		*len = used;
	return 0;
}

static int fsync_parent(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == path)
		strcpy(dir, "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

/* Write all of data to fd, retrying on EINTR; -1 with errno on failure. */
int perun_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Devices and pipes (-o /dev/null, -o /dev/stdout, a FIFO) are written in
 * place: renaming a temporary file over them would replace the device. */
static int write_in_place(const char *path, perun_write_fn fn, void *data, struct perun_error *err)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || fn(fd, data) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return perun_error_set_errno(err, PERUN_EGENERIC, e, "cannot write '%s'", path);
	}
	close(fd);
	return 0;
}

int perun_file_write_atomic_with(const char *path, perun_write_fn fn, void *data,
				 struct perun_error *err)
{
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return write_in_place(path, fn, data, err);
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", path) >= (int)sizeof(tmp))
		return perun_error_set(err, PERUN_EINVAL, "path too long: '%s'", path);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return perun_error_set_errno(err, PERUN_EGENERIC, errno,
					     "cannot create a temporary file for '%s'", path);
	if (fn(fd, data) < 0 || fchmod(fd, 0644) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto fail;
	fsync_parent(path);
	return 0;
fail : {
	int e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return perun_error_set_errno(err, PERUN_EGENERIC, e, "cannot write '%s'", path);
}
}

int perun_write_buffer(int fd, void *buffer)
{
	const struct perun_write_buffer *b = buffer;
	return perun_write_all(fd, b->data, b->len);
}

int perun_file_write_atomic(const char *path, const void *data, size_t len, struct perun_error *err)
{
	struct perun_write_buffer b = { data, len };
	return perun_file_write_atomic_with(path, perun_write_buffer, &b, err);
}

int perun_mkdirs(const char *path, int mode, struct perun_error *err)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return perun_error_set(err, PERUN_EINVAL, "path too long: '%s'", path);
	for (char *p = buf + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char saved = *p;
			*p = '\0';
			if (mkdir(buf, (mode_t)mode) < 0 && errno != EEXIST)
				return perun_error_set_errno(err, PERUN_EGENERIC, errno,
							     "cannot create directory '%s'", buf);
			*p = saved;
			if (!saved)
				break;
		}
	}
	return 0;
}
