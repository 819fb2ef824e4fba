/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where a view's file output goes: atomically to a path, or to the view's stream
 * for "-"; the default names of diff views' files (see output.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perun/strbuf.h>

#include "output.h"

int viewlib_write(const char *path, void *out, const void *data, size_t len,
		  struct perun_error *err)
{
	if (strcmp(path, "-"))
		return perun_file_write_atomic(path, data, len, err);
	FILE *f = out ? out : stdout;
	if (fwrite(data, 1, len, f) != len || fflush(f))
		return perun_error_set_errno(err, PERUN_EGENERIC, errno,
					     "cannot write to standard output");
	return 0;
}

int viewlib_stream_open(struct viewlib_stream *st, const char *path, void *out,
			struct perun_error *err)
{
	struct stat sb;
	memset(st, 0, sizeof(*st));
	st->path = path;
	if (!strcmp(path, "-")) {
		st->file = out ? out : stdout;
		return 0;
	}
	/* Devices and pipes are written in place, as perun_file_write_atomic
	 * does: a rename would replace the device. */
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
		if (!(st->file = fopen(path, "w")))
			return perun_error_set_errno(err, PERUN_EGENERIC, errno,
						     "cannot write '%s'", path);
		return 0;
	}
	size_t n = strlen(path) + sizeof(".tmp-XXXXXX");
	if (!(st->tmp = malloc(n)))
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	snprintf(st->tmp, n, "%s.tmp-XXXXXX", path);
	int fd = mkstemp(st->tmp);
	if (fd < 0 || fchmod(fd, 0644) < 0 || !(st->file = fdopen(fd, "w"))) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(st->tmp);
		}
		free(st->tmp);
		st->tmp = NULL;
		return perun_error_set_errno(err, PERUN_EGENERIC, e,
					     "cannot create a temporary file for '%s'", path);
	}
	return 0;
}

int viewlib_stream_add(struct viewlib_stream *st, struct perun_strbuf *sb, int final)
{
	if (!final && sb->len < (1u << 20))
		return 0;
	if (!st->failed_errno && sb->len && fwrite(sb->buf, 1, sb->len, st->file) != sb->len)
		st->failed_errno = errno ? errno : EIO;
	sb->len = 0;
	return st->failed_errno ? -1 : 0;
}

int viewlib_stream_close(struct viewlib_stream *st, int ok, struct perun_error *err)
{
	int e = st->failed_errno;
	int rc = 0;
	if (!st->file)
		return ok ? 0 : -1;
	if (!strcmp(st->path, "-")) {
		if (!e && fflush(st->file))
			e = errno;
		if (ok && e)
			rc = perun_error_set_errno(err, PERUN_EGENERIC, e,
						   "cannot write to standard output");
		st->file = NULL;
		return rc;
	}
	if (!e && (fflush(st->file) || (st->tmp && fsync(fileno(st->file)))))
		e = errno;
	if (fclose(st->file) && !e)
		e = errno;
	st->file = NULL;
	if (ok && !e && st->tmp && rename(st->tmp, st->path))
		e = errno;
	if (st->tmp && (!ok || e))
		unlink(st->tmp);
	if (ok && !e && st->tmp) {
		/* The rename made durable, as perun_file_write_atomic does. */
		char *dir = strdup(st->path), *slash = dir ? strrchr(dir, '/') : NULL;
		int dfd = -1;
		if (dir) {
			if (slash)
				*(slash == dir ? slash + 1 : slash) = '\0';
			dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		}
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		free(dir);
	}
	free(st->tmp);
	st->tmp = NULL;
	if (ok && e)
		rc = perun_error_set_errno(err, PERUN_EGENERIC, e, "cannot write '%s'", st->path);
	return rc;
}

/* The stem of a label: its last path component without ".perf". */
static void add_stem(struct perun_strbuf *sb, const char *label)
{
	const char *base = strrchr(label ? label : "", '/');
	base = base ? base + 1 : (label ? label : "");
	size_t n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".perf"))
		n -= 5;
	if (!n) {
		perun_strbuf_addstr(sb, "profile");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char c = base[i];
		/* The characters Perun's name sanitizer replaces, and controls. */
		perun_strbuf_addch(
			sb, (unsigned char)c < 32 || strchr("# %&{}\\<>*?/ $!'\":@^", c) ? '_' : c);
	}
}

char *viewlib_diff_name_dup(const char *prefix, const char *baseline_label,
			    const char *target_label, const char *ext)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	perun_strbuf_addf(&sb, "%s-diff-of-", prefix);
	add_stem(&sb, baseline_label);
	perun_strbuf_addstr(&sb, "-and-");
	add_stem(&sb, target_label);
	perun_strbuf_addf(&sb, ".%s", ext);
	return perun_strbuf_detach(&sb, NULL);
}
