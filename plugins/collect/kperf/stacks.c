/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Sampled stacks by their frame names, root first, with their sample count
 * per run: a jansson object keyed by the names joined with a separator no
 * name holds, so that stacks of different addresses (other processes,
 * other load addresses) that read the same merge, as perf script |
 * stackcollapse-perf.pl merges them for Python Perun.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "kperf.h"

#define SEPARATOR KPERF_FRAME_SEPARATOR
/* The frames of one stack, kernel and user: both maps' depth. */
#define MAX_FRAMES 256

struct kperf_stacks {
	json_t *counts; /* joined names -> [samples of run 0, run 1, ...] */
	uint64_t *totals;
	size_t nruns;
};

struct kperf_stacks *kperf_stacks_new(void)
{
	struct kperf_stacks *st = calloc(1, sizeof(*st));
	if (st && !(st->counts = json_object())) {
		free(st);
		return NULL;
	}
	return st;
}

void kperf_stacks_free(struct kperf_stacks *st)
{
	if (!st)
		return;
	json_decref(st->counts);
	free(st->totals);
	free(st);
}

uint64_t kperf_stacks_total(const struct kperf_stacks *st, size_t run)
{
	return run < st->nruns ? st->totals[run] : 0;
}

int kperf_stacks_add(struct kperf_stacks *st, const char *const *names, size_t n, size_t run,
		     uint64_t count)
{
	if (!n || !count)
		return 0;
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += strlen(names[i]) + 1;
	char *key = malloc(len);
	if (!key)
		return -1;
	char *p = key;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(names[i]);
		memcpy(p, names[i], l);
		p += l;
		*p++ = i + 1 < n ? SEPARATOR : '\0';
	}
	if (run >= st->nruns) {
		uint64_t *grown = realloc(st->totals, (run + 1) * sizeof(*grown));
		if (!grown) {
			free(key);
			return -1;
		}
		memset(grown + st->nruns, 0, (run + 1 - st->nruns) * sizeof(*grown));
		st->totals = grown;
		st->nruns = run + 1;
	}
	json_t *runs = json_object_get(st->counts, key);
	if (!runs) {
		runs = json_array();
		if (!runs || json_object_set_new(st->counts, key, runs)) {
			free(key);
			return -1;
		}
	}
	free(key);
	while (json_array_size(runs) <= run)
		if (json_array_append_new(runs, json_integer(0)))
			return -1;
	json_t *cell = json_array_get(runs, run);
	json_integer_set(cell, json_integer_value(cell) + (json_int_t)count);
	st->totals[run] += count;
	return 0;
}

struct top_item {
	const char *name;
	json_int_t samples;
};

static int most_first(const void *a, const void *b)
{
	const struct top_item *x = a, *y = b;
	return x->samples != y->samples ? (x->samples < y->samples ? 1 : -1)
					: strcmp(x->name, y->name);
}

json_t *kperf_stacks_top(const struct kperf_stacks *st, size_t run, size_t n)
{
	json_t *self = json_object(), *out = json_array(), *runs;
	const char *key;
	json_object_foreach(st->counts, key, runs)
	{
		json_int_t count = json_integer_value(json_array_get(runs, run));
		const char *leaf = strrchr(key, SEPARATOR);
		leaf = leaf ? leaf + 1 : key;
		json_t *cell = json_object_get(self, leaf);
		if (cell)
			json_integer_set(cell, json_integer_value(cell) + count);
		else if (count)
			json_object_set_new(self, leaf, json_integer(count));
	}
	size_t m = json_object_size(self), i = 0;
	struct top_item *items = calloc(m ? m : 1, sizeof(*items));
	json_t *v;
	json_object_foreach(self, key, v) if (items) items[i++] =
		(struct top_item){ key, json_integer_value(v) };
	if (items)
		qsort(items, m, sizeof(*items), most_first);
	for (i = 0; items && i < m && i < n; i++)
		json_array_append_new(out, json_pack("{s:s, s:I}", "name", items[i].name, "samples",
						     items[i].samples));
	free(items);
	json_decref(self);
	return out;
}

int kperf_stacks_add_addresses(struct kperf_stacks *st, struct kperf_procs *procs,
			       struct kperf_kallsyms *ks, pid_t pid, const uint64_t *kernel,
			       size_t nkernel, const uint64_t *user, size_t nuser, size_t run,
			       uint64_t count)
{
	const char *names[MAX_FRAMES];
	size_t n = 0;
	/* Root first: the user stack's outermost frame leads. */
	for (size_t i = nuser; i-- > 0 && n < MAX_FRAMES;)
		names[n++] = kperf_procs_frame(procs, pid, i ? user[i] - 1 : user[i]);
	for (size_t i = nkernel; i-- > 0 && n < MAX_FRAMES;)
		names[n++] = kperf_kallsyms_frame(ks, i ? kernel[i] - 1 : kernel[i]);
	return kperf_stacks_add(st, names, n, run, count);
}

/* The resource of one stack and run: the leaf is the uid, the frames
 * above it the trace, root first (Python Perun's kperf, see README.md). */
static json_t *resource_of(const char *key, json_int_t amount, const char *command, double seconds)
{
	json_t *trace = json_array();
	const char *leaf = key;
	for (const char *sep; trace && (sep = strchr(leaf, SEPARATOR)); leaf = sep + 1)
		if (json_array_append_new(
			    trace, json_pack("{s:s%}", "func", leaf, (size_t)(sep - leaf)))) {
			json_decref(trace);
			trace = NULL;
		}
	if (!trace)
		return NULL;
	return json_pack("{s:I, s:s, s:s, s:o, s:f}", "amount", amount, "uid", leaf, "command",
			 command, "trace", trace, "time", seconds);
}

int kperf_stacks_to_profile(const struct kperf_stacks *st, const char *command, double seconds,
			    struct perun_profile *profile, struct perun_error *err)
{
	const char *key;
	json_t *runs;
	json_object_foreach(st->counts, key, runs)
	{
		size_t run;
		json_t *cell;
		json_array_foreach(runs, run, cell)
		{
			json_int_t amount = json_integer_value(cell);
			if (!amount)
				continue;
			json_t *res = resource_of(key, amount, command, seconds);
			if (!res)
				return perun_error_set(err, PERUN_EGENERIC, "out of memory");
			int rc = perun_profile_add_resource(profile, res, err);
			json_decref(res);
			if (rc)
				return rc;
		}
	}
	return 0;
}
