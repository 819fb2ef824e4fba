/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading cachegrind's output file (cachegrind.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/array.h>

#include "cachegrind.h"

/* The column of Ir in "events:", or -1. */
static int ir_column(const char *events)
{
	int col = 0;
	for (const char *p = events; *p;) {
		while (*p == ' ')
			p++;
		size_t len = strcspn(p, " \n");
		if (len == 2 && !strncmp(p, "Ir", 2))
			return col;
		if (!len)
			break;
		p += len;
		col++;
	}
	return -1;
}

/* The function of a "fn=" line, added on its first appearance. */
static struct cachegrind_function *function_of(struct cachegrind_counts *c, const char *name)
{
	json_t *pos = json_object_get(c->index, name);
	if (pos)
		return &c->functions[json_integer_value(pos)];
	if (perun_array_grow((void **)&c->functions, &c->cap, c->n + 1, sizeof(*c->functions)))
		return NULL;
	struct cachegrind_function *f = &c->functions[c->n];
	f->name = strdup(name);
	f->ir = 0;
	if (!f->name || json_object_set_new(c->index, name, json_integer((json_int_t)c->n))) {
		free(f->name);
		return NULL;
	}
	c->n++;
	return f;
}

/* The value in column col of a cost line "<line> <v0> <v1> ..."; an empty
 * column counts 0, as cachegrind writes them. */
static int cost_at(const char *line, int col, unsigned long long *out)
{
	char *end;
	errno = 0;
	strtoull(line, &end, 10); /* the line number */
	if (end == line || errno)
		return -1;
	for (int i = 0; i <= col; i++) {
		const char *p = end;
		while (*p == ' ')
			p++;
		if (!*p || *p == '\n') {
			*out = 0;
			return 0;
		}
		errno = 0;
		*out = strtoull(p, &end, 10);
		if (end == p || errno)
			return -1;
	}
	return 0;
}

int cachegrind_read(const char *path, struct cachegrind_counts *c, struct perun_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return perun_error_set_errno(err, PERUN_ETOOL, errno,
					     "cannot read cachegrind's output '%s'", path);
	c->index = json_object();
	char *line = NULL;
	size_t size = 0;
	long lineno = 0;
	int col = -1, have_summary = 0, rc = 0;
	struct cachegrind_function *fn = NULL;
	while (!rc && getline(&line, &size, f) > 0) {
		lineno++;
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "events:", 7)) {
			col = ir_column(line + 7);
		} else if (!strncmp(line, "fn=", 3)) {
			if (!c->index || !(fn = function_of(c, line + 3)))
				rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		} else if (!strncmp(line, "summary:", 8)) {
			unsigned long long v = 0;
			/* the summary has no line number: give it one */
			char buf[512];
			snprintf(buf, sizeof(buf), "0 %s", line + 8);
			if (col < 0 || cost_at(buf, col, &v))
				rc = -1;
			c->total = v;
			have_summary = 1;
		} else if (*line >= '0' && *line <= '9' && fn && col >= 0) {
			unsigned long long v;
			if (cost_at(line, col, &v))
				rc = -1;
			else
				fn->ir += v;
		}
	}
	free(line);
	fclose(f);
	if (rc == -1 || (!rc && (col < 0 || !have_summary)))
		rc = perun_error_set(err, PERUN_ETOOL,
				     "cachegrind's output '%s' is not what it writes (line %ld)%s",
				     path, lineno, col < 0 ? ": no Ir event" : "");
	return rc;
}

void cachegrind_release(struct cachegrind_counts *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->functions[i].name);
	free(c->functions);
	json_decref(c->index);
	memset(c, 0, sizeof(*c));
}
