/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Call stacks of a profile as a call tree, for the flame graph and the
 * stack exports (see stacks.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "stacks.h"

static uint64_t hash_bytes(const char *p, size_t len)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

static uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

void viewlib_stacks_init(struct viewlib_stacks *s, uint32_t max_depth)
{
	memset(s, 0, sizeof(*s));
	s->max_depth = max_depth;
}

void viewlib_stacks_release(struct viewlib_stacks *s)
{
	for (uint32_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->name_lens);
	free(s->name_heads);
	free(s->name_slots);
	free(s->nodes);
	free(s->links);
	free(s->edges);
	free(s->children);
	free(s->events);
	free(s->frames.ids);
	free(s->list);
	memset(s, 0, sizeof(*s));
}

static int grow_to(void **p, uint32_t *alloc, uint32_t need, size_t size)
{
	/* In 64 bits: doubling past 2^31 would wrap to 0. */
	uint64_t n = *alloc ? (uint64_t)*alloc * 2 : 64;
	while (n < need)
		n *= 2;
	if (n > UINT32_MAX)
		n = UINT32_MAX;
	void *q = realloc(*p, (size_t)n * size);
	if (!q)
		return -1;
	perun_advise_huge_pages(q, (size_t)n * size);
	*p = q;
	*alloc = (uint32_t)n;
	return 0;
}

/* Room for need elements of size at *p: the check inline, as it is made
 * for each frame and node. */
static inline int grow(void **p, uint32_t *alloc, uint32_t need, size_t size)
{
	return need <= *alloc ? 0 : grow_to(p, alloc, need, size);
}

static int names_rehash(struct viewlib_stacks *s)
{
	uint32_t size = s->name_mask ? (s->name_mask + 1) * 2 : 1024;
	struct viewlib_name_slot *slots = calloc(size, sizeof(*slots));
	if (!slots)
		return -1;
	for (uint32_t i = 0; s->name_slots && i <= s->name_mask; i++) {
		if (!s->name_slots[i].id)
			continue;
		uint32_t j = s->name_slots[i].hash & (size - 1);
		while (slots[j].id)
			j = (j + 1) & (size - 1);
		slots[j] = s->name_slots[i];
	}
	free(s->name_slots);
	s->name_slots = slots;
	s->name_mask = size - 1;
	return 0;
}

/*
 * A name's first 15 bytes, zero-padded, and its length (capped at 255) in
 * the last byte: equal heads of names up to 15 bytes mean equal names, so
 * the lookup of most frames compares its slot and head and nothing else.
 * Returns the name's hash.
 */
static uint32_t name_head(const char *name, size_t len, uint64_t head[2])
{
	size_t n = len < 15 ? len : 15;
	uint64_t lo = 0, hi = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Its bytes in a few loads, none past its end: overlapping ones for
	 * what does not fill a word. */
	if (n >= 8) {
		memcpy(&lo, name, 8);
		if (n > 8) {
			uint64_t t;
			memcpy(&t, name + n - 8, 8);
			hi = t >> (8 * (16 - n));
		}
	} else if (n >= 4) {
		uint32_t a, b;
		memcpy(&a, name, 4);
		memcpy(&b, name + n - 4, 4);
		lo = a | (uint64_t)b << (8 * (n - 4));
	} else if (n) {
		lo = (uint64_t)(unsigned char)name[0] |
		     (uint64_t)(unsigned char)name[n / 2] << (8 * (n / 2)) |
		     (uint64_t)(unsigned char)name[n - 1] << (8 * (n - 1));
	}
#else
	for (size_t i = 0; i < n; i++)
		*(i < 8 ? &lo : &hi) |= (uint64_t)(unsigned char)name[i] << (8 * (i % 8));
#endif
	head[0] = lo;
	head[1] = hi | (uint64_t)(len < 255 ? len : 255) << 56;
	/* Its hash: the head mixed, and the bytes beyond it. */
	uint64_t h = hash_u64(head[0] ^ hash_u64(head[1] + 0x9e3779b97f4a7c15ull));
	if (len > 15)
		h ^= hash_bytes(name + 15, len - 15);
	return (uint32_t)h;
}

/* The id of name, or VIEWLIB_STACKS_NONE and in *slot where it would go. */
static uint32_t name_find(const struct viewlib_stacks *s, const char *name, size_t len,
			  uint32_t hash, const uint64_t head[2], uint32_t *slot)
{
	if (!s->name_slots)
		return VIEWLIB_STACKS_NONE;
	uint32_t i = hash & s->name_mask;
	for (; s->name_slots[i].id; i = (i + 1) & s->name_mask) {
		const struct viewlib_name_slot *n = &s->name_slots[i];
		uint32_t id = n->id - 1;
		if (n->hash == hash && s->name_heads[id][0] == head[0] &&
		    s->name_heads[id][1] == head[1] &&
		    (len < 16 ||
		     (s->name_lens[id] == len && !memcmp(s->names[id] + 15, name + 15, len - 15))))
			return id;
	}
	if (slot)
		*slot = i;
	return VIEWLIB_STACKS_NONE;
}

uint32_t viewlib_stacks_lookup(const struct viewlib_stacks *s, const char *name)
{
	size_t len = strlen(name);
	uint64_t head[2];
	uint32_t hash = name_head(name, len, head);
	return name_find(s, name, len, hash, head, NULL);
}

uint32_t viewlib_stacks_intern(struct viewlib_stacks *s, const char *name, size_t len)
{
	uint64_t head[2];
	uint32_t slot = 0, hash = name_head(name, len, head);
	uint32_t id = name_find(s, name, len, hash, head, &slot);
	if (id != VIEWLIB_STACKS_NONE)
		return id;
	if (!s->name_slots || (s->nnames + 1) * 2 > s->name_mask + 1) {
		if (names_rehash(s))
			return VIEWLIB_STACKS_NONE;
		name_find(s, name, len, hash, head, &slot);
	}
	uint32_t alloc = s->names_alloc, heads_alloc = s->names_alloc;
	if (grow((void **)&s->names, &s->names_alloc, s->nnames + 1, sizeof(char *)) ||
	    grow((void **)&s->name_lens, &alloc, s->nnames + 1, sizeof(uint32_t)) ||
	    grow((void **)&s->name_heads, &heads_alloc, s->nnames + 1, sizeof(*s->name_heads)))
		return VIEWLIB_STACKS_NONE;
	char *copy = malloc(len + 1);
	if (!copy)
		return VIEWLIB_STACKS_NONE;
	memcpy(copy, name, len);
	copy[len] = '\0';
	s->names[s->nnames] = copy;
	s->name_lens[s->nnames] = (uint32_t)len;
	s->name_heads[s->nnames][0] = head[0];
	s->name_heads[s->nnames][1] = head[1];
	s->name_slots[slot] = (struct viewlib_name_slot){ hash, s->nnames + 1 };
	return s->nnames++;
}

static uint32_t edge_hash(uint32_t parent, uint32_t frame)
{
	return (uint32_t)hash_u64(((uint64_t)parent << 32) | frame);
}

static int edges_rehash(struct viewlib_stacks *s)
{
	uint32_t size = s->edge_mask ? (s->edge_mask + 1) * 2 : 1024;
	struct viewlib_stack_edge *edges = calloc(size, sizeof(*edges));
	if (!edges)
		return -1;
	perun_advise_huge_pages(edges, (size_t)size * sizeof(*edges));
	for (uint32_t i = 0; s->edges && i <= s->edge_mask; i++) {
		const struct viewlib_stack_edge *e = &s->edges[i];
		if (!e->parent)
			continue;
		uint32_t j = edge_hash(e->parent, e->frame) & (size - 1);
		while (edges[j].parent)
			j = (j + 1) & (size - 1);
		edges[j] = *e;
	}
	free(s->edges);
	s->edges = edges;
	s->edge_mask = size - 1;
	return 0;
}

/* The slot of (parent, frame) in the edge table, or the free one where it
 * would go. */
static struct viewlib_stack_edge *edge_slot(const struct viewlib_stacks *s, uint32_t parent,
					    uint32_t frame)
{
	uint32_t i = edge_hash(parent + 1, frame) & s->edge_mask;
	while (s->edges[i].parent &&
	       (s->edges[i].parent != parent + 1 || s->edges[i].frame != frame))
		i = (i + 1) & s->edge_mask;
	return &s->edges[i];
}

uint32_t viewlib_stacks_child(const struct viewlib_stacks *s, uint32_t node, uint32_t frame)
{
	if (frame == VIEWLIB_STACKS_NONE || node >= s->nnodes || !s->links)
		return VIEWLIB_STACKS_NONE;
	const struct viewlib_stack_link *link = &s->links[node];
	if (link->eldest == VIEWLIB_STACKS_NONE || link->frame == frame)
		return link->eldest;
	if (!s->edges)
		return VIEWLIB_STACKS_NONE;
	const struct viewlib_stack_edge *e = edge_slot(s, node, frame);
	return e->parent ? e->child : VIEWLIB_STACKS_NONE;
}

/* Room for need nodes and their links. */
static int grow_nodes(struct viewlib_stacks *s, uint32_t need)
{
	uint32_t alloc = s->nodes_alloc;
	return grow((void **)&s->nodes, &s->nodes_alloc, need, sizeof(*s->nodes)) ||
	       grow((void **)&s->links, &alloc, need, sizeof(*s->links));
}

static int ensure_root(struct viewlib_stacks *s)
{
	if (s->nnodes)
		return 0;
	if (grow_nodes(s, 1))
		return -1;
	s->nodes[0] = (struct viewlib_stack_node){ .frame = VIEWLIB_STACKS_NONE,
						   .parent = VIEWLIB_STACKS_NONE };
	s->links[0] = (struct viewlib_stack_link){ VIEWLIB_STACKS_NONE, VIEWLIB_STACKS_NONE };
	s->nnodes = 1;
	return 0;
}

/*
 * The child of parent with frame, created when new; a parent at max_depth
 * stands for everything below it.  A parent's eldest child is linked from
 * it and made right after it along a new stack, so the long unshared tails
 * of big profiles are walked and built without touching the edge table;
 * only younger siblings go there.
 */
static uint32_t child_get_or_add(struct viewlib_stacks *s, uint32_t parent, uint32_t frame)
{
	if (s->max_depth && s->nodes[parent].depth >= s->max_depth)
		return parent;
	struct viewlib_stack_link link = s->links[parent];
	if (link.eldest != VIEWLIB_STACKS_NONE && link.frame == frame)
		return link.eldest;
	struct viewlib_stack_edge *e = NULL;
	if (link.eldest != VIEWLIB_STACKS_NONE) {
		if ((!s->edges || (s->nedges + 1) * 2 > s->edge_mask + 1) && edges_rehash(s))
			return VIEWLIB_STACKS_NONE;
		e = edge_slot(s, parent, frame);
		if (e->parent)
			return e->child;
	}
	if (grow_nodes(s, s->nnodes + 1))
		return VIEWLIB_STACKS_NONE;
	uint32_t id = s->nnodes++;
	uint32_t depth = s->nodes[parent].depth + 1;
	s->nodes[id] =
		(struct viewlib_stack_node){ .frame = frame, .parent = parent, .depth = depth };
	s->links[id] = (struct viewlib_stack_link){ VIEWLIB_STACKS_NONE, VIEWLIB_STACKS_NONE };
	if (depth > s->depth)
		s->depth = depth;
	if (e) {
		*e = (struct viewlib_stack_edge){ parent + 1, frame, id };
		s->nedges++;
	} else {
		s->links[parent] = (struct viewlib_stack_link){ id, frame };
	}
	return id;
}

/* ---- reading profiles ------------------------------------------------ */

/* Perun's flattened text of v, interned (the rare frames and uids that are
 * neither strings nor kperf's or the tracer's frames). */
static uint32_t intern_flattened(struct viewlib_stacks *s, const struct perun_jv *v)
{
	json_t *tree = perun_jv_to_json(v);
	char *text = tree ? perun_value_flatten_dup(tree) : NULL;
	uint32_t id = text ? viewlib_stacks_intern(s, text, strlen(text)) : VIEWLIB_STACKS_NONE;
	free(text);
	json_decref(tree);
	return id;
}

/* Perun's text of a frame or uid (convert.to_string_line). */
static uint32_t intern_value(struct viewlib_stacks *s, const struct perun_jv *v)
{
	if (perun_jv_is_string(v))
		return viewlib_stacks_intern(s, v->u.s, perun_jv_len(v));
	/* kperf frames, millions of them in big profiles: one compare. */
	if (perun_jv_type(v) == PERUN_JV_OBJECT && perun_jv_len(v) == 1 &&
	    perun_jv_len(v + 1) == 4 && !memcmp(v[1].u.s, "func", 4) && perun_jv_is_string(v + 2))
		return viewlib_stacks_intern(s, v[2].u.s, perun_jv_len(v + 2));
	const struct perun_jv *func = perun_jv_get(v, "func");
	const struct perun_jv *fn = perun_jv_get(v, "function");
	const struct perun_jv *src = perun_jv_get(v, "source");
	const struct perun_jv *line = perun_jv_get(v, "line");
	if (fn && src && line) {
		char buf[512];
		int len = -1;
		if (perun_jv_is_string(fn) && perun_jv_is_string(src) &&
		    perun_jv_type(line) == PERUN_JV_INTEGER)
			len = snprintf(buf, sizeof(buf), "%s()~%s~%lld", fn->u.s, src->u.s,
				       (long long)line->u.i);
		if (len > 0 && (size_t)len < sizeof(buf))
			return viewlib_stacks_intern(s, buf, (size_t)len);
		json_t *trees[3] = { perun_jv_to_json(fn), perun_jv_to_json(src),
				     perun_jv_to_json(line) };
		char *texts[3] = { NULL, NULL, NULL }, *text = NULL;
		for (int i = 0; i < 3; i++)
			texts[i] = trees[i] ? perun_value_flatten_dup(trees[i]) : NULL;
		if (texts[0] && texts[1] && texts[2]) {
			size_t n = strlen(texts[0]) + strlen(texts[1]) + strlen(texts[2]) + 5;
			if ((text = malloc(n)))
				snprintf(text, n, "%s()~%s~%s", texts[0], texts[1], texts[2]);
		}
		uint32_t id =
			text ? viewlib_stacks_intern(s, text, strlen(text)) : VIEWLIB_STACKS_NONE;
		free(text);
		for (int i = 0; i < 3; i++) {
			free(texts[i]);
			json_decref(trees[i]);
		}
		return id;
	}
	if (perun_jv_is_string(func))
		return viewlib_stacks_intern(s, func->u.s, perun_jv_len(func));
	return intern_flattened(s, v);
}

static int push_frame(struct viewlib_frame_buf *fb, uint32_t id)
{
	if (id == VIEWLIB_STACKS_NONE || fb->n == UINT32_MAX ||
	    grow((void **)&fb->ids, &fb->alloc, fb->n + 1, sizeof(*fb->ids)))
		return -1;
	fb->ids[fb->n++] = id;
	return 0;
}

static double column_sum(const struct perun_jv *col)
{
	double sum = 0, v;
	size_t i;
	const struct perun_jv *x;
	perun_jv_array_foreach(col, i, x) if (!perun_jv_number(x, &v) && isfinite(v)) sum += v;
	return sum;
}

/*
 * Stacks queued to be added side by side: each step of one stack down the
 * tree prefetches what its next step reads, and the steps of the other
 * stacks wait the fetch out.  A million-stack profile walks a tree far
 * bigger than the caches; one stack at a time would wait for every level.
 */
#define QUEUED_STACKS 16

struct stack_queue {
	struct viewlib_frame_buf frames; /* the queued stacks' frames, root first */
	uint32_t start[QUEUED_STACKS + 1];
	double weight[QUEUED_STACKS];
	uint32_t n;
};

static int add_queued(struct viewlib_stacks *s, struct stack_queue *q)
{
	uint32_t node[QUEUED_STACKS], at[QUEUED_STACKS];
	if (!q->n)
		return 0;
	if (ensure_root(s))
		return -1;
	for (uint32_t k = 0; k < q->n; k++) {
		node[k] = 0;
		at[k] = q->start[k];
	}
	for (uint32_t left = q->n; left;) {
		left = 0;
		for (uint32_t k = 0; k < q->n; k++) {
			if (at[k] == q->start[k + 1])
				continue;
			uint32_t next = child_get_or_add(s, node[k], q->frames.ids[at[k]++]);
			if (next == VIEWLIB_STACKS_NONE)
				return -1;
			node[k] = next;
			if (at[k] < q->start[k + 1]) {
				__builtin_prefetch(&s->links[next]);
				/* In case next's eldest is not the one. */
				if (s->edges)
					__builtin_prefetch(
						&s->edges[edge_hash(next + 1,
								    q->frames.ids[at[k]]) &
							  s->edge_mask]);
				left++;
			}
		}
	}
	for (uint32_t k = 0; k < q->n; k++) {
		s->nodes[node[k]].self += q->weight[k];
		s->nstacks++;
	}
	q->n = 0;
	q->frames.n = 0;
	return 0;
}

/* A traced resource type's weight: its amounts, or the --of key, a
 * persistent number (e.g. an aggregated memory profile's count) counted
 * once per row; 0 without it. */
static double weigh(const struct viewlib_stacks *s, const struct perun_jv *pers,
		    const struct perun_jv *amount)
{
	if (!s->weight || !strcmp(s->weight, "amount"))
		return column_sum(amount);
	const struct perun_jv *v = perun_jv_get(pers, s->weight);
	double rows = (double)perun_jv_len(amount);
	if (v && perun_jv_type(v) == PERUN_JV_INTEGER)
		return (double)v->u.i * rows;
	if (v && perun_jv_type(v) == PERUN_JV_REAL)
		return v->u.d * rows;
	return 0;
}

/* The frames from first on as a stack of the list, cut after max_depth
 * frames as the tree cuts it. */
static int list_stack(struct viewlib_stacks *s, uint32_t first, double weight)
{
	if (grow((void **)&s->list, &s->list_alloc, s->nlisted + 1, sizeof(*s->list)))
		return -1;
	if (s->max_depth && s->frames.n - first > s->max_depth)
		s->frames.n = first + s->max_depth;
	uint32_t len = s->frames.n - first;
	s->list[s->nlisted++] = (struct viewlib_listed_stack){ first, len, weight };
	if (len > s->depth)
		s->depth = len;
	return 0;
}

/* The listed stacks added to the tree, in the order read, and the list
 * dropped: for profiles that need the tree after all. */
static int tree_of_list(struct viewlib_stacks *s, struct stack_queue *q)
{
	s->depth = 0;
	for (uint32_t i = 0; i < s->nlisted; i++) {
		const struct viewlib_listed_stack *st = &s->list[i];
		for (uint32_t k = 0; k < st->len; k++)
			if (push_frame(&q->frames, s->frames.ids[st->start + k]))
				return -1;
		q->weight[q->n] = st->weight;
		q->start[++q->n] = q->frames.n;
		if (q->n == QUEUED_STACKS && add_queued(s, q))
			return -1;
	}
	viewlib_stacks_drop_list(s);
	return add_queued(s, q);
}

/* A resource type with a "trace": one stack weighing all its amounts. */
static int add_traced(struct viewlib_stacks *s, const struct perun_jv *pers,
		      const struct perun_jv *trace, const struct perun_jv *amount, int root_first,
		      struct stack_queue *q)
{
	const struct perun_jv *subtype = perun_jv_get(pers, "subtype");
	if (perun_jv_is_string(subtype) && !strcmp(subtype->u.s, "free"))
		return 0;
	const struct perun_jv *uid = perun_jv_get(pers, "uid"), *frame;
	struct viewlib_frame_buf *fb = s->listed ? &s->frames : &q->frames;
	uint32_t first = fb->n;
	size_t n = perun_jv_len(trace), i;
	if (root_first) {
		perun_jv_array_foreach(trace, i,
				       frame) if (push_frame(fb, intern_value(s, frame))) return -1;
		if (uid && push_frame(fb, intern_value(s, uid)))
			return -1;
	} else {
		/* Leaf first: frames in the order read, then reversed. */
		perun_jv_array_foreach(trace, i,
				       frame) if (push_frame(fb, intern_value(s, frame))) return -1;
		for (uint32_t a = first, b = fb->n; a + 1 < b; a++, b--) {
			uint32_t t = fb->ids[a];
			fb->ids[a] = fb->ids[b - 1];
			fb->ids[b - 1] = t;
		}
		if (!n && uid && push_frame(fb, intern_value(s, uid)))
			return -1;
	}
	if (fb->n == first)
		return 0;
	if (s->listed)
		return list_stack(s, first, weigh(s, pers, amount));
	q->weight[q->n] = weigh(s, pers, amount);
	q->start[++q->n] = fb->n;
	return q->n == QUEUED_STACKS ? add_queued(s, q) : 0;
}

/* Calls of a trace profile: queued with their uid's name id in .node. */
static int queue_calls(struct viewlib_stacks *s, const struct perun_jv *pers,
		       const struct perun_jv *cols, const struct perun_jv *amount)
{
	const struct perun_jv *ts = perun_jv_get(cols, "timestamp");
	const struct perun_jv *uid = perun_jv_get(pers, "uid");
	if (!ts || perun_jv_type(ts) != PERUN_JV_ARRAY || !uid)
		return 0;
	const struct perun_jv *tid = perun_jv_get(pers, "tid");
	int64_t t = tid && perun_jv_type(tid) == PERUN_JV_INTEGER ? tid->u.i : 0;
	uint32_t frame = intern_value(s, uid);
	if (frame == VIEWLIB_STACKS_NONE)
		return -1;
	size_t n =
		perun_jv_len(ts) < perun_jv_len(amount) ? perun_jv_len(ts) : perun_jv_len(amount);
	const struct perun_jv *start_v = ts + 1, *dur_v = amount + 1;
	for (size_t i = 0; i < n;
	     i++, start_v = perun_jv_skip(start_v), dur_v = perun_jv_skip(dur_v)) {
		double start, dur;
		if (perun_jv_number(start_v, &start) || perun_jv_number(dur_v, &dur) ||
		    !isfinite(start) || !isfinite(dur) || dur < 0)
			continue;
		if (s->nevents == s->events_alloc) {
			size_t na = s->events_alloc ? s->events_alloc * 2 : 1024;
			void *p = realloc(s->events, na * sizeof(*s->events));
			if (!p)
				return -1;
			s->events = p;
			s->events_alloc = na;
		}
		s->events[s->nevents++] = (struct viewlib_stack_event){
			.tid = t, .start = start, .dur = dur, .node = frame
		};
	}
	return 0;
}

static int event_cmp(const void *a, const void *b)
{
	const struct viewlib_stack_event *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* The enclosing call first when two start together. */
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/*
 * Nest the calls of each thread: a call is inside the innermost open call
 * that ends after it starts.  Its exclusive time is what its callees leave.
 */
static int nest_calls(struct viewlib_stacks *s)
{
	if (!s->nevents)
		return 0;
	qsort(s->events, s->nevents, sizeof(*s->events), event_cmp);
	size_t *open = malloc(s->nevents * sizeof(*open));
	double *self = malloc(s->nevents * sizeof(*self));
	int rc = -1;
	if (!open || !self || ensure_root(s))
		goto out;
	size_t depth = 0;
	for (size_t i = 0; i < s->nevents; i++) {
		struct viewlib_stack_event *e = &s->events[i];
		while (depth) {
			struct viewlib_stack_event *top = &s->events[open[depth - 1]];
			if (top->tid == e->tid && e->start < top->start + top->dur)
				break;
			s->nodes[top->node].self +=
				self[open[depth - 1]] > 0 ? self[open[depth - 1]] : 0;
			depth--;
		}
		uint32_t parent = depth ? s->events[open[depth - 1]].node : 0;
		uint32_t node = child_get_or_add(s, parent, e->node);
		if (node == VIEWLIB_STACKS_NONE)
			goto out;
		if (depth)
			self[open[depth - 1]] -= e->dur;
		e->node = node;
		self[i] = e->dur;
		open[depth++] = i;
		s->nstacks++;
	}
	while (depth) {
		size_t k = open[--depth];
		s->nodes[s->events[k].node].self += self[k] > 0 ? self[k] : 0;
	}
	s->timed = 1;
	rc = 0;
out:
	free(open);
	free(self);
	return rc;
}

static const char *unit_of(const struct perun_profile *profile)
{
	const json_t *header = perun_profile_get(profile, "header");
	const json_t *units = json_object_get(header, "units");
	const json_t *type = json_object_get(header, "type");
	const json_t *u =
		json_is_string(type) ? json_object_get(units, json_string_value(type)) : NULL;
	if (!json_is_string(u) && json_is_object(units)) {
		const char *k;
		const json_t *v;
		json_object_foreach((json_t *)units, k, v)
		{
			if (json_is_string(v)) {
				u = v;
				break;
			}
		}
	}
	return json_is_string(u) ? json_string_value(u) : "";
}

struct stacks_reading {
	struct viewlib_stacks *s;
	int root_first;
	struct stack_queue queue;
};

static int read_type(const char *type_id, const struct perun_jv *pers, const struct perun_jv *cols,
		     void *data)
{
	struct stacks_reading *r = data;
	(void)type_id;
	const struct perun_jv *amount = perun_jv_get(cols, "amount");
	if (!amount || perun_jv_type(amount) != PERUN_JV_ARRAY || !perun_jv_len(amount))
		return 0;
	const struct perun_jv *trace = perun_jv_get(pers, "trace");
	int rc = trace && perun_jv_type(trace) == PERUN_JV_ARRAY
			 ? add_traced(r->s, pers, trace, amount, r->root_first, &r->queue)
			 : queue_calls(r->s, pers, cols, amount);
	return rc ? 1 : 0;
}

int viewlib_stacks_unlist(struct viewlib_stacks *s, struct perun_error *err)
{
	struct stack_queue q = { 0 };
	if (!s->listed)
		return 0;
	s->nstacks = 0; /* add_queued counts them again */
	int failed = tree_of_list(s, &q);
	free(q.frames.ids);
	if (failed)
		return perun_error_set(err, PERUN_EGENERIC,
				       "out of memory reading the call stacks");
	return viewlib_stacks_finish(s, err);
}

int viewlib_stacks_from_profile(struct viewlib_stacks *s, const struct perun_profile *profile,
				struct perun_error *err)
{
	struct stacks_reading r = { .s = s,
				    .root_first =
					    !strcmp(perun_profile_collector(profile), "kperf") };
	int rc = 0;
	s->unit = unit_of(profile);
	if (ensure_root(s))
		goto oom;
	rc = perun_profile_foreach_type(profile, read_type, &r, err);
	if (rc > 0 || (!rc && add_queued(s, &r.queue)))
		goto oom;
	if (rc)
		goto out;
	if (s->listed && s->nevents && tree_of_list(s, &r.queue))
		goto oom;
	if (s->listed)
		s->nstacks = s->nlisted;
	else if (nest_calls(s))
		goto oom;
	if (!s->nstacks) {
		rc = perun_error_set(err, PERUN_EINVAL,
				     "the profile has no call stacks (resources with a 'trace', "
				     "or calls with a 'timestamp' as the trace collector records)");
		goto out;
	}
	rc = s->listed ? 0 : viewlib_stacks_finish(s, err);
	goto out;
oom:
	rc = perun_error_set(err, PERUN_EGENERIC, "out of memory reading the call stacks");
out:
	free(r.queue.frames.ids);
	return rc;
}

static int read_view(struct viewlib_stacks *s, const struct perun_profile *profile,
		     const struct perun_params *params, int listed, struct perun_error *err)
{
	long long max = perun_params_int(params, "max-trace", 0);
	viewlib_stacks_init(s, 0);
	if (max < 0 || max > UINT32_MAX)
		return perun_error_set(err, PERUN_EINVAL, "--max-trace %lld: not 0 or more", max);
	s->max_depth = (uint32_t)max;
	s->weight = perun_params_string(params, "of", NULL);
	s->listed = listed;
	return viewlib_stacks_from_profile(s, profile, err);
}

int viewlib_stacks_from_view(struct viewlib_stacks *s, const struct perun_profile *profile,
			     const struct perun_params *params, struct perun_error *err)
{
	return read_view(s, profile, params, 0, err);
}

int viewlib_stacks_list_from_view(struct viewlib_stacks *s, const struct perun_profile *profile,
				  const struct perun_params *params, struct perun_error *err)
{
	return read_view(s, profile, params, 1, err);
}

/* ---- finishing ---------------------------------------------------------- */

struct named {
	const char *name;
	uint32_t id;
};

static int named_cmp(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

/* rank[id]: the place of name id among the names in strcmp order (the
 * caller frees); NULL without memory. */
static uint32_t *name_ranks(const struct viewlib_stacks *s)
{
	struct named *byname = malloc((s->nnames + 1) * sizeof(*byname));
	uint32_t *rank = malloc((s->nnames + 1) * sizeof(*rank));
	if (!byname || !rank) {
		free(byname);
		free(rank);
		return NULL;
	}
	for (uint32_t i = 0; i < s->nnames; i++)
		byname[i] = (struct named){ s->names[i], i };
	qsort(byname, s->nnames, sizeof(*byname), named_cmp);
	for (uint32_t i = 0; i < s->nnames; i++)
		rank[byname[i].id] = i;
	free(byname);
	return rank;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sort n keys: most nodes have a few children, sorted in place. */
static void sort_keys(uint64_t *keys, uint32_t n)
{
	if (n > 16) {
		qsort(keys, n, sizeof(*keys), u64_cmp);
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		uint64_t k = keys[i];
		uint32_t j = i;
		for (; j && keys[j - 1] > k; j--)
			keys[j] = keys[j - 1];
		keys[j] = k;
	}
}

void viewlib_stacks_drop_list(struct viewlib_stacks *s)
{
	free(s->frames.ids);
	free(s->list);
	s->frames = (struct viewlib_frame_buf){ NULL, 0, 0 };
	s->list = NULL;
	s->nlisted = s->list_alloc = 0;
	s->listed = 0;
}

void viewlib_stacks_drop_lookup(struct viewlib_stacks *s)
{
	free(s->links);
	free(s->edges);
	s->links = NULL;
	s->edges = NULL;
	s->edge_mask = s->nedges = 0;
}

int viewlib_stacks_in_walk_order(const struct viewlib_stacks *s, struct viewlib_stack_step **out,
				 struct perun_error *err)
{
	uint32_t n = s->nnodes;
	uint32_t *size = malloc(((size_t)n + 1) * sizeof(*size)); /* of subtrees */
	uint32_t *pre = malloc(((size_t)n + 1) * sizeof(*pre));	  /* walk places */
	struct viewlib_stack_step *steps = NULL;
	if (!size || !pre)
		goto oom;
	for (uint32_t i = 0; i < n; i++)
		size[i] = 1;
	for (uint32_t i = n; i-- > 1;)
		size[s->nodes[i].parent] += size[i];
	/* Parents come before their children: a pass in that order meets
	 * every node placed, and places its children after it, each past the
	 * subtrees of its elder siblings. */
	pre[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t next = pre[i] + 1, nc;
		const uint32_t *c = viewlib_stacks_children(s, i, &nc);
		for (uint32_t k = 0; k < nc; k++) {
			pre[c[k]] = next;
			next += size[c[k]];
		}
	}
	free(size);
	size = NULL;
	/* One pass over the nodes, front to back; its scattered writes do
	 * not wait on each other. */
	if (!(steps = malloc(((size_t)n + 1) * sizeof(*steps))))
		goto oom;
	for (uint32_t i = 0; i < n; i++)
		steps[pre[i]] = (struct viewlib_stack_step){ s->nodes[i].self, s->nodes[i].frame,
							     s->nodes[i].depth };
	free(pre);
	*out = steps;
	return 0;
oom:
	free(size);
	free(pre);
	return perun_error_set(err, PERUN_EGENERIC, "out of memory ordering the call stacks");
}

/* A listed stack being sorted: key holds the ranks + 1 of some of its
 * frames, the first in the high bits, 0 past its end. */
struct listed_key {
	uint64_t key;
	uint32_t stack;
};

/*
 * Sort k[0..n) by key, equal keys in the order given: by the bytes of the
 * keys from the lowest (those all keys share are skipped), through tmp
 * (room for n); a few keys by insertion.
 */
static void sort_keys_stable(struct listed_key *k, struct listed_key *tmp, size_t n)
{
	if (n < 32) {
		for (size_t i = 1; i < n; i++) {
			struct listed_key x = k[i];
			size_t j = i;
			for (; j && k[j - 1].key > x.key; j--)
				k[j] = k[j - 1];
			k[j] = x;
		}
		return;
	}
	uint64_t differ = 0;
	for (size_t i = 1; i < n; i++)
		differ |= k[i].key ^ k[0].key;
	struct listed_key *from = k, *to = tmp;
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t count[256] = { 0 };
		if (!((differ >> shift) & 0xff))
			continue;
		for (size_t i = 0; i < n; i++)
			count[(from[i].key >> shift) & 0xff]++;
		for (size_t b = 0, sum = 0; b < 256; b++) {
			size_t c = count[b];
			count[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			to[count[(from[i].key >> shift) & 0xff]++] = from[i];
		struct listed_key *t = from;
		from = to;
		to = t;
	}
	if (from != k)
		memcpy(k, from, n * sizeof(*k));
}

struct list_sort {
	const struct viewlib_stacks *s;
	const uint32_t *rank;
	struct listed_key *tmp; /* room for every stack */
	unsigned bits, per;	/* of a rank in a key; frames a key holds */
	uint64_t last;		/* the bits of a key's last frame */
};

/*
 * Sort the stacks k[0..n), in the order read, whose frames before at are
 * equal: by a key of their next per frames, then each run of equal keys
 * by the frames after (a radix sort from the root, per frames a digit;
 * the sorts are stable, so equal stacks stay in the order read).  Keys
 * are built a run at a time, reading the stacks in the order read: no
 * comparison reads the frames, which are far bigger than the caches.
 */
static void sort_listed(const struct list_sort *ls, struct listed_key *k, size_t n, uint32_t at)
{
	const struct viewlib_stacks *s = ls->s;
	/* The biggest run is sorted on here, the others by a call: a call
	 * sorts at most half the stacks, so calls nest at most log2(n)
	 * deep, however deep the stacks are. */
	while (n > 1) {
		size_t big = 0, nbig = 0;
		for (size_t i = 0; i < n; i++) {
			const struct viewlib_listed_stack *st = &s->list[k[i].stack];
			const uint32_t *ids = s->frames.ids + st->start;
			uint64_t key = 0;
			for (uint32_t d = at; d < at + ls->per; d++)
				key = key << ls->bits |
				      (d < st->len ? (uint64_t)ls->rank[ids[d]] + 1 : 0);
			k[i].key = key;
		}
		sort_keys_stable(k, ls->tmp, n);
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && k[j].key == k[i].key; j++)
				;
			/* A run of stacks that go on past these frames. */
			if (j - i < 2 || !(k[i].key & ls->last))
				continue;
			if (j - i > nbig) {
				if (nbig)
					sort_listed(ls, k + big, nbig, at + ls->per);
				big = i;
				nbig = j - i;
			} else {
				sort_listed(ls, k + i, j - i, at + ls->per);
			}
		}
		k += big;
		n = nbig;
		at += ls->per;
	}
}

int viewlib_stacks_sort_list(const struct viewlib_stacks *s, uint32_t **out, uint32_t **rank,
			     struct perun_error *err)
{
	struct list_sort ls = {
		s, name_ranks(s), malloc(((size_t)s->nlisted + 1) * sizeof(*ls.tmp)), 1, 0, 0
	};
	struct listed_key *k = malloc(((size_t)s->nlisted + 1) * sizeof(*k));
	uint32_t *order = malloc(((size_t)s->nlisted + 1) * sizeof(*order));
	if (!ls.rank || !ls.tmp || !k || !order) {
		free((void *)ls.rank);
		free(ls.tmp);
		free(k);
		free(order);
		return perun_error_set(err, PERUN_EGENERIC,
				       "out of memory sorting the call stacks");
	}
	/* Ranks + 1 go up to nnames. */
	while (ls.bits < 32 && ((uint64_t)1 << ls.bits) <= s->nnames)
		ls.bits++;
	ls.per = 64 / ls.bits;
	ls.last = ((uint64_t)1 << ls.bits) - 1;
	for (uint32_t i = 0; i < s->nlisted; i++)
		k[i] = (struct listed_key){ 0, i };
	sort_listed(&ls, k, s->nlisted, 0);
	for (uint32_t i = 0; i < s->nlisted; i++)
		order[i] = k[i].stack;
	if (rank)
		*rank = (uint32_t *)ls.rank;
	else
		free((void *)ls.rank);
	free(ls.tmp);
	free(k);
	*out = order;
	return 0;
}

int viewlib_stacks_finish(struct viewlib_stacks *s, struct perun_error *err)
{
	uint32_t *rank = name_ranks(s);
	/* Children as (rank of their name, node), placed under their parent
	 * in one pass over the nodes: sorting them then reads no node. */
	uint64_t *order = malloc((s->nnodes + 1) * sizeof(*order));
	int rc = 0;
	free(s->children);
	s->children = NULL;
	if (!rank || !order || ensure_root(s))
		goto oom;
	perun_advise_huge_pages(order, (s->nnodes + 1) * sizeof(*order));
	for (uint32_t i = 0; i < s->nnodes; i++) {
		s->nodes[i].total = s->nodes[i].self;
		s->nodes[i].nchildren = 0;
	}
	/* Children are created after their parents: one backward pass sums. */
	for (uint32_t i = s->nnodes; i-- > 1;) {
		s->nodes[s->nodes[i].parent].total += s->nodes[i].total;
		s->nodes[s->nodes[i].parent].nchildren++;
	}
	uint32_t off = 0;
	for (uint32_t i = 0; i < s->nnodes; i++) {
		s->nodes[i].first = off;
		off += s->nodes[i].nchildren;
		s->nodes[i].nchildren = 0;
	}
	for (uint32_t i = 1; i < s->nnodes; i++) {
		struct viewlib_stack_node *p = &s->nodes[s->nodes[i].parent];
		order[p->first + p->nchildren++] = (uint64_t)rank[s->nodes[i].frame] << 32 | i;
	}
	for (uint32_t i = 0; i < s->nnodes; i++)
		sort_keys(order + s->nodes[i].first, s->nodes[i].nchildren);
	/* The children's numbers, packed into order's own memory (the k-th
	 * is read before the 2k-th and 2k+1-th are written). */
	uint32_t *packed = (uint32_t *)order;
	for (uint32_t k = 0; k + 1 < s->nnodes; k++)
		packed[k] = (uint32_t)order[k];
	s->children = realloc(packed, ((size_t)s->nnodes + 1) * sizeof(*s->children));
	if (!s->children)
		s->children = packed;
	order = NULL;
	goto out;
oom:
	rc = perun_error_set(err, PERUN_EGENERIC, "out of memory sorting the call stacks");
out:
	free(rank);
	free(order);
	return rc;
}

int viewlib_stacks_walk(const struct viewlib_stacks *s, viewlib_stacks_visit_fn fn, void *data)
{
	uint32_t cap = s->depth + 2;
	uint32_t *path = malloc(cap * sizeof(*path)), *next = malloc(cap * sizeof(*next));
	double *off = malloc(cap * sizeof(*off));
	int rc = -PERUN_EGENERIC;
	if (!path || !next || !off)
		goto out;
	path[0] = 0;
	if ((rc = fn(s, 0, path, 0, 0, data)))
		goto out;
	int64_t level = 0;
	next[0] = 0;
	off[0] = 0;
	while (level >= 0) {
		uint32_t nc;
		const uint32_t *c = viewlib_stacks_children(s, level ? path[level - 1] : 0, &nc);
		if (next[level] == nc) {
			level--;
			continue;
		}
		uint32_t child = c[next[level]++];
		double at = off[level];
		off[level] += s->nodes[child].total;
		if (s->nodes[child].frame == VIEWLIB_STACKS_GAP)
			continue;
		path[level] = child;
		int r = fn(s, child, path, (uint32_t)level + 1, at, data);
		if (r < 0) {
			rc = r;
			goto out;
		}
		if (r == 0 && s->nodes[child].nchildren) {
			level++;
			next[level] = 0;
			off[level] = at;
		}
	}
	rc = 0;
out:
	if (rc > 0)
		rc = 0;
	free(path);
	free(next);
	free(off);
	return rc;
}

void viewlib_stacks_format_weight(double w, char out[32])
{
	if (w == floor(w) && fabs(w) < 9e15)
		snprintf(out, 32, "%.0f", w);
	else
		perun_python_float_str(w, out);
}
