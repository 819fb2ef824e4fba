/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The default profile: the recorded events aggregated per call stack and
 * allocator while they stream by in time order, so that time and memory
 * grow with the distinct stacks and snapshots, not with the events.
 *
 * Per (stack, allocator), one resource {type: memory, subtype: <allocator>,
 * amount: bytes allocated, count, peak: its bytes live when its process's
 * heap was largest, leaked: its bytes never freed, trace, uid, stack}
 * (frees: subtype free, amount 0, count); and per snapshot in which its
 * live bytes changed, one {subtype: live, amount: the change, live: the
 * bytes live at the snapshot's end, count: its calls in the snapshot,
 * snapshot, time, uid, allocator, stack}
 * without a trace (so flame graphs weigh allocations only); flow's running
 * sum of the changes draws the live bytes.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/array.h>

#include "live-map.h"
#include "stacks.h"
#include "trace.h"

#define NO_UNIT UINT32_MAX

struct unit {
	uint32_t stack, proc;
	uint8_t allocator;
	uint64_t count, bytes, live, peak;
	uint64_t last_change, peak_for; /* steps: the lazy copy of peak */
	long snapshot;			/* of the pending point */
	double interval;
	int64_t delta;
	uint64_t calls; /* of the pending point */
	int pending;
};

/* A unit's live bytes changed during a snapshot. */
struct point {
	uint32_t unit;
	long snapshot;
	double interval;
	int64_t delta;
	uint64_t live, calls;
};

struct heap {
	uint64_t live, peak, peak_step;
};

struct aggregation {
	struct memory_trace *trace;
	struct memory_stacks *stacks;
	uint32_t (*units_of)[PMEM_ALLOCATORS]; /* by stack id */
	size_t units_of_cap;
	struct unit *units;
	size_t nunits, units_cap;
	struct point *points;
	size_t npoints, points_cap;
	struct heap *heaps;
	struct live_map live;
	uint64_t step;
};

static struct unit *unit_of(struct aggregation *a, uint32_t stack, uint32_t proc,
			    unsigned allocator)
{
	if (stack >= a->units_of_cap) {
		size_t old = a->units_of_cap;
		if (perun_array_grow((void **)&a->units_of, &a->units_of_cap, (size_t)stack + 1,
				     sizeof(*a->units_of)))
			return NULL;
		memset(a->units_of + old, 0xff, (a->units_of_cap - old) * sizeof(*a->units_of));
	}
	uint32_t *slot = &a->units_of[stack][allocator];
	if (*slot == NO_UNIT) {
		if (perun_array_grow((void **)&a->units, &a->units_cap, a->nunits + 1,
				     sizeof(*a->units)))
			return NULL;
		a->units[a->nunits] = (struct unit){ .stack = stack,
						     .proc = proc,
						     .allocator = (uint8_t)allocator };
		*slot = (uint32_t)a->nunits++;
	}
	return &a->units[*slot];
}

static int flush_point(struct aggregation *a, struct unit *u)
{
	/* No change over the snapshot: the running sum needs no point. */
	if (!u->pending || u->delta == 0) {
		u->pending = 0;
		u->calls = 0;
		return 0;
	}
	if (perun_array_grow((void **)&a->points, &a->points_cap, a->npoints + 1,
			     sizeof(*a->points)))
		return -1;
	a->points[a->npoints++] = (struct point){ .unit = (uint32_t)(u - a->units),
						  .snapshot = u->snapshot,
						  .interval = u->interval,
						  .delta = u->delta,
						  .live = u->live,
						  .calls = u->calls };
	u->pending = 0;
	u->delta = 0;
	u->calls = 0;
	return 0;
}

/*
 * Before a unit's live bytes change: keep what they were at its process's
 * newest peak (a new peak would otherwise cost a copy of every unit), and
 * close its series point of an earlier snapshot.
 */
static int touch(struct aggregation *a, struct unit *u, const struct memory_snapshots *snap)
{
	uint64_t peak_step = a->heaps[u->proc].peak_step;
	if (peak_step && u->last_change <= peak_step && u->peak_for != peak_step) {
		u->peak = u->live;
		u->peak_for = peak_step;
	}
	u->last_change = a->step;
	if (u->pending && u->snapshot != snap->index && flush_point(a, u))
		return -1;
	u->pending = 1;
	u->calls++;
	u->snapshot = snap->index;
	u->interval = snap->interval;
	return 0;
}

/* The block at (proc, ptr), if live, is given back. */
static int give_back(struct aggregation *a, uint32_t proc, uint64_t ptr,
		     const struct memory_snapshots *snap)
{
	struct live_slot *s = live_find(&a->live, proc, ptr);
	if (!s)
		return 0; /* allocated before recording began, or not by us */
	struct unit *u = &a->units[s->owner];
	uint64_t size = s->value;
	live_remove(&a->live, s);
	if (touch(a, u, snap))
		return -1;
	u->live -= size;
	u->delta -= (int64_t)size;
	a->heaps[proc].live -= size;
	return 0;
}

static int take(struct aggregation *a, const struct memory_event *e,
		const struct memory_snapshots *snap)
{
	uint32_t stack;
	if (memory_stacks_intern(a->stacks, a->trace, e, &stack))
		return -1;
	if (e->kind == PMEM_FREE) {
		struct unit *f = unit_of(a, stack, e->proc, PMEM_FREE_FN);
		if (!f)
			return -1;
		f->count++;
		return give_back(a, e->proc, e->ptr, snap);
	}
	/* Still live at the same address: its free was not seen. */
	if (give_back(a, e->proc, e->ptr, snap))
		return -1;
	struct unit *u = unit_of(a, stack, e->proc, e->allocator);
	if (!u || touch(a, u, snap))
		return -1;
	u->count++;
	u->bytes += e->size;
	u->live += e->size;
	u->delta += (int64_t)e->size;
	struct heap *h = &a->heaps[e->proc];
	h->live += e->size;
	if (h->live > h->peak) {
		h->peak = h->live;
		h->peak_step = a->step;
	}
	return live_insert(&a->live, e->proc, e->ptr, e->size, (uint32_t)(u - a->units));
}

static int compare_points(const void *x, const void *y)
{
	const struct point *p = x, *q = y;
	if (p->snapshot != q->snapshot)
		return p->snapshot < q->snapshot ? -1 : 1;
	return p->unit < q->unit ? -1 : p->unit > q->unit;
}

static int add(struct perun_profile *profile, json_t *res, struct perun_error *err)
{
	if (!res)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = perun_profile_add_resource(profile, res, err);
	json_decref(res);
	return rc;
}

static int emit(struct aggregation *a, const struct memory_options *o, long last_snapshot,
		struct perun_profile *profile, struct perun_error *err)
{
	int rc = 0;
	for (size_t i = 0; i < a->nunits && !rc; i++) {
		struct unit *u = &a->units[i];
		const struct memory_stack *s =
			memory_stacks_describe(a->stacks, a->trace, u->stack, o);
		if (!s)
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		if (s->excluded)
			continue;
		json_t *res =
			json_pack("{s:s, s:s, s:I, s:I, s:O, s:O, s:I}", "type", "memory",
				  "subtype", memory_allocator_name(u->allocator), "amount",
				  (json_int_t)u->bytes, "count", (json_int_t)u->count, "trace",
				  s->trace, "uid", s->uid, "stack", (json_int_t)u->stack);
		/* live and snapshot (its value at the end) give every resource
		 * the same numeric keys, as scatter wants. */
		if (res) {
			json_object_set_new(res, "live", json_integer((json_int_t)u->live));
			json_object_set_new(res, "snapshot", json_integer(last_snapshot));
		}
		if (res && u->allocator != PMEM_FREE_FN) {
			json_object_set_new(res, "peak", json_integer((json_int_t)u->peak));
			json_object_set_new(res, "leaked", json_integer((json_int_t)u->live));
		}
		rc = add(profile, res, err);
	}
	qsort(a->points, a->npoints, sizeof(*a->points), compare_points);
	for (size_t i = 0; i < a->npoints && !rc; i++) {
		struct point *p = &a->points[i];
		struct unit *u = &a->units[p->unit];
		const struct memory_stack *s =
			memory_stacks_describe(a->stacks, a->trace, u->stack, o);
		if (s->excluded)
			continue;
		char time[64];
		memory_snapshots_time(p->interval, time, sizeof(time));
		json_t *res = json_pack(
			"{s:s, s:s, s:I, s:I, s:I, s:i, s:s, s:O, s:s, s:I}", "type", "memory",
			"subtype", "live", "change", (json_int_t)p->delta, "live",
			(json_int_t)p->live, "count", (json_int_t)p->calls, "snapshot",
			(int)p->snapshot, "time", time, "uid", s->uid, "allocator",
			memory_allocator_name(u->allocator), "stack", (json_int_t)u->stack);
		rc = add(profile, res, err);
	}
	return rc;
}

int memory_profile_aggregated(struct memory_trace *t, const struct memory_options *o,
			      uint64_t t0_ns, struct perun_profile *profile,
			      struct perun_error *err)
{
	struct memory_summary sum;
	struct memory_snapshots snap;
	struct memory_event e;
	struct aggregation a = { .trace = t, .stacks = memory_stacks_new() };
	int rc = 0, more;

	memory_trace_summary(t, &sum);
	memory_snapshots_init(&snap, o->sampling);
	a.heaps = calloc(sum.processes + 1, sizeof(*a.heaps));
	if (!a.stacks || !a.heaps) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	while ((more = memory_trace_next(t, &e)) == 1) {
		a.step++;
		memory_snapshots_reach(&snap, e.ts, t0_ns);
		if (take(&a, &e, &snap)) {
			more = -1;
			break;
		}
	}
	for (size_t i = 0; i < a.nunits && more == 0; i++) {
		struct unit *u = &a.units[i];
		uint64_t peak_step = a.heaps[u->proc].peak_step;
		if (peak_step && u->last_change <= peak_step && u->peak_for != peak_step)
			u->peak = u->live;
		if (flush_point(&a, u))
			more = -1;
	}
	if (more < 0) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	rc = emit(&a, o, snap.index, profile, err);
out:
	memory_stacks_free(a.stacks);
	live_release(&a.live);
	free(a.units_of);
	free(a.units);
	free(a.points);
	free(a.heaps);
	return rc;
}
