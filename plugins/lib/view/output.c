/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where a view's file output goes: atomically to a path, or to the view's stream
 * for "-"; the default names of diff views' files (see output.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
