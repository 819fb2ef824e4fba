/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Raw events -> trace resources, as Python Perun's parse_compact.py builds
 * them: per thread a stack of open calls matched with their returns
 * (amount = exit - entry, exclusive = amount - the amounts of the calls it
 * made), USDT pairs matched per thread, single USDT probes timed between
 * hits, thread and process records.  Calls still open when their thread
 * ends (a crash, a kill at the timeout) are closed at that end, so what ran
 * is all there.
 *
 * Rows are gathered per resource type (uid, tid, location) in flat arrays
 * and handed to the profile as columns (perun_profile_add_columns), which
 * go into its compact form as they are: no value of a million calls
 * becomes a jansson value of its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"

/* Open addressing u64 -> u32 (index + 1; 0 is empty). */
struct map {
	unsigned long long *keys;
	unsigned *vals;
	size_t cap, used;
};

static size_t hash64(unsigned long long k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

static int map_grow(struct map *m)
{
	size_t cap = m->cap ? 2 * m->cap : 1024;
	unsigned long long *keys = calloc(cap, sizeof(*keys));
	unsigned *vals = calloc(cap, sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->vals[i])
			continue;
		size_t h = hash64(m->keys[i]) & (cap - 1);
		while (vals[h])
			h = (h + 1) & (cap - 1);
		keys[h] = m->keys[i];
		vals[h] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

/* The slot of key: *slot is 0 when new (the caller stores index + 1). */
static unsigned *map_slot(struct map *m, unsigned long long key)
{
	if (2 * (m->used + 1) > m->cap && map_grow(m))
		return NULL;
	size_t h = hash64(key) & (m->cap - 1);
	while (m->vals[h] && m->keys[h] != key)
		h = (h + 1) & (m->cap - 1);
	if (!m->vals[h]) {
		m->keys[h] = key;
		m->used++;
	}
	return &m->vals[h];
}

static void map_free(struct map *m)
{
	free(m->keys);
	free(m->vals);
}

#define GROW(arr, n, alloc)                                                                        \
	((n) < (alloc) ? 0 : grow_array((void **)&(arr), &(alloc), sizeof(*(arr))))

static int grow_array(void **arr, size_t *alloc, size_t size)
{
	size_t n = *alloc ? 2 * *alloc : 16;
	void *p = realloc(*arr, n * size);
	if (!p)
		return -1;
	*arr = p;
	*alloc = n;
	return 0;
}

struct frame {
	unsigned id;
	unsigned long long ts, seq, child_ns;
};

struct thread {
	unsigned tid, pid, ppid;
	int is_process;
	int ended;
	int seen; /* has had an event */
	unsigned long long begin_ts, last_ts;
	struct frame *stack;
	size_t depth, alloc;
};

/* Per thread and probe: the call counter and open USDT regions. */
struct counter {
	unsigned long long seq;
	unsigned long long last_ts, last_seq; /* single USDT: the previous hit */
	int have_last;
	struct frame *open;
	size_t nopen, alloc;
};

/* One resource type's rows. */
struct group {
	const char *uid;
	const char *location;
	unsigned tid, pid, ppid;
	int kind; /* 0 probe, 1 thread, 2 process */
	int has_exclusive;
	double *amount, *timestamp, *exclusive;
	int64_t *order; /* call-order */
	size_t n, alloc;
};

struct trace_transform {
	const struct trace_transform_input *in;
	struct map thread_map, counter_map, group_map;
	struct thread *threads;
	size_t nthreads, athreads;
	struct counter *counters;
	size_t ncounters, acounters;
	struct group *groups;
	size_t ngroups, agroups;
	struct trace_transform_stats *stats;
	int failed; /* an event could not be taken: out of memory */
};

static struct thread *thread_of(struct trace_transform *s, unsigned tid, unsigned pid,
				unsigned long long ts)
{
	unsigned *slot = map_slot(&s->thread_map, tid);
	if (!slot)
		return NULL;
	if (*slot)
		return &s->threads[*slot - 1];
	if (GROW(s->threads, s->nthreads, s->athreads))
		return NULL;
	struct thread *t = &s->threads[s->nthreads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = pid;
	t->begin_ts = ts;
	t->last_ts = ts;
	*slot = (unsigned)++s->nthreads;
	return t;
}

static struct counter *counter_of(struct trace_transform *s, unsigned tid, unsigned id)
{
	unsigned *slot = map_slot(&s->counter_map, ((unsigned long long)tid << 32) | id);
	if (!slot)
		return NULL;
	if (*slot)
		return &s->counters[*slot - 1];
	if (GROW(s->counters, s->ncounters, s->acounters))
		return NULL;
	struct counter *c = &s->counters[s->ncounters];
	memset(c, 0, sizeof(*c));
	*slot = (unsigned)++s->ncounters;
	return c;
}

/* Key of a group: probe id (or a marker for thread/process) and tid. */
static struct group *group_of(struct trace_transform *s, int kind, unsigned id, unsigned tid)
{
	unsigned long long key =
		((unsigned long long)tid << 32) | (kind ? (TRACE_MAX_IDS + (unsigned)kind) : id);
	unsigned *slot = map_slot(&s->group_map, key);
	if (!slot)
		return NULL;
	if (*slot)
		return &s->groups[*slot - 1];
	if (GROW(s->groups, s->ngroups, s->agroups))
		return NULL;
	struct group *g = &s->groups[s->ngroups];
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->tid = tid;
	if (kind == 0) {
		const struct trace_probe *p = &s->in->probes->v[id];
		g->uid = p->uid;
		g->location = p->location;
		g->has_exclusive = p->kind == TRACE_PROBE_FUNC;
	} else {
		g->uid = kind == 1 ? "!ThreadResource!" : "!ProcessResource!";
		g->location = s->in->location;
	}
	*slot = (unsigned)++s->ngroups;
	return g;
}

static int add_row(struct trace_transform *s, struct group *g, unsigned long long begin,
		   unsigned long long end, unsigned long long seq, long long exclusive_ns)
{
	if (g->n == g->alloc) {
		size_t n = g->alloc ? 2 * g->alloc : 8;
		double *a = realloc(g->amount, n * sizeof(*a));
		if (a)
			g->amount = a;
		double *t = realloc(g->timestamp, n * sizeof(*t));
		if (t)
			g->timestamp = t;
		int64_t *o = realloc(g->order, n * sizeof(*o));
		if (o)
			g->order = o;
		double *x = g->has_exclusive ? realloc(g->exclusive, n * sizeof(*x)) : NULL;
		if (x)
			g->exclusive = x;
		if (!a || !t || !o || (g->has_exclusive && !x))
			return -1;
		g->alloc = n;
	}
	/* Before the origin can only be the synthetic process start. */
	unsigned long long origin = s->in->start_ns;
	g->amount[g->n] = (double)(end - begin) / 1000.0;
	g->timestamp[g->n] = begin > origin ? (double)(begin - origin) / 1000.0 : 0.0;
	g->order[g->n] = (int64_t)seq;
	if (g->has_exclusive)
		g->exclusive[g->n] = (double)exclusive_ns / 1000.0;
	g->n++;
	s->stats->resources++;
	return 0;
}

/* Close the top frame of t at ts. */
static int pop_frame(struct trace_transform *s, struct thread *t, unsigned long long ts)
{
	struct frame f = t->stack[--t->depth];
	unsigned long long amount = ts - f.ts;
	if (t->depth)
		t->stack[t->depth - 1].child_ns += amount;
	struct group *g = group_of(s, 0, f.id, t->tid);
	if (!g)
		return -1;
	return add_row(s, g, f.ts, ts, f.seq, (long long)amount - (long long)f.child_ns);
}

static int func_begin(struct trace_transform *s, struct thread *t,
		      const struct perun_trace_event *e)
{
	struct counter *c = counter_of(s, e->tid, e->id);
	if (!c || GROW(t->stack, t->depth, t->alloc))
		return -1;
	t->stack[t->depth++] = (struct frame){ .id = e->id, .ts = e->ts, .seq = c->seq };
	c->seq += s->in->probes->v[e->id].sample;
	return 0;
}

static int func_end(struct trace_transform *s, struct thread *t, const struct perun_trace_event *e)
{
	size_t d = t->depth;
	while (d > 0 && t->stack[d - 1].id != e->id)
		d--;
	if (d == 0 || t->stack[d - 1].ts > e->ts) {
		s->stats->unmatched++;
		return 0;
	}
	/* Calls above it lost their return (longjmp, exceptions): drop them
	 * as Python Perun does, their time stays in the caller's. */
	s->stats->unmatched += t->depth - d;
	t->depth = d;
	return pop_frame(s, t, e->ts);
}

static int usdt_begin(struct trace_transform *s, const struct perun_trace_event *e)
{
	struct counter *c = counter_of(s, e->tid, e->id);
	if (!c || GROW(c->open, c->nopen, c->alloc))
		return -1;
	c->open[c->nopen++] = (struct frame){ .id = e->id, .ts = e->ts, .seq = c->seq };
	c->seq += s->in->probes->v[e->id].sample;
	return 0;
}

static int usdt_end(struct trace_transform *s, const struct perun_trace_event *e)
{
	int b = s->in->probes->v[e->id].pair;
	struct counter *c = b >= 0 ? counter_of(s, e->tid, (unsigned)b) : NULL;
	if (b >= 0 && !c)
		return -1;
	if (!c || !c->nopen) {
		s->stats->unmatched++;
		return 0;
	}
	struct frame f = c->open[--c->nopen];
	struct group *g = group_of(s, 0, (unsigned)b, e->tid);
	return g ? add_row(s, g, f.ts, e->ts, f.seq, 0) : -1;
}

static int usdt_single(struct trace_transform *s, const struct perun_trace_event *e)
{
	struct counter *c = counter_of(s, e->tid, e->id);
	if (!c)
		return -1;
	if (c->have_last) {
		struct group *g = group_of(s, 0, e->id, e->tid);
		if (!g || add_row(s, g, c->last_ts, e->ts, c->last_seq, 0))
			return -1;
	}
	c->have_last = 1;
	c->last_ts = e->ts;
	c->last_seq = c->seq++;
	return 0;
}

/* The thread (or process) ended at ts: close its open calls and record it. */
static int thread_end(struct trace_transform *s, struct thread *t, unsigned long long ts)
{
	if (t->ended)
		return 0;
	t->ended = 1;
	s->stats->open_at_end += t->depth;
	while (t->depth)
		if (pop_frame(s, t, ts))
			return -1;
	struct group *g = group_of(s, t->is_process ? 2 : 1, 0, t->tid);
	if (!g)
		return -1;
	g->pid = t->pid;
	g->ppid = t->ppid;
	return add_row(s, g, t->begin_ts, ts, 0, 0);
}

static int handle(struct trace_transform *s, const struct perun_trace_event *e)
{
	if (e->type <= PERUN_TRACE_USDT_END && e->id >= s->in->probes->n) {
		s->stats->unmatched++;
		return 0;
	}
	struct thread *t = thread_of(s, e->tid, e->pid, e->ts);
	if (!t)
		return -1;
	if (e->ts > t->last_ts)
		t->last_ts = e->ts;
	int first = !t->seen;
	t->seen = 1;
	switch (e->type) {
	case PERUN_TRACE_FUNC_BEGIN: return func_begin(s, t, e);
	case PERUN_TRACE_FUNC_END: return func_end(s, t, e);
	case PERUN_TRACE_USDT_BEGIN: return usdt_begin(s, e);
	case PERUN_TRACE_USDT_END: return usdt_end(s, e);
	case PERUN_TRACE_USDT_SINGLE: return usdt_single(s, e);
	case PERUN_TRACE_THREAD_BEGIN:
	case PERUN_TRACE_PROCESS_BEGIN:
		if (t->ended || first) {
			/* A new thread, or a reused tid that starts afresh. */
			t->ended = 0;
			t->depth = 0;
			t->begin_ts = e->ts;
		} else {
			/* The same thread again: an exec'd program image.  The
			 * calls of the image before it ended at the exec. */
			while (t->depth)
				if (pop_frame(s, t, e->ts))
					return -1;
		}
		t->pid = e->pid;
		t->is_process = e->type == PERUN_TRACE_PROCESS_BEGIN;
		if (t->is_process)
			t->ppid = e->id;
		return 0;
	case PERUN_TRACE_THREAD_END: return thread_end(s, t, e->ts);
	case PERUN_TRACE_PROCESS_END:
		t->is_process = 1;
		t->ppid = e->id;
		return thread_end(s, t, e->ts);
	default: s->stats->unmatched++; return 0;
	}
}

/* The persistent part of g's resources, as Python Perun's rows have it. */
static json_t *group_persistent(const struct group *g, const char *workload)
{
	json_t *p = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s}", "uid", g->uid, "tid", (int)g->tid,
			      "type", "mixed", "subtype", "time delta", "location", g->location,
			      "workload", workload);
	if (p && g->kind && json_object_set_new(p, "pid", json_integer(g->pid))) {
		json_decref(p);
		return NULL;
	}
	if (p && g->kind == 2 && json_object_set_new(p, "ppid", json_integer(g->ppid))) {
		json_decref(p);
		return NULL;
	}
	return p;
}

/* The groups, in order, into the profile column by column: their arrays
 * are the profile's then (NULL here), whatever the result. */
static int put_groups(struct perun_profile *profile, struct group *groups, size_t n,
		      const char *workload, struct perun_error *err)
{
	struct perun_column_type *types = calloc(n + 1, sizeof(*types));
	struct perun_column *cols = calloc(4 * n + 1, sizeof(*cols));
	int rc = types && cols ? 0 : -1;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct group *g = &groups[i];
		struct perun_column *c = &cols[4 * i];
		c[0] = (struct perun_column){ "amount", PERUN_COLUMN_REAL, g->amount };
		c[1] = (struct perun_column){ "timestamp", PERUN_COLUMN_REAL, g->timestamp };
		c[2] = (struct perun_column){ "call-order", PERUN_COLUMN_INTEGER, g->order };
		c[3] = (struct perun_column){ "exclusive", PERUN_COLUMN_REAL, g->exclusive };
		types[i] = (struct perun_column_type){ group_persistent(g, workload), g->n, c,
						       g->has_exclusive ? 4 : 3 };
		rc = types[i].persistent ? 0 : -1;
	}
	if (rc) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	} else {
		rc = perun_profile_take_columns(profile, types, n, err);
		for (size_t i = 0; i < n; i++) {
			groups[i].amount = groups[i].timestamp = NULL;
			groups[i].order = NULL;
			if (groups[i].has_exclusive)
				groups[i].exclusive = NULL;
		}
	}
	for (size_t i = 0; types && i < n; i++)
		json_decref((json_t *)types[i].persistent);
	free(types);
	free(cols);
	return rc;
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c = strcmp(x->uid, y->uid);
	if (c)
		return c;
	c = strcmp(x->location, y->location);
	if (c)
		return c;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

struct trace_transform *trace_transform_begin(const struct trace_transform_input *in,
					      struct trace_transform_stats *stats)
{
	struct trace_transform *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->in = in;
	s->stats = stats;
	memset(stats, 0, sizeof(*stats));
	return s;
}

int trace_transform_add(struct trace_transform *s, const struct perun_trace_event *e)
{
	s->stats->events++;
	if (handle(s, e))
		s->failed = -1;
	return s->failed;
}

int trace_transform_end(struct trace_transform *s, struct perun_profile *profile,
			struct perun_error *err)
{
	int rc = profile ? s->failed : 0;
	/* Threads without an end record (the instrument runtime of a crashed
	 * program) end at their last event. */
	for (size_t i = 0; profile && i < s->nthreads && !rc; i++)
		rc = thread_end(s, &s->threads[i], s->threads[i].last_ts);
	if (!profile) {
		/* Given up: only freed. */
	} else if (rc) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory transforming the trace");
	} else {
		/* A stable order: by uid, location, thread.  Groups of one uid
		 * with the same location but different threads are distinct
		 * types, "<uid>#0", "<uid>#1", ... */
		if (s->ngroups) /* qsort's base may not be NULL, even for none */
			qsort(s->groups, s->ngroups, sizeof(*s->groups), cmp_group);
		rc = put_groups(profile, s->groups, s->ngroups, s->in->workload, err);
	}
	for (size_t i = 0; i < s->nthreads; i++)
		free(s->threads[i].stack);
	for (size_t i = 0; i < s->ncounters; i++)
		free(s->counters[i].open);
	for (size_t i = 0; i < s->ngroups; i++) {
		free(s->groups[i].amount);
		free(s->groups[i].timestamp);
		free(s->groups[i].order);
		free(s->groups[i].exclusive);
	}
	free(s->threads);
	free(s->counters);
	free(s->groups);
	map_free(&s->thread_map);
	map_free(&s->counter_map);
	map_free(&s->group_map);
	free(s);
	return rc;
}

int trace_transform(const struct perun_trace_event *ev, size_t n,
		    const struct trace_transform_input *in, struct perun_profile *profile,
		    struct trace_transform_stats *stats, struct perun_error *err)
{
	struct trace_transform *s = trace_transform_begin(in, stats);
	if (!s)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory transforming the trace");
	for (size_t i = 0; i < n && !trace_transform_add(s, &ev[i]); i++)
		;
	return trace_transform_end(s, profile, err);
}

int trace_transform_file(const char *path, const struct trace_transform_input *in,
			 struct perun_profile *profile, struct trace_transform_stats *stats,
			 struct perun_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return perun_error_set_errno(err, PERUN_ETOOL, errno,
					     "cannot read the raw trace data '%s'", path);
	struct stat sb;
	if (fstat(fd, &sb) < 0) {
		int e = errno;
		close(fd);
		return perun_error_set_errno(err, PERUN_ETOOL, e, "cannot read '%s'", path);
	}
	size_t n = (size_t)sb.st_size / sizeof(struct perun_trace_event);
	void *map = NULL;
	if (n) {
		map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			int e = errno;
			close(fd);
			return perun_error_set_errno(err, PERUN_ETOOL, e, "cannot map '%s'", path);
		}
		madvise(map, (size_t)sb.st_size, MADV_SEQUENTIAL);
	}
	close(fd);
	int rc = trace_transform(map, n, in, profile, stats, err);
	if (map)
		munmap(map, (size_t)sb.st_size);
	return rc;
}
