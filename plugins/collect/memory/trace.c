/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading what libperun-malloc.so recorded (record.h).
 *
 * Every process image left "<pid>.<n>.pmem" and "<pid>.<n>.maps".  Each
 * thread's records are in time order in its blocks, so the events of all
 * processes and threads come in time order by merging the threads'
 * streams (memory_trace_next), one block of each in memory at a time; or,
 * for the per-event profile, all of them are read at once.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perun/array.h>

#include "record.h"
#include "symbols.h"
#include "trace.h"

static const char *const allocator_names[PMEM_ALLOCATORS] = {
	[PMEM_MALLOC] = "malloc",      [PMEM_CALLOC] = "calloc",
	[PMEM_REALLOC_FN] = "realloc", [PMEM_FREE_FN] = "free",
	[PMEM_MEMALIGN] = "memalign",  [PMEM_POSIX_MEMALIGN] = "posix_memalign",
	[PMEM_VALLOC] = "valloc",      [PMEM_ALIGNED_ALLOC] = "aligned_alloc",
};

struct stack_slot {
	const struct pmem_stack *stack;
	uint32_t tag;
};

struct thread {
	struct stack_slot *stacks;
	size_t count, cap;
	uint64_t *blocks; /* offsets of its blocks, in the order it took them */
	size_t nblocks, blocks_cap;
};

struct process {
	char *stem; /* "<dir>/<pid>.<n>" */
	unsigned char *map;
	size_t len;
	const struct pmem_header *hdr;
	struct thread *threads; /* by serial */
	size_t nthreads;
	struct memory_symbols *symbols;
};

/* One thread's stream: where it is, and its next event. */
struct cursor {
	uint32_t proc, serial;
	size_t block, pos;
	struct memory_event next;
	int realloc_pending; /* next is a realloc's freeing half */
};

struct memory_trace {
	struct process *procs;
	size_t nprocs;
	struct memory_event *events;
	size_t nevents, cap;
	size_t corrupt;
	int full;
	struct cursor *cursors; /* a binary heap on the next event's order */
	size_t ncursors;
	int merging;
};

const char *memory_allocator_name(unsigned allocator)
{
	return allocator < PMEM_ALLOCATORS ? allocator_names[allocator] : "?";
}

void memory_snapshots_init(struct memory_snapshots *s, double sampling)
{
	*s = (struct memory_snapshots){ .sampling = sampling, .interval = sampling };
}

void memory_snapshots_reach(struct memory_snapshots *s, uint64_t ts, uint64_t t0_ns)
{
	uint64_t us = ts > t0_ns ? (ts - t0_ns + 500) / 1000 : 0;
	double seconds = (double)us / 1e6;
	while (seconds > s->interval) {
		s->interval += s->sampling;
		s->index++;
	}
}

void memory_snapshots_time(double interval, char *buf, size_t size)
{
	snprintf(buf, size, "%f", interval);
}

/* ---- loading -------------------------------------------------------- */

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (perun_array_grow((void **)&buf, &cap, len + 4097, 1)) {
			free(buf);
			buf = NULL;
			break;
		}
		size_t n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* The last "#maps" dump: a superset of the earlier ones unless a library
 * was unloaded, which then stays unresolved. */
static char *last_maps(const char *stem)
{
	char *path;
	if (asprintf(&path, "%s.maps", stem) < 0)
		return NULL;
	char *text = read_text(path);
	free(path);
	if (!text)
		return NULL;
	char *last = NULL;
	for (char *p = text; (p = strstr(p, "#maps\n")); p += 6)
		last = p + 6;
	char *copy = strdup(last ? last : "");
	free(text);
	return copy;
}

enum decoded { DECODED_END, DECODED_EVENT, DECODED_STACK, DECODED_CORRUPT };

/* The record at b + *pos (a block of room bytes), moving *pos past it. */
static enum decoded decode_record(const unsigned char *b, size_t room, size_t *pos,
				  struct memory_event *e, const struct pmem_stack **stack)
{
	if (*pos + sizeof(uint32_t) > room)
		return DECODED_END;
	const unsigned char *r = b + *pos;
	uint32_t word = __atomic_load_n((const uint32_t *)r, __ATOMIC_ACQUIRE);
	uint32_t kind = PMEM_KIND(word), aux = PMEM_AUX(word);
	size_t len;
	e->kind = (uint8_t)kind;
	e->allocator = (uint8_t)aux;
	e->old_ptr = e->ts_free = e->size = 0;
	switch (kind) {
	case PMEM_END: return DECODED_END;
	case PMEM_STACK: {
		const struct pmem_stack *s = (const void *)r;
		len = sizeof(*s);
		if (*pos + len > room || s->depth == 0 || s->depth > PMEM_MAX_DEPTH + 1)
			return DECODED_CORRUPT;
		len += s->depth * sizeof(uint64_t);
		if (*pos + len > room)
			return DECODED_CORRUPT;
		*stack = s;
		*pos += len;
		return DECODED_STACK;
	}
	case PMEM_ALLOC: {
		const struct pmem_alloc *a = (const void *)r;
		len = sizeof(*a);
		if (*pos + len > room || aux >= PMEM_ALLOCATORS)
			return DECODED_CORRUPT;
		e->stack = a->stack;
		e->ts = a->ts;
		e->ptr = a->ptr;
		e->size = a->size;
		break;
	}
	case PMEM_FREE: {
		const struct pmem_free *f = (const void *)r;
		len = sizeof(*f);
		if (*pos + len > room)
			return DECODED_CORRUPT;
		e->stack = f->stack;
		e->ts = f->ts;
		e->ptr = f->ptr;
		e->allocator = PMEM_FREE_FN;
		break;
	}
	case PMEM_REALLOC: {
		const struct pmem_realloc *re = (const void *)r;
		len = sizeof(*re);
		if (*pos + len > room)
			return DECODED_CORRUPT;
		e->stack = re->stack;
		e->ts = re->ts;
		e->ts_free = re->ts_free;
		e->ptr = re->ptr;
		e->size = re->size;
		e->old_ptr = re->old_ptr;
		e->allocator = PMEM_REALLOC_FN;
		break;
	}
	default: return DECODED_CORRUPT;
	}
	*pos += len;
	return DECODED_EVENT;
}

static int add_stack(struct thread *th, const struct pmem_stack *s)
{
	if (perun_array_grow((void **)&th->stacks, &th->cap, th->count + 1, sizeof(*th->stacks)))
		return -1;
	th->stacks[th->count++].stack = s;
	return 0;
}

/*
 * The next event of one block of a thread, from *pos: 1 and *e, 0 at the
 * block's end (nothing after an unreadable record can be trusted in its
 * block), -1 without memory.
 */
static int block_next(struct memory_trace *t, struct thread *th, const unsigned char *b,
		      size_t *pos, struct memory_event *e)
{
	for (;;) {
		const struct pmem_stack *s = NULL;
		switch (decode_record(b, PMEM_BLOCK_SIZE, pos, e, &s)) {
		case DECODED_END: return 0;
		case DECODED_CORRUPT: t->corrupt++; return 0;
		case DECODED_STACK:
			if (add_stack(th, s))
				return -1;
			continue;
		case DECODED_EVENT:
			if (e->stack >= th->count) {
				t->corrupt++;
				continue;
			}
			return 1;
		}
	}
}

static struct thread *thread_of(struct process *p, uint32_t serial)
{
	if (serial >= p->nthreads) {
		size_t cap = p->nthreads;
		if (perun_array_grow((void **)&p->threads, &cap, serial + 1, sizeof(*p->threads)))
			return NULL;
		p->nthreads = cap;
	}
	return &p->threads[serial];
}

/* Read a block's events now (keep_events), or note where it is. */
static int take_block(struct memory_trace *t, uint32_t pi, uint64_t off,
		      const struct pmem_block *blk, int keep_events)
{
	struct process *p = &t->procs[pi];
	uint32_t serial = blk->thread;
	if (serial == 0 || serial > p->hdr->threads) {
		t->corrupt++;
		return 0;
	}
	struct thread *th = thread_of(p, serial);
	if (!th)
		return -1;
	if (!keep_events) {
		if (perun_array_grow((void **)&th->blocks, &th->blocks_cap, th->nblocks + 1,
				     sizeof(*th->blocks)))
			return -1;
		th->blocks[th->nblocks++] = off;
		return 0;
	}
	size_t pos = sizeof(*blk);
	struct memory_event e = { .proc = pi, .thread = serial };
	int rc;
	while ((rc = block_next(t, th, p->map + off, &pos, &e)) == 1) {
		if (perun_array_grow((void **)&t->events, &t->cap, t->nevents + 1, sizeof(e)))
			return -1;
		t->events[t->nevents++] = e;
	}
	return rc;
}

static int load_process(struct memory_trace *t, const char *dir, const char *name, int keep_events,
			struct perun_error *err)
{
	struct process *p = &t->procs[t->nprocs];
	size_t namelen = strlen(name) - strlen(".pmem");
	char *path = NULL;
	struct stat st;
	int fd = -1, rc = 0;

	if (asprintf(&p->stem, "%s/%.*s", dir, (int)namelen, name) < 0 ||
	    asprintf(&path, "%s.pmem", p->stem) < 0) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	t->nprocs++;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = perun_error_set_errno(err, PERUN_ETOOL, errno, "cannot read memory trace '%s'",
					   path);
		goto out;
	}
	/* A process killed before it wrote its header left nothing to read. */
	if ((size_t)st.st_size < PMEM_HEADER_SIZE)
		goto out;
	p->len = (size_t)st.st_size;
	p->map = mmap(NULL, p->len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p->map == MAP_FAILED) {
		p->map = NULL;
		rc = perun_error_set_errno(err, PERUN_ETOOL, errno, "cannot map memory trace '%s'",
					   path);
		goto out;
	}
	p->hdr = (const void *)p->map;
	if (p->hdr->magic != PMEM_MAGIC || p->hdr->version != PMEM_VERSION) {
		if (p->hdr->magic == 0)
			goto out;
		rc = perun_error_set(err, PERUN_ETOOL,
				     "memory trace '%s' is not version %u of the format", path,
				     PMEM_VERSION);
		goto out;
	}
	if (p->hdr->flags & PMEM_FULL)
		t->full = 1;
	if (!(p->symbols = memory_symbols_new(last_maps(p->stem)))) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	uint64_t end = p->hdr->reserved < p->len ? p->hdr->reserved : p->len;
	uint32_t pi = (uint32_t)(p - t->procs);
	for (uint64_t off = PMEM_HEADER_SIZE; off + PMEM_BLOCK_SIZE <= end;
	     off += PMEM_BLOCK_SIZE) {
		/* Read, not touched through the map: a fault there would map
		 * the pages around it too, the whole trace in the end. */
		struct pmem_block b;
		if (pread(fd, &b, sizeof(b), (off_t)off) != (ssize_t)sizeof(b))
			break;
		if (b.magic != PMEM_BLOCK_MAGIC)
			continue; /* reserved by a thread that was stopped */
		if (take_block(t, pi, off, &b, keep_events)) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			goto out;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	free(path);
	return rc;
}

/* "<pid>.<n>.pmem" names in numeric order: parents before their children
 * is not promised, but runs are reproducible. */
static int compare_names(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	unsigned long px = strtoul(x, NULL, 10), py = strtoul(y, NULL, 10);
	if (px != py)
		return px < py ? -1 : 1;
	unsigned long nx = strtoul(strchr(x, '.') + 1, NULL, 10);
	unsigned long ny = strtoul(strchr(y, '.') + 1, NULL, 10);
	return nx < ny ? -1 : nx > ny;
}

static int is_trace_name(const char *name)
{
	size_t len = strlen(name);
	const char *dot = strchr(name, '.');
	return len > 5 && !strcmp(name + len - 5, ".pmem") && dot && dot > name &&
	       strspn(name, "0123456789") == (size_t)(dot - name);
}

int memory_trace_load(const char *dir, const char *cmd, int keep_events, struct memory_trace **out,
		      struct perun_error *err)
{
	struct memory_trace *t = calloc(1, sizeof(*t));
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	DIR *d = opendir(dir);
	if (!t || !d) {
		rc = !t ? perun_error_set(err, PERUN_EGENERIC, "out of memory")
			: perun_error_set_errno(err, PERUN_ETOOL, errno,
						"cannot read trace directory '%s'", dir);
		goto out;
	}
	for (struct dirent *de; (de = readdir(d));) {
		if (!is_trace_name(de->d_name))
			continue;
		if (perun_array_grow((void **)&names, &cap, n + 1, sizeof(*names)) ||
		    !(names[n] = strdup(de->d_name))) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			goto out;
		}
		n++;
	}
	if (n == 0) {
		rc = perun_error_set(err, PERUN_ETOOL,
				     "command '%s' recorded nothing: is it a dynamically "
				     "linked program?",
				     cmd);
		goto out;
	}
	qsort(names, n, sizeof(*names), compare_names);
	t->procs = calloc(n, sizeof(*t->procs));
	if (!t->procs) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n && !rc; i++)
		rc = load_process(t, dir, names[i], keep_events, err);
out:
	if (d)
		closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc) {
		memory_trace_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void memory_trace_summary(const struct memory_trace *t, struct memory_summary *sum)
{
	sum->processes = t->nprocs;
	sum->events = t->nevents;
	sum->corrupt = t->corrupt;
	sum->full = t->full;
}

void memory_trace_free(struct memory_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nprocs; i++) {
		struct process *p = &t->procs[i];
		for (size_t k = 0; k < p->nthreads; k++) {
			free(p->threads[k].stacks);
			free(p->threads[k].blocks);
		}
		free(p->threads);
		memory_symbols_free(p->symbols);
		if (p->map)
			munmap(p->map, p->len);
		free(p->stem);
	}
	free(t->procs);
	free(t->events);
	free(t->cursors);
	free(t);
}

struct memory_event *memory_trace_events(struct memory_trace *t, size_t *count)
{
	*count = t->nevents;
	return t->events;
}

const struct pmem_stack *memory_trace_stack(const struct memory_trace *t,
					    const struct memory_event *e)
{
	return t->procs[e->proc].threads[e->thread].stacks[e->stack].stack;
}

uint32_t *memory_trace_stack_tag(struct memory_trace *t, const struct memory_event *e)
{
	return &t->procs[e->proc].threads[e->thread].stacks[e->stack].tag;
}

struct memory_symbols *memory_trace_symbols(struct memory_trace *t, uint32_t proc)
{
	return t->procs[proc].symbols;
}

/* ---- the merge of the threads' streams -------------------------------- */

static uint64_t cursor_ts(const struct cursor *c)
{
	return c->realloc_pending ? c->next.ts_free : c->next.ts;
}

/* Time order; a block given back before another thread can receive it. */
static int cursor_before(const struct cursor *a, const struct cursor *b)
{
	uint64_t x = cursor_ts(a), y = cursor_ts(b);
	if (x != y)
		return x < y;
	int fa = a->realloc_pending || a->next.kind == PMEM_FREE;
	int fb = b->realloc_pending || b->next.kind == PMEM_FREE;
	if (fa != fb)
		return fa;
	return a->proc != b->proc ? a->proc < b->proc : a->serial < b->serial;
}

/* Load the cursor's next event: 1, 0 when its thread is done, -1. */
static int cursor_advance(struct memory_trace *t, struct cursor *c)
{
	struct process *p = &t->procs[c->proc];
	struct thread *th = &p->threads[c->serial];
	while (c->block < th->nblocks) {
		unsigned char *b = p->map + th->blocks[c->block];
		c->next = (struct memory_event){ .proc = c->proc, .thread = c->serial };
		int rc = block_next(t, th, b, &c->pos, &c->next);
		if (rc)
			return rc;
		/* A block read is not needed again: keep the resident set to
		 * the blocks being merged (the stacks it defined are read
		 * again from the file when first used). */
		madvise(b, PMEM_BLOCK_SIZE, MADV_DONTNEED);
		c->block++;
		c->pos = sizeof(struct pmem_block);
	}
	return 0;
}

static void heap_down(struct cursor *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && cursor_before(&h[l], &h[m]))
			m = l;
		if (r < n && cursor_before(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		struct cursor tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

static int start_merge(struct memory_trace *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nprocs; i++)
		n += t->procs[i].nthreads;
	t->merging = 1;
	if (n && !(t->cursors = calloc(n, sizeof(*t->cursors))))
		return -1;
	for (size_t i = 0; i < t->nprocs; i++) {
		for (size_t k = 0; k < t->procs[i].nthreads; k++) {
			struct cursor *c = &t->cursors[t->ncursors];
			*c = (struct cursor){ .proc = (uint32_t)i,
					      .serial = (uint32_t)k,
					      .pos = sizeof(struct pmem_block) };
			int rc = cursor_advance(t, c);
			if (rc < 0)
				return -1;
			if (rc) {
				c->realloc_pending =
					c->next.kind == PMEM_REALLOC && c->next.old_ptr;
				t->ncursors++;
			}
		}
	}
	for (size_t i = t->ncursors; i-- > 0;)
		heap_down(t->cursors, t->ncursors, i);
	return 0;
}

int memory_trace_next(struct memory_trace *t, struct memory_event *e)
{
	if (!t->merging && start_merge(t))
		return -1;
	if (t->ncursors == 0)
		return 0;
	struct cursor *c = &t->cursors[0];
	*e = c->next;
	if (c->realloc_pending) {
		e->kind = PMEM_FREE;
		e->ts = c->next.ts_free;
		e->ptr = c->next.old_ptr;
		c->realloc_pending = 0;
	} else {
		t->nevents++;
		int rc = cursor_advance(t, c);
		if (rc < 0)
			return -1;
		if (rc)
			c->realloc_pending = c->next.kind == PMEM_REALLOC && c->next.old_ptr;
		else
			*c = t->cursors[--t->ncursors];
	}
	heap_down(t->cursors, t->ncursors, 0);
	return 1;
}
