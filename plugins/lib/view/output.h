/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where a view's file output goes. */
#ifndef VIEWLIB_OUTPUT_H
#define VIEWLIB_OUTPUT_H

#include <stddef.h>

#include <stdio.h>

#include <perun/perun.h>
#include <perun/strbuf.h>

/*
 * Write data to path atomically, or to out (the view's FILE *, standard
 * output) when path is "-".  Errors name the path.
 */
int viewlib_write(const char *path, void *out, const void *data, size_t len,
		  struct perun_error *err);

/*
 * Output written as it is made, for views whose output is big (folded
 * stacks of a million lines): the same file as viewlib_write's, atomically
 * replaced, without holding all of it in memory.  viewlib_stream_open, then
 * viewlib_stream_add for each piece (sb emptied when its text went out),
 * then viewlib_stream_close, which on success (ok) puts the file in place
 * and otherwise removes what was written.  Errors name the path.
 */
struct viewlib_stream {
	FILE *file;
	const char *path;
	char *tmp; /* the file being written, renamed to path at the end */
	int failed_errno;
};
int viewlib_stream_open(struct viewlib_stream *st, const char *path, void *out,
			struct perun_error *err);
/* Writes sb out once it holds at least a buffer's worth (or always when
 * final); 0, or -1 once a write failed (reported by close). */
int viewlib_stream_add(struct viewlib_stream *st, struct perun_strbuf *sb, int final);
int viewlib_stream_close(struct viewlib_stream *st, int ok, struct perun_error *err);

/*
 * "<prefix>-diff-of-<baseline>-and-<target>.<ext>" from the labels the user
 * named the profiles by (file stems, unsafe characters as '_'), as Python
 * Perun names its diff views' output.  Caller frees; NULL without memory.
 */
char *viewlib_diff_name_dup(const char *prefix, const char *baseline_label,
			    const char *target_label, const char *ext);

#endif
