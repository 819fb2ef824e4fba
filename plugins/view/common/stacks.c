/* SPDX-License-Identifier: GPL-3.0-or-later */
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

void perun_stacks_init(struct perun_stacks *s, uint32_t max_depth)
{
	memset(s, 0, sizeof(*s));
	s->max_depth = max_depth;
}

void perun_stacks_release(struct perun_stacks *s)
{
	for (uint32_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->name_slots);
	free(s->nodes);
	free(s->edge_keys);
	free(s->edge_vals);
	free(s->children);
	free(s->events);
	memset(s, 0, sizeof(*s));
}

static int grow(void **p, uint32_t *alloc, uint32_t need, size_t size)
{
	if (need <= *alloc)
		return 0;
	uint32_t n = *alloc ? *alloc * 2 : 64;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, (size_t)n * size);
	if (!q)
		return -1;
	*p = q;
	*alloc = n;
	return 0;
}

static int names_rehash(struct perun_stacks *s)
{
	uint32_t size = s->name_mask ? (s->name_mask + 1) * 2 : 1024;
	uint32_t *slots = calloc(size, sizeof(*slots));
	if (!slots)
		return -1;
	for (uint32_t id = 0; id < s->nnames; id++) {
		uint32_t i = (uint32_t)hash_bytes(s->names[id], strlen(s->names[id])) & (size - 1);
		while (slots[i])
			i = (i + 1) & (size - 1);
		slots[i] = id + 1;
	}
	free(s->name_slots);
	s->name_slots = slots;
	s->name_mask = size - 1;
	return 0;
}

static uint32_t name_find(const struct perun_stacks *s, const char *name, size_t len,
			  uint32_t *slot)
{
	if (!s->name_slots)
		return PERUN_STACKS_NONE;
	uint32_t i = (uint32_t)hash_bytes(name, len) & s->name_mask;
	for (; s->name_slots[i]; i = (i + 1) & s->name_mask) {
		const char *n = s->names[s->name_slots[i] - 1];
		if (!strncmp(n, name, len) && n[len] == '\0')
			return s->name_slots[i] - 1;
	}
	if (slot)
		*slot = i;
	return PERUN_STACKS_NONE;
}

uint32_t perun_stacks_lookup(const struct perun_stacks *s, const char *name)
{
	return name_find(s, name, strlen(name), NULL);
}

uint32_t perun_stacks_intern(struct perun_stacks *s, const char *name, size_t len)
{
	uint32_t slot = 0;
	uint32_t id = name_find(s, name, len, &slot);
	if (id != PERUN_STACKS_NONE)
		return id;
	if (!s->name_slots || (s->nnames + 1) * 2 > s->name_mask + 1) {
		if (names_rehash(s))
			return PERUN_STACKS_NONE;
		name_find(s, name, len, &slot);
	}
	if (grow((void **)&s->names, &s->names_alloc, s->nnames + 1, sizeof(char *)))
		return PERUN_STACKS_NONE;
	char *copy = malloc(len + 1);
	if (!copy)
		return PERUN_STACKS_NONE;
	memcpy(copy, name, len);
	copy[len] = '\0';
	s->names[s->nnames] = copy;
	s->name_slots[slot] = s->nnames + 1;
	return s->nnames++;
}

static int edges_rehash(struct perun_stacks *s)
{
	uint32_t size = s->edge_mask ? (s->edge_mask + 1) * 2 : 1024;
	uint64_t *keys = calloc(size, sizeof(*keys));
	uint32_t *vals = malloc((size_t)size * sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (uint32_t i = 0; s->edge_keys && i <= s->edge_mask; i++) {
		if (!s->edge_keys[i])
			continue;
		uint32_t j = (uint32_t)hash_u64(s->edge_keys[i]) & (size - 1);
		while (keys[j])
			j = (j + 1) & (size - 1);
		keys[j] = s->edge_keys[i];
		vals[j] = s->edge_vals[i];
	}
	free(s->edge_keys);
	free(s->edge_vals);
	s->edge_keys = keys;
	s->edge_vals = vals;
	s->edge_mask = size - 1;
	return 0;
}

static uint32_t edge_slot(const struct perun_stacks *s, uint64_t key)
{
	uint32_t i = (uint32_t)hash_u64(key) & s->edge_mask;
	while (s->edge_keys[i] && s->edge_keys[i] != key)
		i = (i + 1) & s->edge_mask;
	return i;
}

static uint64_t edge_key(uint32_t parent, uint32_t frame)
{
	return (((uint64_t)parent << 32) | frame) + 1;
}

uint32_t perun_stacks_child(const struct perun_stacks *s, uint32_t node, uint32_t frame)
{
	if (!s->edge_keys || frame == PERUN_STACKS_NONE)
		return PERUN_STACKS_NONE;
	uint32_t i = edge_slot(s, edge_key(node, frame));
	return s->edge_keys[i] ? s->edge_vals[i] : PERUN_STACKS_NONE;
}

static int ensure_root(struct perun_stacks *s)
{
	if (s->nnodes)
		return 0;
	if (grow((void **)&s->nodes, &s->nodes_alloc, 1, sizeof(*s->nodes)))
		return -1;
	s->nodes[0] = (struct perun_stack_node){.frame = PERUN_STACKS_NONE,
						.parent = PERUN_STACKS_NONE};
	s->nnodes = 1;
	return 0;
}

/* The child of parent with frame, created when new; a parent at max_depth
 * stands for everything below it. */
static uint32_t child_get_or_add(struct perun_stacks *s, uint32_t parent, uint32_t frame)
{
	if (s->max_depth && s->nodes[parent].depth >= s->max_depth)
		return parent;
	if (!s->edge_keys || (s->nnodes + 1) * 2 > s->edge_mask + 1)
		if (edges_rehash(s))
			return PERUN_STACKS_NONE;
	uint64_t key = edge_key(parent, frame);
	uint32_t i = edge_slot(s, key);
	if (s->edge_keys[i])
		return s->edge_vals[i];
	if (grow((void **)&s->nodes, &s->nodes_alloc, s->nnodes + 1, sizeof(*s->nodes)))
		return PERUN_STACKS_NONE;
	uint32_t id = s->nnodes++;
	uint32_t depth = s->nodes[parent].depth + 1;
	s->nodes[id] = (struct perun_stack_node){.frame = frame, .parent = parent, .depth = depth};
	if (depth > s->depth)
		s->depth = depth;
	s->edge_keys[i] = key;
	s->edge_vals[i] = id;
	return id;
}

uint32_t perun_stacks_add(struct perun_stacks *s, const uint32_t *frames, uint32_t n,
			  double weight)
{
	if (ensure_root(s))
		return PERUN_STACKS_NONE;
	uint32_t node = 0;
	for (uint32_t i = 0; i < n && node != PERUN_STACKS_NONE; i++)
		node = child_get_or_add(s, node, frames[i]);
	if (node == PERUN_STACKS_NONE)
		return node;
	s->nodes[node].self += weight;
	s->nstacks++;
	return node;
}

/* ---- reading profiles ------------------------------------------------ */

struct frame_buf {
	uint32_t *ids;
	uint32_t n, alloc;
};

/* Perun's text of a frame or uid (convert.to_string_line). */
static uint32_t intern_value(struct perun_stacks *s, const json_t *v)
{
	if (json_is_string(v))
		return perun_stacks_intern(s, json_string_value(v), json_string_length(v));
	const json_t *func = json_object_get(v, "func");
	/* kperf frames, millions of them in big profiles: one lookup. */
	if (json_is_string(func) && json_object_size(v) == 1)
		return perun_stacks_intern(s, json_string_value(func), json_string_length(func));
	const json_t *fn = json_object_get(v, "function");
	const json_t *src = json_object_get(v, "source");
	const json_t *line = json_object_get(v, "line");
	char buf[512];
	int len = -1;
	if (fn && src && line) {
		if (json_is_string(fn) && json_is_string(src) && json_is_integer(line))
			len = snprintf(buf, sizeof(buf), "%s()~%s~%lld", json_string_value(fn),
				       json_string_value(src), (long long)json_integer_value(line));
		if (len > 0 && (size_t)len < sizeof(buf))
			return perun_stacks_intern(s, buf, (size_t)len);
		char *f = perun_value_flatten_dup(fn), *o = perun_value_flatten_dup(src),
		     *l = perun_value_flatten_dup(line);
		char *text = NULL;
		if (f && o && l) {
			size_t n = strlen(f) + strlen(o) + strlen(l) + 5;
			if ((text = malloc(n)))
				snprintf(text, n, "%s()~%s~%s", f, o, l);
		}
		uint32_t id = text ? perun_stacks_intern(s, text, strlen(text)) : PERUN_STACKS_NONE;
		free(text);
		free(f);
		free(o);
		free(l);
		return id;
	}
	if (json_is_string(func))
		return perun_stacks_intern(s, json_string_value(func), json_string_length(func));
	char *text = perun_value_flatten_dup(v);
	uint32_t id = text ? perun_stacks_intern(s, text, strlen(text)) : PERUN_STACKS_NONE;
	free(text);
	return id;
}

static int push_frame(struct frame_buf *fb, uint32_t id)
{
	if (id == PERUN_STACKS_NONE ||
	    grow((void **)&fb->ids, &fb->alloc, fb->n + 1, sizeof(*fb->ids)))
		return -1;
	fb->ids[fb->n++] = id;
	return 0;
}

static double column_sum(const json_t *col)
{
	double sum = 0, v;
	size_t i;
	const json_t *x;
	json_array_foreach(col, i, x)
		if (!perun_json_number(x, &v) && isfinite(v))
			sum += v;
	return sum;
}

/* A resource type with a "trace": one stack weighing all its amounts. */
static int add_traced(struct perun_stacks *s, const json_t *pers, const json_t *trace,
		      const json_t *amount, int root_first, struct frame_buf *fb)
{
	const json_t *subtype = json_object_get(pers, "subtype");
	if (json_is_string(subtype) && !strcmp(json_string_value(subtype), "free"))
		return 0;
	const json_t *uid = json_object_get(pers, "uid");
	size_t n = json_array_size(trace);
	fb->n = 0;
	if (root_first) {
		for (size_t i = 0; i < n; i++)
			if (push_frame(fb, intern_value(s, json_array_get(trace, i))))
				return -1;
		if (uid && push_frame(fb, intern_value(s, uid)))
			return -1;
	} else {
		for (size_t i = n; i-- > 0;)
			if (push_frame(fb, intern_value(s, json_array_get(trace, i))))
				return -1;
		if (!n && uid && push_frame(fb, intern_value(s, uid)))
			return -1;
	}
	if (!fb->n)
		return 0;
	return perun_stacks_add(s, fb->ids, fb->n, column_sum(amount)) == PERUN_STACKS_NONE ? -1
											: 0;
}

/* Calls of a trace profile: queued with their uid's name id in .node. */
static int queue_calls(struct perun_stacks *s, const json_t *pers, const json_t *cols,
		       const json_t *amount)
{
	const json_t *ts = json_object_get(cols, "timestamp");
	const json_t *uid = json_object_get(pers, "uid");
	if (!json_is_array(ts) || !uid)
		return 0;
	const json_t *tid = json_object_get(pers, "tid");
	int64_t t = json_is_integer(tid) ? json_integer_value(tid) : 0;
	uint32_t frame = intern_value(s, uid);
	if (frame == PERUN_STACKS_NONE)
		return -1;
	size_t n = json_array_size(ts) < json_array_size(amount) ? json_array_size(ts)
								    : json_array_size(amount);
	for (size_t i = 0; i < n; i++) {
		double start, dur;
		if (perun_json_number(json_array_get(ts, i), &start) ||
		    perun_json_number(json_array_get(amount, i), &dur) || !isfinite(start) ||
		    !isfinite(dur) || dur < 0)
			continue;
		if (s->nevents == s->events_alloc) {
			size_t na = s->events_alloc ? s->events_alloc * 2 : 1024;
			void *p = realloc(s->events, na * sizeof(*s->events));
			if (!p)
				return -1;
			s->events = p;
			s->events_alloc = na;
		}
		s->events[s->nevents++] =
			(struct perun_stack_event){.tid = t, .start = start, .dur = dur, .node = frame};
	}
	return 0;
}

static int event_cmp(const void *a, const void *b)
{
	const struct perun_stack_event *x = a, *y = b;
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
static int nest_calls(struct perun_stacks *s)
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
		struct perun_stack_event *e = &s->events[i];
		while (depth) {
			struct perun_stack_event *top = &s->events[open[depth - 1]];
			if (top->tid == e->tid && e->start < top->start + top->dur)
				break;
			s->nodes[top->node].self += self[open[depth - 1]] > 0 ? self[open[depth - 1]] : 0;
			depth--;
		}
		uint32_t parent = depth ? s->events[open[depth - 1]].node : 0;
		uint32_t node = child_get_or_add(s, parent, e->node);
		if (node == PERUN_STACKS_NONE)
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

static const char *unit_of(const json_t *root)
{
	const json_t *header = json_object_get(root, "header");
	const json_t *units = json_object_get(header, "units");
	const json_t *type = json_object_get(header, "type");
	const json_t *u = json_is_string(type) ? json_object_get(units, json_string_value(type))
					       : NULL;
	if (!json_is_string(u) && json_is_object(units)) {
		const char *k;
		const json_t *v;
		json_object_foreach((json_t *)units, k, v) {
			if (json_is_string(v)) {
				u = v;
				break;
			}
		}
	}
	return json_is_string(u) ? json_string_value(u) : "";
}

int perun_stacks_from_profile(struct perun_stacks *s, const struct perun_profile *profile,
			      struct perun_error *err)
{
	const json_t *root = perun_profile_json(profile);
	const json_t *resources = json_object_get(root, "resources");
	json_t *types = json_object_get(root, "resource_type_map");
	int root_first = !strcmp(perun_profile_collector(profile), "kperf");
	struct frame_buf fb = {0};
	const char *key;
	json_t *pers;
	int rc = 0;
	s->unit = unit_of(root);
	if (ensure_root(s))
		goto oom;
	json_object_foreach(types, key, pers) {
		const json_t *cols = json_object_get(resources, key);
		const json_t *amount = json_object_get(cols, "amount");
		if (!json_is_array(amount) || !json_array_size(amount))
			continue;
		const json_t *trace = json_object_get(pers, "trace");
		if (json_is_array(trace) ? add_traced(s, pers, trace, amount, root_first, &fb)
					 : queue_calls(s, pers, cols, amount))
			goto oom;
	}
	if (nest_calls(s))
		goto oom;
	if (!s->nstacks) {
		rc = perun_error_set(err, PERUN_EINVAL,
				     "the profile has no call stacks (resources with a 'trace', "
				     "or calls with a 'timestamp' as the trace collector records)");
		goto out;
	}
	rc = perun_stacks_finish(s, err);
	goto out;
oom:
	rc = perun_error_set(err, PERUN_EGENERIC, "out of memory reading the call stacks");
out:
	free(fb.ids);
	return rc;
}

int perun_stacks_from_view(struct perun_stacks *s, const struct perun_profile *profile,
			   const struct perun_params *params, struct perun_error *err)
{
	long long max = perun_params_int(params, "max-trace", 0);
	perun_stacks_init(s, 0);
	if (max < 0 || max > UINT32_MAX)
		return perun_error_set(err, PERUN_EINVAL, "--max-trace %lld: not 0 or more", max);
	s->max_depth = (uint32_t)max;
	return perun_stacks_from_profile(s, profile, err);
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

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int perun_stacks_finish(struct perun_stacks *s, struct perun_error *err)
{
	struct named *byname = malloc((s->nnames + 1) * sizeof(*byname));
	uint32_t *rank = malloc((s->nnames + 1) * sizeof(*rank));
	uint64_t *order = malloc((s->nnodes + 1) * sizeof(*order));
	int rc = 0;
	free(s->children);
	s->children = malloc((s->nnodes + 1) * sizeof(*s->children));
	if (!byname || !rank || !order || !s->children || ensure_root(s)) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory sorting the call stacks");
		goto out;
	}
	for (uint32_t i = 0; i < s->nnames; i++)
		byname[i] = (struct named){s->names[i], i};
	qsort(byname, s->nnames, sizeof(*byname), named_cmp);
	for (uint32_t i = 0; i < s->nnames; i++)
		rank[byname[i].id] = i;
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
		struct perun_stack_node *p = &s->nodes[s->nodes[i].parent];
		s->children[p->first + p->nchildren++] = i;
	}
	for (uint32_t i = 0; i < s->nnodes; i++) {
		struct perun_stack_node *p = &s->nodes[i];
		if (p->nchildren < 2)
			continue;
		uint32_t *c = s->children + p->first;
		for (uint32_t k = 0; k < p->nchildren; k++)
			order[k] = (uint64_t)rank[s->nodes[c[k]].frame] << 32 | c[k];
		qsort(order, p->nchildren, sizeof(*order), u64_cmp);
		for (uint32_t k = 0; k < p->nchildren; k++)
			c[k] = (uint32_t)order[k];
	}
out:
	free(byname);
	free(rank);
	free(order);
	return rc;
}

int perun_stacks_walk(const struct perun_stacks *s, perun_stacks_visit_fn fn, void *data)
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
		const uint32_t *c = perun_stacks_children(s, level ? path[level - 1] : 0, &nc);
		if (next[level] == nc) {
			level--;
			continue;
		}
		uint32_t child = c[next[level]++];
		double at = off[level];
		off[level] += s->nodes[child].total;
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

void perun_stacks_format_weight(double w, char out[32])
{
	if (w == floor(w) && fabs(w) < 9e15)
		snprintf(out, 32, "%.0f", w);
	else
		perun_python_float_str(w, out);
}
