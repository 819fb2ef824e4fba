/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The largest change of any node between two profiles' call trees, from
 * their sorted stacks, without either tree (viewlib_stacks_largest_changes):
 * the colour scale of a differential flame graph, which needs every node,
 * drawn or not.
 *
 * Both lists are in walk order by their own name ranks, and both ranks
 * are strcmp order, so the lists merge into the walk of the union of the
 * trees once the names of both are numbered together.  The merge keeps
 * the path of the last stack; a node is done when the next stack leaves
 * it, and its sums go to its parent, so each stack costs the frames it
 * does not share with the one before.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stacks.h"

/* joint[id] for the names of x and of y numbered together in strcmp
 * order (a name both have gets one number); 0 or -1 without memory. */
static int number_together(const struct viewlib_stacks *x, const struct viewlib_sorted_stacks *xs,
			   const struct viewlib_stacks *y, const struct viewlib_sorted_stacks *ys,
			   uint32_t *xjoint, uint32_t *yjoint)
{
	uint32_t *xby = malloc(((size_t)x->nnames + 1) * sizeof(*xby));
	uint32_t *yby = malloc(((size_t)y->nnames + 1) * sizeof(*yby));
	if (!xby || !yby) {
		free(xby);
		free(yby);
		return -1;
	}
	for (uint32_t i = 0; i < x->nnames; i++)
		xby[xs->rank[i]] = i;
	for (uint32_t i = 0; i < y->nnames; i++)
		yby[ys->rank[i]] = i;
	uint32_t a = 0, b = 0, joint = 0;
	while (a < x->nnames || b < y->nnames) {
		int c = a == x->nnames	 ? 1
			: b == y->nnames ? -1
					 : strcmp(x->names[xby[a]], y->names[yby[b]]);
		if (c <= 0)
			xjoint[xby[a++]] = joint;
		if (c >= 0)
			yjoint[yby[b++]] = joint;
		joint++;
	}
	free(xby);
	free(yby);
	return 0;
}

/* A stack of one side in the merge: its frames and weight. */
struct merged_stack {
	const uint32_t *ids;
	const uint32_t *joint;
	uint32_t len;
	double weight;
};

static struct merged_stack stack_at(const struct viewlib_stacks *s,
				    const struct viewlib_sorted_stacks *so, const uint32_t *joint,
				    uint32_t i)
{
	const struct viewlib_listed_stack *st = &s->list[so->order[i]];
	return (struct merged_stack){ s->frames.ids + st->start, joint, st->len, st->weight };
}

/* Is stack x before y in the walk (a prefix before what extends it)? */
static int walks_before(const struct merged_stack *x, const struct merged_stack *y)
{
	uint32_t n = x->len < y->len ? x->len : y->len;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t a = x->joint[x->ids[k]], b = y->joint[y->ids[k]];
		if (a != b)
			return a < b;
	}
	return x->len <= y->len;
}

/* A node on the merge's path: the sums of both sides below it so far. */
struct open_node {
	uint32_t joint;
	double sum[2];
	int has[2]; /* a stack of the side passes through it */
};

struct largest {
	double scale[2];
	double max[2];
};

/* The node at the end of path[0 .. depth] is done: weigh its change and
 * give its sums to its parent. */
static void close_node(struct open_node *path, uint32_t depth, struct largest *l)
{
	const struct open_node *n = &path[depth];
	for (int side = 0; side < 2; side++) {
		if (!n->has[side])
			continue;
		double delta = fabs(n->sum[side] - n->sum[1 - side] * l->scale[side]);
		if (delta > l->max[side])
			l->max[side] = delta;
	}
	for (int side = 0; side < 2; side++) {
		path[depth - 1].sum[side] += n->sum[side];
		path[depth - 1].has[side] |= n->has[side];
	}
}

int viewlib_stacks_largest_changes(const struct viewlib_stacks *a,
				   const struct viewlib_sorted_stacks *as,
				   const struct viewlib_stacks *b,
				   const struct viewlib_sorted_stacks *bs, double scale_a,
				   double scale_b, double *max_a, double *max_b,
				   struct perun_error *err)
{
	uint32_t *ajoint = malloc(((size_t)a->nnames + 1) * sizeof(*ajoint));
	uint32_t *bjoint = malloc(((size_t)b->nnames + 1) * sizeof(*bjoint));
	uint32_t depth_max = (a->depth > b->depth ? a->depth : b->depth) + 1;
	struct open_node *path = calloc(depth_max + 1, sizeof(*path));
	struct largest l = { { scale_a, scale_b }, { 0, 0 } };
	int rc = 0;
	if (!ajoint || !bjoint || !path || number_together(a, as, b, bs, ajoint, bjoint)) {
		rc = perun_error_set(err, PERUN_EGENERIC,
				     "out of memory comparing the call stacks");
		goto out;
	}
	const struct viewlib_stacks *sides[2] = { a, b };
	const struct viewlib_sorted_stacks *sorted[2] = { as, bs };
	const uint32_t *joints[2] = { ajoint, bjoint };
	uint32_t next[2] = { 0, 0 }, depth = 0; /* path[1 .. depth] is open */
	while (next[0] < as->n || next[1] < bs->n) {
		struct merged_stack head[2] = { { 0 }, { 0 } };
		/* Stacks in walk order are all over memory: their frames are
		 * fetched a few stacks ahead. */
		for (int side = 0; side < 2; side++) {
			const uint32_t *order = sorted[side]->order;
			uint32_t n = sorted[side]->n, i = next[side];
			if (i + 16 < n)
				__builtin_prefetch(&sides[side]->list[order[i + 16]]);
			if (i + 8 < n)
				__builtin_prefetch(sides[side]->frames.ids +
						   sides[side]->list[order[i + 8]].start);
		}
		for (int side = 0; side < 2; side++)
			if (next[side] < sorted[side]->n)
				head[side] = stack_at(sides[side], sorted[side], joints[side],
						      next[side]);
		int side = next[0] == as->n   ? 1
			   : next[1] == bs->n ? 0
					      : !walks_before(&head[0], &head[1]);
		const struct merged_stack *st = &head[side];
		next[side]++;
		uint32_t shared = 0;
		while (shared < depth && shared < st->len &&
		       path[shared + 1].joint == st->joint[st->ids[shared]])
			shared++;
		for (; depth > shared; depth--)
			close_node(path, depth, &l);
		for (; depth < st->len; depth++)
			path[depth + 1] =
				(struct open_node){ st->joint[st->ids[depth]], { 0, 0 }, { 0, 0 } };
		path[depth].sum[side] += st->weight;
		path[depth].has[side] = 1;
	}
	for (; depth > 0; depth--)
		close_node(path, depth, &l);
	*max_a = l.max[0];
	*max_b = l.max[1];
out:
	free(ajoint);
	free(bjoint);
	free(path);
	return rc;
}
