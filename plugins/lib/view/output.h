/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where a view's file output goes. */
#ifndef VIEWLIB_OUTPUT_H
#define VIEWLIB_OUTPUT_H

#include <stddef.h>

#include <perun/perun.h>

/*
 * Write data to path atomically, or to out (the view's FILE *, standard
 * output) when path is "-".  Errors name the path.
 */
int viewlib_write(const char *path, void *out, const void *data, size_t len,
		  struct perun_error *err);

/*
 * "<prefix>-diff-of-<baseline>-and-<target>.<ext>" from the labels the user
 * named the profiles by (file stems, unsafe characters as '_'), as Python
 * Perun names its diff views' output.  Caller frees; NULL without memory.
 */
char *viewlib_diff_name_dup(const char *prefix, const char *baseline_label,
			    const char *target_label, const char *ext);

#endif
