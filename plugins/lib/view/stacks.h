/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Call stacks of a profile as a call tree, for flame graphs and the stack
 * exports (folded, chrome, pprof).
 *
 * Where the stacks come from depends on the profile (as Python Perun's
 * convert.to_flame_graph_format reads them, plus trace profiles):
 *   kperf   "trace" is the stack root first without the sampled function,
 *           which is the uid; amounts are sample counts;
 *   memory  "trace" is the allocation stack leaf first; "free" records are
 *           skipped, as upstream does;
 *   trace   no "trace" key: calls of each thread nest by their intervals
 *           [timestamp, timestamp + amount); a call weighs its exclusive
 *           time (amount minus its callees' amounts).
 * Frames are "function()~source~line" for {function, source, line}
 * frames, the "func" of kperf frames, otherwise Perun's flattened text.
 */
#ifndef VIEWLIB_STACKS_H
#define VIEWLIB_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include <perun/perun.h>

#define VIEWLIB_STACKS_NONE UINT32_MAX
/* The frame of a node of a kept tree that stands for siblings left out
 * (viewlib_stacks_kept_tree): the walk only moves past it. */
#define VIEWLIB_STACKS_GAP (UINT32_MAX - 1)

/* A node of the call tree; node 0 is the root above every stack. */
struct viewlib_stack_node {
	uint32_t frame; /* name id; VIEWLIB_STACKS_NONE for the root */
	uint32_t parent;
	uint32_t depth; /* 0 for the root, 1 for outermost frames */
	uint32_t first; /* its children: children[first .. first + n) */
	uint32_t nchildren;
	double self;  /* weight of stacks ending here */
	double total; /* self plus the totals of its children */
};

/* One call of a trace profile, for timelines (chrome export). */
struct viewlib_stack_event {
	int64_t tid;
	double start, dur;
	uint32_t node; /* its call-tree node (depth is its nesting) */
};

/*
 * A node's first child made, found without the edge table (most nodes of
 * big profiles have only one), kept apart from the nodes so that walking
 * down touches 8 bytes a level.
 */
struct viewlib_stack_link {
	uint32_t eldest; /* VIEWLIB_STACKS_NONE when it has no child yet */
	uint32_t frame;	 /* the eldest's frame */
};

/* An edge of the call tree to a child other than its parent's eldest. */
struct viewlib_stack_edge {
	uint32_t parent; /* + 1; 0 is a free slot */
	uint32_t frame;
	uint32_t child;
};

/* Frame ids, one after another. */
struct viewlib_frame_buf {
	uint32_t *ids;
	uint32_t n, alloc;
};

/* A stack of a list (see viewlib_stacks_list_from_view): its frames are
 * frames.ids[start .. start + len), root first. */
struct viewlib_listed_stack {
	uint32_t start, len;
	double weight;
};

struct viewlib_stacks {
	char **names;
	uint32_t *name_lens;
	uint32_t nnames, names_alloc;
	uint64_t (*name_heads)[2]; /* each name's first 15 bytes and its
				    * length (see name_head): the whole of
				    * most names */
	struct viewlib_name_slot {
		uint32_t hash;
		uint32_t id; /* + 1; 0 is free */
	} * name_slots;	     /* 8 bytes: a few thousand names' slots and
			      * heads stay in the cache */
	uint32_t name_mask;
	struct viewlib_stack_node *nodes;
	struct viewlib_stack_link *links; /* one per node, while stacks are added */
	uint32_t nnodes, nodes_alloc;
	struct viewlib_stack_edge *edges; /* open addressing, at most half full */
	uint32_t edge_mask, nedges;
	uint32_t *children;		    /* set by viewlib_stacks_finish, sorted by name */
	struct viewlib_stack_event *events; /* trace profiles only */
	size_t nevents, events_alloc;
	uint32_t max_depth; /* 0: unlimited; deeper frames are cut off */
	size_t nstacks;	    /* stacks added */
	uint32_t depth;	    /* deepest node */
	int timed;	    /* events hold real times (trace profiles) */
	const char *unit;   /* of the weights, borrowed from the profile */
	const char *weight; /* key of traced resources that weighs them; NULL: amount */
	int listed;	    /* stacks are in list, not in the tree */
	struct viewlib_frame_buf frames;   /* of the listed stacks */
	struct viewlib_listed_stack *list; /* in the order read */
	uint32_t nlisted, list_alloc;
};

void viewlib_stacks_init(struct viewlib_stacks *s, uint32_t max_depth);
void viewlib_stacks_release(struct viewlib_stacks *s);

/* Id of name[0..len), added when new; VIEWLIB_STACKS_NONE without memory. */
uint32_t viewlib_stacks_intern(struct viewlib_stacks *s, const char *name, size_t len);
/* Id of an existing name, or VIEWLIB_STACKS_NONE. */
uint32_t viewlib_stacks_lookup(const struct viewlib_stacks *s, const char *name);

/* Child of node with frame, or VIEWLIB_STACKS_NONE. */
uint32_t viewlib_stacks_child(const struct viewlib_stacks *s, uint32_t node, uint32_t frame);

/*
 * Read the stacks of profile into s (initialised, empty) and finish it.
 * A profile without any call stack is an error (PERUN_EINVAL) naming what
 * would have been needed.
 */
int viewlib_stacks_from_profile(struct viewlib_stacks *s, const struct perun_profile *profile,
				struct perun_error *err);

/* The option of every stack view that viewlib_stacks_from_view reads. */
#define VIEWLIB_STACKS_MAX_TRACE_OPTION                                                            \
	{                                                                                          \
		"max-trace", NULL, PERUN_OPTION_INT, "0", NULL, "<n>",                             \
			"cut stacks after n frames from the root (0: keep all)", 0                 \
	}

/* The key that weighs traced stacks (default amount), e.g. --of count for
 * the calls of an aggregated memory profile. */
#define VIEWLIB_STACKS_OF_OPTION                                                                   \
	{                                                                                          \
		"of", NULL, PERUN_OPTION_STRING, "amount", NULL, "<key>",                          \
			"weigh the stacks by this key of their resources (e.g. count)", 0          \
	}

/* viewlib_stacks_init with --max-trace and --of of params (checked), then
 * viewlib_stacks_from_profile; s needs viewlib_stacks_release either way. */
int viewlib_stacks_from_view(struct viewlib_stacks *s, const struct perun_profile *profile,
			     const struct perun_params *params, struct perun_error *err);

/*
 * viewlib_stacks_from_view, but the stacks are kept in s->list, as read,
 * instead of in the tree, for views that only need each stack's frames
 * (a million stacks' tree takes a second to build and most of the
 * memory).  Profiles whose stacks are nested calls (trace) need the tree:
 * they are read into it, s->listed is 0.
 */
int viewlib_stacks_list_from_view(struct viewlib_stacks *s, const struct perun_profile *profile,
				  const struct perun_params *params, struct perun_error *err);

/*
 * The listed stacks in the order of viewlib_stacks_walk's nodes: by the
 * names of their frames, root first, a stack before those it is a prefix
 * of, equal stacks in the order read.  *out (s->nlisted numbers of
 * stacks, the caller frees); with rank, *rank[id] is the place of name id
 * in strcmp order, which the sort went by (the caller frees).  Returns 0
 * or -PERUN_EGENERIC without memory.
 */
int viewlib_stacks_sort_list(const struct viewlib_stacks *s, uint32_t **out, uint32_t **rank,
			     struct perun_error *err);

/* Free the listed stacks (s->listed is 0 after). */
void viewlib_stacks_drop_list(struct viewlib_stacks *s);

/* The listed stacks of s put in the tree, finished (s->listed is 0
 * after); a tree stays as it is.  Returns 0 or -PERUN_EGENERIC without
 * memory. */
int viewlib_stacks_unlist(struct viewlib_stacks *s, struct perun_error *err);

/* Whether a view keeps a node of this total (root_total is the root's):
 * it must keep every total above one it keeps. */
typedef int (*viewlib_stacks_keep_fn)(double total, double root_total, void *data);

/* The listed stacks of a profile sorted in walk order, with the sums a
 * kept tree is made of (kept-tree.c). */
struct viewlib_sorted_stacks {
	uint32_t *order; /* stacks in walk order */
	uint32_t *rank;	 /* of each name, in strcmp order */
	double *sum;	 /* sum[i]: weight of the stacks order[0 .. i) */
	uint32_t n;
};

/* s's listed stacks sorted into *out when their weights are whole and
 * non-negative (so sums in any order are exact); 1 when they are not or
 * s is not listed (nothing to release), 0, or -PERUN_EGENERIC without
 * memory. */
int viewlib_stacks_sort_exact(const struct viewlib_stacks *s, struct viewlib_sorted_stacks *out,
			      struct perun_error *err);
void viewlib_sorted_stacks_release(struct viewlib_sorted_stacks *so);

/* Nodes of a kept tree, breadth first: node 0 is the root, and a node's
 * children (gaps included) are nodes first .. first + nchildren. */
struct viewlib_kept_nodes {
	struct viewlib_stack_node *node;
	uint32_t (*span)[2]; /* each node's range of the sorted stacks */
	uint32_t n, alloc;
};
void viewlib_kept_nodes_release(struct viewlib_kept_nodes *k);

/* The nodes of s (sorted as so) that viewlib_stacks_kept_tree keeps, into
 * *out; s is left as it is.  0 or -PERUN_EGENERIC without memory. */
int viewlib_stacks_keep(const struct viewlib_stacks *s, const struct viewlib_sorted_stacks *so,
			viewlib_stacks_keep_fn keep, void *data, struct viewlib_kept_nodes *out,
			struct perun_error *err);

/* out[i]: the weight of the stacks of other (sorted as oso) that pass
 * through the path of k's node i, found by the names of its frames; NAN
 * when no stack of other does, and for gaps.  out has room for k->n. */
int viewlib_kept_totals_in(const struct viewlib_stacks *s, const struct viewlib_kept_nodes *k,
			   const struct viewlib_stacks *other,
			   const struct viewlib_sorted_stacks *oso, double *out,
			   struct perun_error *err);

/*
 * The largest change of any node below the root of a's call tree,
 * |a's total - b's total of its path * scale_a| (b's 0 where b has no such
 * path), into *max_a, and of b's tree the same way (scale_b) into *max_b,
 * from both lists sorted (tree-changes.c): the colour scale of a
 * differential flame graph without either tree.  0 or -PERUN_EGENERIC
 * without memory.
 */
int viewlib_stacks_largest_changes(const struct viewlib_stacks *a,
				   const struct viewlib_sorted_stacks *as,
				   const struct viewlib_stacks *b,
				   const struct viewlib_sorted_stacks *bs, double scale_a,
				   double scale_b, double *max_a, double *max_b,
				   struct perun_error *err);

/* Make s the finished tree of k's nodes (its list is freed; k is emptied,
 * whatever happens).  0 or -PERUN_EGENERIC without memory. */
int viewlib_stacks_install_kept(struct viewlib_stacks *s, struct viewlib_kept_nodes *k,
				struct perun_error *err);

/*
 * Make s a finished tree of only the nodes a walk that skips what keep
 * refuses visits: the root and each child of a kept node that keep
 * accepts, with gaps where siblings were left out, so that the walk gives
 * every node the offset of the whole tree's.  Listed stacks of whole,
 * non-negative weights are summed by ranges of the sorted list without
 * the whole tree (kept-tree.c), for views that draw a few thousand frames
 * of a million stacks; s->depth stays the deepest stack's.  Other listed
 * stacks make the whole tree, as other sums could differ from its own in
 * the last bits; a tree is left whole.  Returns 0 or -PERUN_EGENERIC
 * without memory.
 */
int viewlib_stacks_kept_tree(struct viewlib_stacks *s, viewlib_stacks_keep_fn keep, void *data,
			     struct perun_error *err);

/* Sum totals and sort each node's children by name; call once, after the
 * last add.  Returns 0 or -PERUN_EGENERIC without memory. */
int viewlib_stacks_finish(struct viewlib_stacks *s, struct perun_error *err);

/* Free what finds a node's child (viewlib_stacks_child answers NONE
 * after it), for views that only walk the finished tree: a million
 * stacks' links take a tenth of its memory. */
void viewlib_stacks_drop_lookup(struct viewlib_stacks *s);

/* A node as viewlib_stacks_walk meets it. */
struct viewlib_stack_step {
	double self;
	uint32_t frame; /* name id; VIEWLIB_STACKS_NONE for the root */
	uint32_t depth; /* 0 for the root: the walk's path is depth long */
};

/*
 * The nodes of a finished s in the order viewlib_stacks_walk visits them,
 * root first, in *out (nnodes steps, the caller frees), for views that
 * visit every node: reading them front to back, instead of the walk's
 * jumps over a tree far bigger than the caches, is what keeps the export
 * of a million stacks linear.  Returns 0 or -PERUN_EGENERIC without
 * memory.
 */
int viewlib_stacks_in_walk_order(const struct viewlib_stacks *s, struct viewlib_stack_step **out,
				 struct perun_error *err);

/* Children of node after finish. */
static inline const uint32_t *viewlib_stacks_children(const struct viewlib_stacks *s, uint32_t node,
						      uint32_t *n)
{
	*n = s->nodes[node].nchildren;
	return s->children + s->nodes[node].first;
}

static inline const char *viewlib_stacks_name(const struct viewlib_stacks *s, uint32_t node)
{
	return s->nodes[node].frame == VIEWLIB_STACKS_NONE ? "all" : s->names[s->nodes[node].frame];
}

/*
 * Visit the root and then every node in preorder, children in name order.
 * path[0..depth) are the nodes from the outermost frame down to node (empty
 * for the root); offset is the weight of everything left of node at its
 * depth, its x in a flame graph (gaps count, but fn never sees one).  fn
 * returns 0 to descend, 1 to skip the node's children, or a negative code,
 * which stops the walk and is returned.  Returns 0 or -PERUN_EGENERIC
 * without memory.
 */
typedef int (*viewlib_stacks_visit_fn)(const struct viewlib_stacks *s, uint32_t node,
				       const uint32_t *path, uint32_t depth, double offset,
				       void *data);
int viewlib_stacks_walk(const struct viewlib_stacks *s, viewlib_stacks_visit_fn fn, void *data);

/* A weight as text: integers without a fraction, others in %.6g. */
void viewlib_stacks_format_weight(double w, char out[32]);

#endif
