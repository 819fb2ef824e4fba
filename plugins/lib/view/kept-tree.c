/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The call tree of the listed stacks cut to the nodes a view keeps, made
 * from the sorted list without the whole tree (viewlib_stacks_kept_tree).
 *
 * In the sorted list a node is a range of stacks: those whose first depth
 * frames are its path.  Its children are runs of equal frames at depth
 * within it, after the stacks that end at it, and its total is a
 * difference of prefix sums of the weights.  A run is found by galloping
 * over the frame ranks, so a node costs the logarithm of its range, not
 * its range; runs too light to keep are jumped over, a threshold's
 * weight at a time.  The memory is that of the kept nodes: a flame graph
 * of a million stacks keeps the few thousand frames it draws.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stacks.h"

/* A listed profile's sorted stacks read by frame (key_at). */
struct kept_build {
	const struct viewlib_stacks *s;
	const struct viewlib_sorted_stacks *so;
	viewlib_stacks_keep_fn keep;
	void *data;
};

/* Key of the sorted stack at i at depth d: 0 past its end, else its frame's
 * rank + 1; ascending along a node's range. */
static inline uint64_t key_at(const struct kept_build *b, uint32_t i, uint32_t d)
{
	const struct viewlib_listed_stack *st = &b->s->list[b->so->order[i]];
	return d < st->len ? (uint64_t)b->so->rank[b->s->frames.ids[st->start + d]] + 1 : 0;
}

/* The first i in [lo, hi) whose key at depth d is above key, or hi;
 * galloping from lo, as runs are mostly short. */
static uint32_t run_end(const struct kept_build *b, uint32_t lo, uint32_t hi, uint32_t d,
			uint64_t key)
{
	if (lo >= hi || key_at(b, lo, d) > key)
		return lo;
	uint32_t step = 1, below = lo; /* key_at(below) <= key */
	while (below + step < hi && key_at(b, below + step, d) <= key) {
		below += step;
		step *= 2;
	}
	uint32_t above = below + step < hi ? below + step : hi;
	while (above - below > 1) {
		uint32_t mid = below + (above - below) / 2;
		if (key_at(b, mid, d) <= key)
			below = mid;
		else
			above = mid;
	}
	return above;
}

static int keeps(const struct kept_build *b, uint32_t from, uint32_t to)
{
	const double *sum = b->so->sum;
	return b->keep(sum[to] - sum[from], sum[b->so->n], b->data);
}

/* The least p in (from, hi] for which [from, p) would be kept, or 0 when
 * even [from, hi) would not (keep is monotonic in the total). */
static uint32_t least_kept_end(const struct kept_build *b, uint32_t from, uint32_t hi)
{
	if (!keeps(b, from, hi))
		return 0;
	uint32_t lo = from; /* [from, lo) not kept */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (keeps(b, from, mid))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

static int kept_add(struct viewlib_kept_nodes *k, struct viewlib_stack_node node, uint32_t lo,
		    uint32_t hi)
{
	if (k->n == k->alloc) {
		uint32_t na = k->alloc ? k->alloc * 2 : 256;
		void *n = realloc(k->node, na * sizeof(*k->node));
		if (n)
			k->node = n;
		void *sp = n ? realloc(k->span, na * sizeof(*k->span)) : NULL;
		if (!sp)
			return -1;
		k->span = sp;
		k->alloc = na;
	}
	k->node[k->n] = node;
	k->span[k->n][0] = lo;
	k->span[k->n][1] = hi;
	k->n++;
	return 0;
}

/* The kept children of node i, appended to k (so each node's children are
 * next to each other, in name order), with a gap before each that stands
 * for the siblings left out before it. */
static int add_children(const struct kept_build *b, struct viewlib_kept_nodes *k, uint32_t i)
{
	const double *sum = b->so->sum;
	uint32_t d = k->node[i].depth, lo = k->span[i][0], hi = k->span[i][1];
	uint32_t a = run_end(b, lo, hi, d, 0); /* past the stacks ending here */
	k->node[i].first = k->n;
	k->node[i].nchildren = 0;
	k->node[i].self = sum[a] - sum[lo];
	uint32_t placed = a; /* past the last child kept */
	while (a < hi) {
		uint32_t p = least_kept_end(b, a, hi);
		if (!p)
			break;
		uint64_t key = key_at(b, a, d);
		uint32_t end = run_end(b, a, hi, d, key);
		if (end < p) {
			/* Runs ending before p weigh too little: go on from the
			 * start of the run that holds stack p - 1. */
			a = run_end(b, a, p - 1, d, key_at(b, p - 1, d) - 1);
			continue;
		}
		if (a > placed) {
			struct viewlib_stack_node gap = { .frame = VIEWLIB_STACKS_GAP,
							  .parent = i,
							  .depth = d + 1,
							  .total = sum[a] - sum[placed] };
			if (kept_add(k, gap, placed, a))
				return -1;
			k->node[i].nchildren++;
		}
		const struct viewlib_listed_stack *st = &b->s->list[b->so->order[a]];
		struct viewlib_stack_node child = {
			.frame = b->s->frames.ids[st->start + d],
			.parent = i,
			.depth = d + 1,
			.total = sum[end] - sum[a],
		};
		if (kept_add(k, child, a, end))
			return -1;
		k->node[i].nchildren++;
		a = placed = end;
	}
	return 0;
}

/* Whole weights, none negative, summing exactly in any order: the
 * ranges' sums are then the whole tree's to the bit. */
static int sums_exact(const struct viewlib_stacks *s)
{
	double all = 0;
	for (uint32_t i = 0; i < s->nlisted; i++) {
		double w = s->list[i].weight;
		if (!(w >= 0) || w != floor(w))
			return 0;
		all += w;
	}
	return all < 9007199254740992.0; /* 2^53 */
}

void viewlib_sorted_stacks_release(struct viewlib_sorted_stacks *so)
{
	free(so->order);
	free(so->rank);
	free(so->sum);
	memset(so, 0, sizeof(*so));
}

int viewlib_stacks_sort_exact(const struct viewlib_stacks *s, struct viewlib_sorted_stacks *out,
			      struct perun_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!s->listed || !sums_exact(s))
		return 1;
	int rc = viewlib_stacks_sort_list(s, &out->order, &out->rank, err);
	if (rc)
		return rc;
	out->n = s->nlisted;
	out->sum = malloc(((size_t)s->nlisted + 1) * sizeof(*out->sum));
	if (!out->sum) {
		viewlib_sorted_stacks_release(out);
		return perun_error_set(err, PERUN_EGENERIC,
				       "out of memory summing the call stacks");
	}
	out->sum[0] = 0;
	for (uint32_t i = 0; i < s->nlisted; i++) {
		if (i + 16 < s->nlisted)
			__builtin_prefetch(&s->list[out->order[i + 16]]);
		out->sum[i + 1] = out->sum[i] + s->list[out->order[i]].weight;
	}
	return 0;
}

void viewlib_kept_nodes_release(struct viewlib_kept_nodes *k)
{
	free(k->node);
	free(k->span);
	memset(k, 0, sizeof(*k));
}

int viewlib_stacks_keep(const struct viewlib_stacks *s, const struct viewlib_sorted_stacks *so,
			viewlib_stacks_keep_fn keep, void *data, struct viewlib_kept_nodes *out,
			struct perun_error *err)
{
	struct kept_build b = { s, so, keep, data };
	double root_total = so->sum[so->n];
	struct viewlib_stack_node root = { .frame = VIEWLIB_STACKS_NONE,
					   .parent = VIEWLIB_STACKS_NONE,
					   .total = root_total };
	memset(out, 0, sizeof(*out));
	if (kept_add(out, root, 0, so->n))
		goto oom;
	/* Breadth first: a node's children are made together. */
	for (uint32_t i = 0; i < out->n; i++) {
		if (out->node[i].frame == VIEWLIB_STACKS_GAP ||
		    !keep(out->node[i].total, root_total, data)) {
			out->node[i].first = out->n;
			continue;
		}
		if (add_children(&b, out, i))
			goto oom;
	}
	return 0;
oom:
	viewlib_kept_nodes_release(out);
	return perun_error_set(err, PERUN_EGENERIC, "out of memory summing the call stacks");
}

int viewlib_kept_totals_in(const struct viewlib_stacks *s, const struct viewlib_kept_nodes *k,
			   const struct viewlib_stacks *other,
			   const struct viewlib_sorted_stacks *oso, double *out,
			   struct perun_error *err)
{
	struct kept_build b = { other, oso, NULL, NULL };
	uint32_t(*span)[2] = malloc(((size_t)k->n + 1) * sizeof(*span));
	if (!span)
		return perun_error_set(err, PERUN_EGENERIC,
				       "out of memory matching the call stacks");
	/* Parents come first: each path is looked for in its parent's range. */
	span[0][0] = 0;
	span[0][1] = oso->n;
	out[0] = oso->sum[oso->n];
	for (uint32_t i = 1; i < k->n; i++) {
		const struct viewlib_stack_node *n = &k->node[i];
		uint32_t lo = span[n->parent][0], hi = span[n->parent][1], d = n->depth - 1;
		uint32_t id = n->frame == VIEWLIB_STACKS_GAP || isnan(out[n->parent])
				      ? VIEWLIB_STACKS_NONE
				      : viewlib_stacks_lookup(other, s->names[n->frame]);
		uint64_t key = id == VIEWLIB_STACKS_NONE ? 0 : (uint64_t)oso->rank[id] + 1;
		uint32_t start = key ? run_end(&b, lo, hi, d, key - 1) : hi;
		if (start == hi || key_at(&b, start, d) != key) {
			out[i] = NAN;
			span[i][0] = span[i][1] = 0;
			continue;
		}
		uint32_t end = run_end(&b, start, hi, d, key);
		span[i][0] = start;
		span[i][1] = end;
		out[i] = oso->sum[end] - oso->sum[start];
	}
	free(span);
	return 0;
}

int viewlib_stacks_install_kept(struct viewlib_stacks *s, struct viewlib_kept_nodes *k,
				struct perun_error *err)
{
	/* Children are numbered in order: children[] maps each to itself. */
	uint32_t *children = malloc(((size_t)k->n + 1) * sizeof(*children));
	if (!children) {
		viewlib_kept_nodes_release(k);
		return perun_error_set(err, PERUN_EGENERIC,
				       "out of memory summing the call stacks");
	}
	for (uint32_t i = 0; i < k->n; i++)
		children[i] = i;
	viewlib_stacks_drop_lookup(s);
	viewlib_stacks_drop_list(s);
	free(s->nodes);
	free(s->children);
	s->nodes = k->node;
	s->nnodes = s->nodes_alloc = k->n;
	s->children = children;
	free(k->span);
	memset(k, 0, sizeof(*k));
	return 0;
}

int viewlib_stacks_kept_tree(struct viewlib_stacks *s, viewlib_stacks_keep_fn keep, void *data,
			     struct perun_error *err)
{
	struct viewlib_sorted_stacks so;
	struct viewlib_kept_nodes k = { 0 };
	if (!s->listed)
		return 0;
	int rc = viewlib_stacks_sort_exact(s, &so, err);
	if (rc > 0)
		return viewlib_stacks_unlist(s, err);
	if (!rc)
		rc = viewlib_stacks_keep(s, &so, keep, data, &k, err);
	viewlib_sorted_stacks_release(&so);
	if (!rc)
		rc = viewlib_stacks_install_kept(s, &k, err);
	viewlib_kept_nodes_release(&k);
	return rc;
}
