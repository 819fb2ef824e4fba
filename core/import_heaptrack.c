/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * heaptrack's data files (heaptrack 1.x, file versions 2 and 3, as
 * heaptrack_interpret writes them, possibly .zst or .gz) as an aggregated
 * memory profile of the same shape as "perun collect memory" writes: one
 * resource per allocation trace {subtype: malloc, amount: bytes, count,
 * peak, leaked, live, snapshot, stack, trace, uid} and the live-bytes
 * series {subtype: live, change, live, count, snapshot, time, ...}, one
 * snapshot per heaptrack timestamp line.
 *
 * The lines (numbers in hex): "s" strings, "i <ip> <module> [<function>
 * [<file> <line>]]..." instruction pointers with their (inlined) frames,
 * "t <ip> <parent>" trace nodes, "a <size> <trace>" allocation infos,
 * "+ <info>" and "- <info>" allocations and frees, "c <ms>" time.
 * Strings, ips and traces count from 1, allocation infos from 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/array.h>

#include "compressed.h"
#include "import.h"

struct frame {
	uint32_t function, file, line; /* string indices (0: unknown) */
};

struct ip {
	struct frame *frames; /* innermost first */
	uint32_t nframes;
};

struct trace_node {
	uint32_t ip, parent;
};

struct unit { /* one allocation trace */
	uint64_t count, bytes, live, peak, last_change, peak_for;
	long snapshot;
	int64_t delta;
	uint64_t calls;
	int pending, used;
};

struct alloc_info {
	uint64_t size;
	uint32_t trace;
};

struct point {
	uint32_t trace;
	long snapshot;
	int64_t delta;
	uint64_t live, calls;
};

struct heaptrack {
	const char *path;
	size_t lineno;
	unsigned file_version;
	char **strings;
	size_t nstrings, strings_cap;
	struct ip *ips;
	size_t nips, ips_cap;
	struct trace_node *traces;
	size_t ntraces, traces_cap;
	struct unit *units; /* by trace */
	size_t units_cap;
	struct alloc_info *infos;
	size_t ninfos, infos_cap;
	struct point *points;
	size_t npoints, points_cap;
	double *times; /* seconds at the end of each snapshot */
	size_t ntimes, times_cap;
	uint64_t live, peak, peak_step, step;
	char *cmd;
	struct perun_error *err;
};

static int bad(struct heaptrack *h, const char *problem)
{
	return perun_error_set(h->err, PERUN_EINVAL, "heaptrack file '%s': line %zu: %s", h->path,
			       h->lineno, problem);
}

static int oom(struct heaptrack *h)
{
	return perun_error_set(h->err, PERUN_EGENERIC, "out of memory");
}

/* The hex numbers after the line's kind letter. */
static int numbers(char *s, uint64_t *out, int max)
{
	int n = 0;
	while (*s == ' ')
		s++;
	while (*s && n < max) {
		char *end;
		errno = 0;
		out[n] = strtoull(s, &end, 16);
		if (end == s || errno || (*end && *end != ' '))
			return -1;
		n++;
		s = end;
		while (*s == ' ')
			s++;
	}
	return *s ? -1 : n;
}

static int add_string(struct heaptrack *h, char *rest, size_t len)
{
	char *text = rest;
	if (h->file_version >= 3) {
		/* "<length> <text>": the text may hold any byte but a newline */
		char *end;
		unsigned long long n = strtoull(rest, &end, 16);
		if (end == rest || *end != ' ' || n != len - (size_t)(end + 1 - rest))
			return bad(h, "a string whose length does not match");
		text = end + 1;
	}
	if (perun_array_grow((void **)&h->strings, &h->strings_cap, h->nstrings + 1,
			     sizeof(*h->strings)) ||
	    !(h->strings[h->nstrings] = strdup(text)))
		return oom(h);
	h->nstrings++;
	return 0;
}

static int add_ip(struct heaptrack *h, char *rest)
{
	uint64_t v[2 + 3 * 64];
	int n = numbers(rest, v, (int)(sizeof(v) / sizeof(*v)));
	if (n < 2 || (n > 3 && (n - 2) % 3 != 0))
		return bad(h, "an instruction pointer line is malformed");
	if (perun_array_grow((void **)&h->ips, &h->ips_cap, h->nips + 1, sizeof(*h->ips)))
		return oom(h);
	struct ip *ip = &h->ips[h->nips++];
	uint32_t nframes = n == 3 ? 1 : (uint32_t)(n - 2) / 3;
	if (n > 2 && !(ip->frames = calloc(nframes, sizeof(*ip->frames))))
		return oom(h);
	ip->nframes = n > 2 ? nframes : 0;
	for (uint32_t k = 0; k < ip->nframes; k++) {
		const uint64_t *f = v + 2 + 3 * k;
		ip->frames[k].function = (uint32_t)f[0];
		if (n > 3) {
			ip->frames[k].file = (uint32_t)f[1];
			ip->frames[k].line = (uint32_t)f[2];
		}
		if (f[0] > h->nstrings || (n > 3 && f[1] > h->nstrings))
			return bad(h, "a frame names a string not defined before");
	}
	return 0;
}

static long snapshot_now(const struct heaptrack *h)
{
	return (long)h->ntimes;
}

static int flush_point(struct heaptrack *h, uint32_t trace)
{
	struct unit *u = &h->units[trace];
	if (u->pending && u->delta) {
		if (perun_array_grow((void **)&h->points, &h->points_cap, h->npoints + 1,
				     sizeof(*h->points)))
			return oom(h);
		h->points[h->npoints++] =
			(struct point){ trace, u->snapshot, u->delta, u->live, u->calls };
	}
	u->pending = 0;
	u->delta = 0;
	u->calls = 0;
	return 0;
}

/* Before a trace's live bytes change: its bytes at the newest peak, and
 * its series point of an earlier snapshot (as aggregate.c of the memory
 * collector does for its stacks). */
static int touch(struct heaptrack *h, uint32_t trace)
{
	struct unit *u = &h->units[trace];
	if (h->peak_step && u->last_change <= h->peak_step && u->peak_for != h->peak_step) {
		u->peak = u->live;
		u->peak_for = h->peak_step;
	}
	u->last_change = h->step;
	if (u->pending && u->snapshot != snapshot_now(h) && flush_point(h, trace))
		return -1;
	u->pending = 1;
	u->calls++;
	u->snapshot = snapshot_now(h);
	return 0;
}

static int alloc_or_free(struct heaptrack *h, char kind, char *rest)
{
	uint64_t v[1];
	if (numbers(rest, v, 1) != 1)
		return bad(h, "an allocation line is malformed");
	if (v[0] >= h->ninfos)
		return bad(h, "an allocation refers to an allocation info not defined before");
	const struct alloc_info *info = &h->infos[v[0]];
	struct unit *u = &h->units[info->trace];
	h->step++;
	if (touch(h, info->trace))
		return -1;
	u->used = 1;
	if (kind == '+') {
		u->count++;
		u->bytes += info->size;
		u->live += info->size;
		u->delta += (int64_t)info->size;
		h->live += info->size;
		if (h->live > h->peak) {
			h->peak = h->live;
			h->peak_step = h->step;
		}
	} else {
		if (u->live < info->size || h->live < info->size)
			return bad(h, "a free of more bytes than its trace holds");
		u->live -= info->size;
		u->delta -= (int64_t)info->size;
		h->live -= info->size;
	}
	return 0;
}

static int read_line(struct heaptrack *h, char *line, size_t len)
{
	uint64_t v[2];
	char *rest = len > 1 ? line + 2 : line + len;
	size_t rest_len = len > 1 ? len - 2 : 0;
	if (len > 1 && line[1] != ' ')
		return bad(h, "not a heaptrack line");
	switch (line[0]) {
	case '+':
	case '-': return alloc_or_free(h, line[0], rest);
	case 's': return add_string(h, rest, rest_len);
	case 'i': return add_ip(h, rest);
	case 't':
		if (numbers(rest, v, 2) != 2)
			return bad(h, "a trace line is malformed");
		if (v[0] == 0 || v[0] > h->nips || v[1] > h->ntraces)
			return bad(h, "a trace refers to an ip or trace not defined before");
		if (perun_array_grow((void **)&h->traces, &h->traces_cap, h->ntraces + 2,
				     sizeof(*h->traces)) ||
		    perun_array_grow((void **)&h->units, &h->units_cap, h->ntraces + 2,
				     sizeof(*h->units)))
			return oom(h);
		h->traces[++h->ntraces] = (struct trace_node){ (uint32_t)v[0], (uint32_t)v[1] };
		return 0;
	case 'a':
		if (numbers(rest, v, 2) != 2)
			return bad(h, "an allocation info line is malformed");
		if (v[1] == 0 || v[1] > h->ntraces)
			return bad(h, "an allocation info refers to a trace not defined before");
		if (perun_array_grow((void **)&h->infos, &h->infos_cap, h->ninfos + 1,
				     sizeof(*h->infos)))
			return oom(h);
		h->infos[h->ninfos++] = (struct alloc_info){ v[0], (uint32_t)v[1] };
		return 0;
	case 'c':
		if (numbers(rest, v, 1) != 1)
			return bad(h, "a timestamp line is malformed");
		if (perun_array_grow((void **)&h->times, &h->times_cap, h->ntimes + 1,
				     sizeof(*h->times)))
			return oom(h);
		h->times[h->ntimes++] = (double)v[0] / 1000.0;
		return 0;
	case 'X': free(h->cmd); return (h->cmd = strdup(rest)) ? 0 : oom(h);
	case 'v':
		if (numbers(rest, v, 2) != 2)
			return bad(h, "the version line is malformed");
		h->file_version = (unsigned)v[1];
		if (h->file_version < 2 || h->file_version > 3)
			return bad(h, "a heaptrack file version other than 2 or 3");
		return 0;
	case '#':
	case 'I':
	case 'R':
	case 'A':
	case '\0': return 0;
	default: return bad(h, "an unknown kind of line");
	}
}

static const char *string_at(const struct heaptrack *h, uint32_t index)
{
	return index && index <= h->nstrings ? h->strings[index - 1] : NULL;
}

/* Perun's trace (innermost first, frames without function or source
 * dropped as the memory collector drops them) and uid of a trace. */
static int describe(struct heaptrack *h, uint32_t trace, json_t **trace_out, json_t **uid_out)
{
	json_t *frames = json_array();
	if (!frames)
		return oom(h);
	for (uint32_t t = trace, guard = 0; t && guard <= h->ntraces;
	     t = h->traces[t].parent, guard++) {
		const struct ip *ip = &h->ips[h->traces[t].ip - 1];
		for (uint32_t k = 0; k < ip->nframes; k++) {
			const char *fn = string_at(h, ip->frames[k].function);
			const char *src = string_at(h, ip->frames[k].file);
			if (!fn || !src)
				continue;
			json_array_append_new(frames,
					      json_pack("{s:s, s:s, s:i}", "function", fn, "source",
							src, "line", (int)ip->frames[k].line));
		}
	}
	json_t *first = json_array_get(frames, 0);
	*uid_out = first ? json_deep_copy(first)
			 : json_pack("{s:s, s:s, s:i}", "function", "?", "source", "unreachable",
				     "line", 0);
	*trace_out = frames;
	return *uid_out ? 0 : oom(h);
}

static int add_resource(struct perun_profile *profile, json_t *res, struct heaptrack *h)
{
	if (!res)
		return oom(h);
	int rc = perun_profile_add_resource(profile, res, h->err);
	json_decref(res);
	return rc;
}

static int compare_points(const void *x, const void *y)
{
	const struct point *p = x, *q = y;
	if (p->snapshot != q->snapshot)
		return p->snapshot < q->snapshot ? -1 : 1;
	return p->trace < q->trace ? -1 : p->trace > q->trace;
}

static int emit(struct heaptrack *h, struct perun_profile *profile)
{
	int rc = 0;
	json_t **uids = calloc(h->ntraces + 1, sizeof(*uids));
	if (!uids)
		return oom(h);
	for (uint32_t t = 1; t <= h->ntraces && !rc; t++) {
		struct unit *u = &h->units[t];
		if (!u->used)
			continue;
		if (h->peak_step && u->last_change <= h->peak_step && u->peak_for != h->peak_step)
			u->peak = u->live;
		if ((rc = flush_point(h, t)))
			break;
		json_t *trace = NULL;
		if ((rc = describe(h, t, &trace, &uids[t])))
			break;
		json_t *res = json_pack(
			"{s:s, s:s, s:I, s:I, s:o, s:O, s:I, s:I, s:I, s:I, s:I}", "type", "memory",
			"subtype", "malloc", "amount", (json_int_t)u->bytes, "count",
			(json_int_t)u->count, "trace", trace, "uid", uids[t], "stack",
			(json_int_t)t, "peak", (json_int_t)u->peak, "leaked", (json_int_t)u->live,
			"live", (json_int_t)u->live, "snapshot", (json_int_t)snapshot_now(h));
		rc = add_resource(profile, res, h);
	}
	if (!rc)
		qsort(h->points, h->npoints, sizeof(*h->points), compare_points);
	for (size_t i = 0; i < h->npoints && !rc; i++) {
		const struct point *p = &h->points[i];
		char time[64];
		double end = (size_t)p->snapshot < h->ntimes ? h->times[p->snapshot]
			     : h->ntimes		     ? h->times[h->ntimes - 1]
							     : 0;
		snprintf(time, sizeof(time), "%f", end);
		rc = add_resource(profile,
				  json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:s, s:O, s:s, s:I}",
					    "type", "memory", "subtype", "live", "change",
					    (json_int_t)p->delta, "live", (json_int_t)p->live,
					    "count", (json_int_t)p->calls, "snapshot",
					    (json_int_t)p->snapshot, "time", time, "uid",
					    uids[p->trace], "allocator", "malloc", "stack",
					    (json_int_t)p->trace),
				  h);
	}
	for (size_t t = 0; t <= h->ntraces; t++)
		json_decref(uids[t]);
	free(uids);
	return rc;
}

/* header cmd and args from the recorded command line. */
static void set_command(struct perun_profile *profile, const char *cmdline)
{
	char *copy = strdup(cmdline ? cmdline : "");
	if (!copy)
		return;
	char *space = strchr(copy, ' ');
	if (space)
		*space = '\0';
	perun_profile_set_header(profile, "cmd", copy);
	perun_profile_set_header(profile, "args", space ? space + 1 : "");
	perun_profile_set_header(profile, "workload", "");
	free(copy);
}

static int read_heaptrack(const char *path, struct perun_profile *profile, struct perun_error *err)
{
	struct heaptrack h = { .path = path, .err = err };
	struct compressed_file *f = NULL;
	char *line;
	size_t len;
	int rc = compressed_open(path, &f, err), more;
	if (rc)
		return rc;
	while ((more = compressed_getline(f, &line, &len, err)) == 1) {
		h.lineno++;
		if (h.lineno == 1 && strncmp(line, "v ", 2)) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "'%s' is not a heaptrack data file (no version line)",
					     path);
			break;
		}
		if ((rc = read_line(&h, line, len)))
			break;
	}
	if (!rc && more < 0)
		rc = more;
	if (!rc && h.lineno == 0)
		rc = perun_error_set(err, PERUN_EINVAL, "'%s' is empty", path);
	if (!rc) {
		set_command(profile, h.cmd);
		rc = emit(&h, profile);
	}
	compressed_close(f);
	for (size_t i = 0; i < h.nstrings; i++)
		free(h.strings[i]);
	for (size_t i = 0; i < h.nips; i++)
		free(h.ips[i].frames);
	free(h.strings);
	free(h.ips);
	free(h.traces);
	free(h.units);
	free(h.infos);
	free(h.points);
	free(h.times);
	free(h.cmd);
	return rc;
}

const struct perun_import_source perun_import_heaptrack = {
	.name = "heaptrack",
	.summary = "import a heaptrack data file (.zst, .gz or plain)",
	.profile_type = "memory",
	.units = "{\"memory\": \"B\"}",
	.read = read_heaptrack,
};
