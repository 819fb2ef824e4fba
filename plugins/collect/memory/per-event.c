/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The per-event profile (--per-event): Python Perun's memory resources,
 * one per call (parsing.py, filter.py): {type: memory, subtype:
 * <allocator>, amount, address, trace, uid, allocation_order} in snapshots
 * of --sampling seconds, and for allocations two more persistent keys,
 * leaked and peak (see README.md).  Every event is in memory at once:
 * meant for small runs, or thinned with --sample.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live-map.h"
#include "stacks.h"
#include "trace.h"

/* One step of the live heap: a free (or a realloc's giving back) or an
 * allocation (or a realloc's result). */
struct step {
	uint64_t ts;
	size_t ev;
	int alloc;
};

static int compare_steps(const void *a, const void *b)
{
	const struct step *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* An address is given back before another thread can receive it. */
	if (x->alloc != y->alloc)
		return x->alloc - y->alloc;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

struct heap {
	uint64_t live, peak;
	size_t peak_pos; /* accounting position where peak was reached */
};

static void give_back(struct memory_event *events, struct heap *heaps, struct live_map *m,
		      uint32_t proc, uint64_t ptr, size_t pos)
{
	struct live_slot *s = live_find(m, proc, ptr);
	if (!s)
		return; /* allocated before recording began, or not by us */
	struct memory_event *a = &events[s->value];
	a->free_pos = pos;
	heaps[proc].live -= a->size;
	live_remove(m, s);
}

/* Each allocation's live interval, and each process's peak position. */
static int account(struct memory_event *events, size_t nevents, struct heap *heaps)
{
	size_t n = 0;
	int rc = 0;
	struct live_map m = { 0 };
	struct step *steps = calloc(nevents * 2 + 1, sizeof(*steps));
	if (!steps)
		return -1;
	for (size_t i = 0; i < nevents; i++) {
		struct memory_event *e = &events[i];
		e->alloc_pos = e->free_pos = SIZE_MAX;
		if (e->kind == PMEM_FREE || (e->kind == PMEM_REALLOC && e->old_ptr))
			steps[n++] = (struct step){ .ts = e->kind == PMEM_FREE ? e->ts : e->ts_free,
						    .ev = i };
		if (e->kind != PMEM_FREE)
			steps[n++] = (struct step){ .ts = e->ts, .ev = i, .alloc = 1 };
	}
	qsort(steps, n, sizeof(*steps), compare_steps);
	for (size_t pos = 0; pos < n && !rc; pos++) {
		struct memory_event *e = &events[steps[pos].ev];
		struct heap *h = &heaps[e->proc];
		if (!steps[pos].alloc) {
			give_back(events, heaps, &m, e->proc,
				  e->kind == PMEM_FREE ? e->ptr : e->old_ptr, pos);
			continue;
		}
		/* Still live at the same address: its free was not seen. */
		give_back(events, heaps, &m, e->proc, e->ptr, pos);
		e->alloc_pos = pos;
		h->live += e->size;
		if (h->live > h->peak) {
			h->peak = h->live;
			h->peak_pos = pos;
		}
		rc = live_insert(&m, e->proc, e->ptr, steps[pos].ev, 0);
	}
	live_release(&m);
	free(steps);
	return rc;
}

static int compare_events(const void *a, const void *b)
{
	const struct memory_event *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return 0;
}

struct emitter {
	struct perun_profile *profile;
	json_t *orders; /* flattened uid -> allocation_order so far */
	char time[64];
	long snapshot;
	struct perun_error *err;
};

static int emit(struct emitter *em, const struct memory_stack *r, const char *subtype,
		uint64_t amount, uint64_t address, int flags, int leaked, int at_peak)
{
	char *uid_text = perun_value_flatten_dup(r->uid);
	if (!uid_text)
		return perun_error_set(em->err, PERUN_EGENERIC, "out of memory");
	json_int_t order = json_integer_value(json_object_get(em->orders, uid_text)) + 1;
	json_object_set_new(em->orders, uid_text, json_integer(order));
	free(uid_text);
	json_t *res =
		json_pack("{s:s, s:s, s:I, s:I, s:O, s:O, s:I, s:i, s:s}", "type", "memory",
			  "subtype", subtype, "amount", (json_int_t)amount, "address",
			  (json_int_t)address, "trace", r->trace, "uid", r->uid, "allocation_order",
			  order, "snapshot", (int)em->snapshot, "time", em->time);
	if (res && flags) {
		json_object_set_new(res, "leaked", json_boolean(leaked));
		json_object_set_new(res, "peak", json_boolean(at_peak));
	}
	if (!res)
		return perun_error_set(em->err, PERUN_EGENERIC, "out of memory");
	int rc = perun_profile_add_resource(em->profile, res, em->err);
	json_decref(res);
	return rc;
}

int memory_profile_per_event(struct memory_trace *t, const struct memory_options *o, uint64_t t0_ns,
			     struct perun_profile *profile, struct perun_error *err)
{
	struct emitter em = { .profile = profile, .orders = json_object(), .err = err };
	struct memory_snapshots snap;
	struct memory_summary sum;
	struct memory_stacks *stacks = memory_stacks_new();
	size_t nevents, kept = 0;
	struct memory_event *events = memory_trace_events(t, &nevents);
	int rc = 0;

	memory_trace_summary(t, &sum);
	struct heap *heaps = calloc(sum.processes + 1, sizeof(*heaps));
	memory_snapshots_init(&snap, o->sampling);
	if (!em.orders || !stacks || !heaps || account(events, nevents, heaps)) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	/* The accounting used event indices: sort for emission only now (the
	 * positions it computed travel with the events). */
	qsort(events, nevents, sizeof(*events), compare_events);

	for (size_t i = 0; i < nevents && !rc; i++) {
		struct memory_event *e = &events[i];
		struct heap *h = &heaps[e->proc];
		uint32_t id;
		const struct memory_stack *r = NULL;
		if (memory_stacks_intern(stacks, t, e, &id) ||
		    !(r = memory_stacks_describe(stacks, t, id, o))) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			break;
		}
		memory_snapshots_reach(&snap, e->ts, t0_ns);
		if (r->excluded || (o->sample > 1 && kept++ % (unsigned long long)o->sample))
			continue;
		em.snapshot = snap.index;
		memory_snapshots_time(snap.interval, em.time, sizeof(em.time));
		if (e->kind == PMEM_FREE) {
			rc = emit(&em, r, "free", 0, e->ptr, 0, 0, 0);
			continue;
		}
		int leaked = e->free_pos == SIZE_MAX;
		int at_peak =
			e->alloc_pos <= h->peak_pos && h->peak_pos < e->free_pos && h->peak > 0;
		rc = emit(&em, r, memory_allocator_name(e->allocator), e->size, e->ptr, 1, leaked,
			  at_peak);
		if (!rc && e->kind == PMEM_REALLOC && e->old_ptr)
			rc = emit(&em, r, "free", 0, e->old_ptr, 0, 0, 0);
	}
out:
	json_decref(em.orders);
	memory_stacks_free(stacks);
	free(heaps);
	return rc;
}
