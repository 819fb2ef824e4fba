/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading what libperun-malloc.so recorded (record.h) and turning it into
 * Perun's memory resources.
 *
 * Every process image left "<pid>.<n>.pmem" and "<pid>.<n>.maps".  Events
 * of all processes and threads are put in time order; frees are matched to
 * the allocations they end (per process, by address), which gives the live
 * heap at every moment, its peak and the allocations never freed.  Return
 * addresses are resolved with elfutils' libdwfl against the process's own
 * recorded /proc/self/maps, after the run: symbol (demangled as c++filt
 * does, with libiberty), source file and line.
 *
 * The resources are those of Python Perun's memory collector (parsing.py,
 * filter.py): {type: memory, subtype: <allocator>, amount, address, trace,
 * uid, allocation_order} in snapshots of --sampling seconds, and for
 * allocations two more persistent keys: leaked and peak (see README.md).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <libiberty/demangle.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"
#include "trace.h"

/* The preload library's file name: its frames are the allocators'. */
#define RUNTIME_NAME "libperun-malloc.so"

static const char *const allocator_names[PMEM_ALLOCATORS] = {
	[PMEM_MALLOC] = "malloc",      [PMEM_CALLOC] = "calloc",
	[PMEM_REALLOC_FN] = "realloc", [PMEM_FREE_FN] = "free",
	[PMEM_MEMALIGN] = "memalign",  [PMEM_POSIX_MEMALIGN] = "posix_memalign",
	[PMEM_VALLOC] = "valloc",      [PMEM_ALIGNED_ALLOC] = "aligned_alloc",
};

/* One stack a thread defined, and what it became in the profile. */
struct stack_ref {
	const struct pmem_stack *stack;
	int prepared;
	int excluded; /* no uid, or filtered out by --no-func/--no-source */
	json_t *trace;
	json_t *uid;
};

struct thread {
	struct stack_ref *stacks;
	size_t count, cap;
};

struct process {
	char *stem; /* "<dir>/<pid>.<n>" */
	unsigned char *map;
	size_t len;
	const struct pmem_header *hdr;
	char *maps;		/* the newest /proc/self/maps copy */
	struct thread *threads; /* by serial */
	size_t nthreads;
	Dwfl *dwfl;
	int dwfl_failed;
	json_t *frames; /* "<hex address>" -> frame */
	uint64_t live, peak;
	size_t peak_pos; /* accounting position where peak was reached */
};

struct event {
	uint64_t ts;
	uint64_t ts_free; /* realloc: when old_ptr was given back */
	uint64_t ptr, size, old_ptr;
	uint32_t proc, thread, stack;
	uint8_t kind, allocator;
	size_t alloc_pos, free_pos; /* allocations: their live interval */
};

struct memory_trace {
	struct process *procs;
	size_t nprocs;
	struct event *events;
	size_t nevents, cap;
	size_t corrupt;
	int full;
};

/* ---- loading -------------------------------------------------------- */

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	void *p = realloc(*v, n * size);
	if (!p)
		return -1;
	memset((char *)p + *cap * size, 0, (n - *cap) * size);
	*v = p;
	*cap = n;
	return 0;
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (grow((void **)&buf, &cap, len + 4097, 1)) {
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

static int add_event(struct memory_trace *t, const struct event *e)
{
	if (grow((void **)&t->events, &t->cap, t->nevents + 1, sizeof(*e)))
		return -1;
	t->events[t->nevents++] = *e;
	return 0;
}

static int add_stack(struct thread *th, const struct pmem_stack *s)
{
	if (grow((void **)&th->stacks, &th->cap, th->count + 1, sizeof(*th->stacks)))
		return -1;
	th->stacks[th->count++].stack = s;
	return 0;
}

/* Walk one thread's block; returns -1 only when memory runs out. */
static int read_block(struct memory_trace *t, uint32_t pi, const unsigned char *b, size_t room)
{
	struct process *p = &t->procs[pi];
	const struct pmem_block *blk = (const void *)b;
	uint32_t serial = blk->thread;
	if (serial == 0 || serial > p->hdr->threads) {
		t->corrupt++;
		return 0;
	}
	if (serial >= p->nthreads) {
		size_t cap = p->nthreads;
		if (grow((void **)&p->threads, &cap, serial + 1, sizeof(*p->threads)))
			return -1;
		p->nthreads = cap;
	}
	struct thread *th = &p->threads[serial];
	size_t pos = sizeof(*blk);
	while (pos + sizeof(uint32_t) <= room) {
		const unsigned char *r = b + pos;
		uint32_t word = __atomic_load_n((const uint32_t *)r, __ATOMIC_ACQUIRE);
		uint32_t kind = PMEM_KIND(word), aux = PMEM_AUX(word);
		struct event e = { .proc = pi,
				   .thread = serial,
				   .kind = (uint8_t)kind,
				   .allocator = (uint8_t)aux };
		size_t len;
		if (kind == PMEM_END)
			break;
		switch (kind) {
		case PMEM_STACK: {
			const struct pmem_stack *s = (const void *)r;
			len = sizeof(*s);
			if (pos + len > room || s->depth == 0 || s->depth > PMEM_MAX_DEPTH + 1)
				goto corrupt;
			len += s->depth * sizeof(uint64_t);
			if (pos + len > room)
				goto corrupt;
			if (add_stack(th, s))
				return -1;
			pos += len;
			continue;
		}
		case PMEM_ALLOC: {
			const struct pmem_alloc *a = (const void *)r;
			len = sizeof(*a);
			if (pos + len > room || aux >= PMEM_ALLOCATORS)
				goto corrupt;
			e.stack = a->stack;
			e.ts = a->ts;
			e.ptr = a->ptr;
			e.size = a->size;
			break;
		}
		case PMEM_FREE: {
			const struct pmem_free *f = (const void *)r;
			len = sizeof(*f);
			if (pos + len > room)
				goto corrupt;
			e.stack = f->stack;
			e.ts = f->ts;
			e.ptr = f->ptr;
			e.allocator = PMEM_FREE_FN;
			break;
		}
		case PMEM_REALLOC: {
			const struct pmem_realloc *re = (const void *)r;
			len = sizeof(*re);
			if (pos + len > room)
				goto corrupt;
			e.stack = re->stack;
			e.ts = re->ts;
			e.ts_free = re->ts_free;
			e.ptr = re->ptr;
			e.size = re->size;
			e.old_ptr = re->old_ptr;
			e.allocator = PMEM_REALLOC_FN;
			break;
		}
		default: goto corrupt;
		}
		pos += len;
		if (e.stack >= th->count) {
			t->corrupt++;
			continue;
		}
		if (add_event(t, &e))
			return -1;
	}
	return 0;
corrupt:
	/* Nothing after an unreadable record can be trusted in this block. */
	t->corrupt++;
	return 0;
}

static int load_process(struct memory_trace *t, const char *dir, const char *name,
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
	p->maps = last_maps(p->stem);
	uint64_t end = p->hdr->reserved < p->len ? p->hdr->reserved : p->len;
	uint32_t pi = (uint32_t)(p - t->procs);
	for (uint64_t off = PMEM_HEADER_SIZE; off + PMEM_BLOCK_SIZE <= end;
	     off += PMEM_BLOCK_SIZE) {
		const struct pmem_block *b = (const void *)(p->map + off);
		if (b->magic != PMEM_BLOCK_MAGIC)
			continue; /* reserved by a thread that was stopped */
		if (read_block(t, pi, p->map + off, PMEM_BLOCK_SIZE)) {
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

int memory_trace_load(const char *dir, const char *cmd, struct memory_trace **out,
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
		if (grow((void **)&names, &cap, n + 1, sizeof(*names)) ||
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
		rc = load_process(t, dir, names[i], err);
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
			struct thread *th = &p->threads[k];
			for (size_t s = 0; s < th->count; s++) {
				json_decref(th->stacks[s].trace);
				json_decref(th->stacks[s].uid);
			}
			free(th->stacks);
		}
		free(p->threads);
		if (p->dwfl)
			dwfl_end(p->dwfl);
		json_decref(p->frames);
		if (p->map)
			munmap(p->map, p->len);
		free(p->maps);
		free(p->stem);
	}
	free(t->procs);
	free(t->events);
	free(t);
}

/* ---- leaks and the peak --------------------------------------------- */

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

/* Live allocations by (process, address), linear probing. */
struct live_slot {
	uint64_t ptr;
	uint32_t proc;
	uint32_t used;
	size_t ev;
};

struct live_map {
	struct live_slot *slots;
	size_t mask, count;
};

static size_t live_hash(uint32_t proc, uint64_t ptr)
{
	uint64_t h = (ptr ^ ((uint64_t)proc << 47)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h ^ (h >> 29));
}

static int live_grow(struct live_map *m)
{
	size_t size = m->slots ? (m->mask + 1) * 2 : 1024;
	struct live_slot *s = calloc(size, sizeof(*s));
	if (!s)
		return -1;
	for (size_t i = 0; m->slots && i <= m->mask; i++) {
		if (!m->slots[i].used)
			continue;
		size_t k = live_hash(m->slots[i].proc, m->slots[i].ptr) & (size - 1);
		while (s[k].used)
			k = (k + 1) & (size - 1);
		s[k] = m->slots[i];
	}
	free(m->slots);
	m->slots = s;
	m->mask = size - 1;
	return 0;
}

static struct live_slot *live_find(struct live_map *m, uint32_t proc, uint64_t ptr)
{
	if (!m->slots)
		return NULL;
	for (size_t k = live_hash(proc, ptr) & m->mask; m->slots[k].used; k = (k + 1) & m->mask)
		if (m->slots[k].ptr == ptr && m->slots[k].proc == proc)
			return &m->slots[k];
	return NULL;
}

/* Remove a slot, moving later members of its cluster back into the hole. */
static void live_remove(struct live_map *m, struct live_slot *slot)
{
	size_t hole = (size_t)(slot - m->slots);
	m->slots[hole].used = 0;
	m->count--;
	for (size_t k = (hole + 1) & m->mask; m->slots[k].used; k = (k + 1) & m->mask) {
		size_t home = live_hash(m->slots[k].proc, m->slots[k].ptr) & m->mask;
		/* Can slot k move to the hole?  Only if its home is not in (hole, k]. */
		if ((k > hole && (home <= hole || home > k)) ||
		    (k < hole && home <= hole && home > k)) {
			m->slots[hole] = m->slots[k];
			m->slots[k].used = 0;
			hole = k;
		}
	}
}

static int live_insert(struct live_map *m, uint32_t proc, uint64_t ptr, size_t ev)
{
	if ((m->count + 1) * 2 > (m->slots ? m->mask + 1 : 0) && live_grow(m))
		return -1;
	size_t k = live_hash(proc, ptr) & m->mask;
	while (m->slots[k].used)
		k = (k + 1) & m->mask;
	m->slots[k] = (struct live_slot){ .ptr = ptr, .proc = proc, .used = 1, .ev = ev };
	m->count++;
	return 0;
}

static void give_back(struct memory_trace *t, struct live_map *m, uint32_t proc, uint64_t ptr,
		      size_t pos)
{
	struct live_slot *s = live_find(m, proc, ptr);
	if (!s)
		return; /* allocated before recording began, or not by us */
	struct event *a = &t->events[s->ev];
	a->free_pos = pos;
	t->procs[proc].live -= a->size;
	live_remove(m, s);
}

static int account(struct memory_trace *t)
{
	size_t n = 0;
	int rc = 0;
	struct live_map m = { 0 };
	struct step *steps = calloc(t->nevents * 2 + 1, sizeof(*steps));
	if (!steps)
		return -1;
	for (size_t i = 0; i < t->nevents; i++) {
		struct event *e = &t->events[i];
		e->alloc_pos = e->free_pos = SIZE_MAX;
		if (e->kind == PMEM_FREE || (e->kind == PMEM_REALLOC && e->old_ptr))
			steps[n++] = (struct step){ .ts = e->kind == PMEM_FREE ? e->ts : e->ts_free,
						    .ev = i };
		if (e->kind != PMEM_FREE)
			steps[n++] = (struct step){ .ts = e->ts, .ev = i, .alloc = 1 };
	}
	qsort(steps, n, sizeof(*steps), compare_steps);
	for (size_t pos = 0; pos < n && !rc; pos++) {
		struct event *e = &t->events[steps[pos].ev];
		struct process *p = &t->procs[e->proc];
		if (!steps[pos].alloc) {
			give_back(t, &m, e->proc, e->kind == PMEM_FREE ? e->ptr : e->old_ptr, pos);
			continue;
		}
		/* Still live at the same address: its free was not seen. */
		give_back(t, &m, e->proc, e->ptr, pos);
		e->alloc_pos = pos;
		p->live += e->size;
		if (p->live > p->peak) {
			p->peak = p->live;
			p->peak_pos = pos;
		}
		rc = live_insert(&m, e->proc, e->ptr, steps[pos].ev);
	}
	free(m.slots);
	free(steps);
	return rc;
}

/* ---- symbols -------------------------------------------------------- */

/*
 * Only debug information inside the files themselves: as in Python Perun,
 * the program's frames (and those of its own libraries built with -g) have
 * sources, while system libraries, whose debug information Debian ships
 * apart, stay "unreachable" even where it is installed.
 */
static int no_separate_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
				 Dwarf_Addr base, const char *file_name, const char *debuglink_file,
				 GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = no_separate_debuginfo,
};

static Dwfl *process_dwfl(struct process *p)
{
	if (p->dwfl || p->dwfl_failed)
		return p->dwfl;
	p->dwfl_failed = 1;
	if (!p->maps)
		return NULL;
	Dwfl *dwfl = dwfl_begin(&dwfl_callbacks);
	FILE *f = dwfl ? fmemopen(p->maps, strlen(p->maps), "r") : NULL;
	if (!f) {
		if (dwfl)
			dwfl_end(dwfl);
		return NULL;
	}
	dwfl_report_begin(dwfl);
	int rc = dwfl_linux_proc_maps_report(dwfl, f);
	fclose(f);
	if (rc != 0 || dwfl_report_end(dwfl, NULL, NULL) != 0) {
		dwfl_end(dwfl);
		return NULL;
	}
	p->dwfl = dwfl;
	p->dwfl_failed = 0;
	return dwfl;
}

static json_t *make_frame(const char *function, const char *source, int line)
{
	return json_pack("{s:s, s:s, s:i}", "function", function, "source", source, "line", line);
}

/*
 * Frame of a return address (the call is the instruction before it, hence
 * addr - 1 for callers) as Python Perun writes it: function "?" and source
 * "unreachable" when unknown, line 0 without line information.  The
 * allocators' own frames (our wrappers) are "unreachable" as they are
 * there: they are not the program's source.
 */
static json_t *resolve_frame(struct process *p, uint64_t addr)
{
	char key[24];
	snprintf(key, sizeof(key), "%llx", (unsigned long long)addr);
	json_t *cached = json_object_get(p->frames, key);
	if (cached)
		return json_incref(cached);

	const char *function = "?", *source = "unreachable";
	int line = 0;
	char *demangled = NULL;
	Dwfl *dwfl = process_dwfl(p);
	Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, addr) : NULL;
	if (mod) {
		const char *modname =
			dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		const char *base = modname ? strrchr(modname, '/') : NULL;
		int ours = base && !strcmp(base + 1, RUNTIME_NAME);
		const char *sym = dwfl_module_addrname(mod, addr);
		if (sym && *sym) {
			demangled = cplus_demangle(sym, DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE);
			function = demangled ? demangled : sym;
		}
		Dwfl_Line *l = ours ? NULL : dwfl_module_getsrc(mod, addr);
		int lineno = 0;
		const char *file = l ? dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL) : NULL;
		if (file && *file) {
			source = file;
			line = lineno;
		}
	}
	json_t *frame = make_frame(function, source, line);
	free(demangled);
	if (frame && p->frames)
		json_object_set(p->frames, key, frame);
	return frame;
}

static int in_list(const struct perun_params *params, const char *name, const char *value,
		   int suffix)
{
	size_t n = perun_params_count(params, name), vlen = strlen(value);
	for (size_t i = 0; i < n; i++) {
		const char *s = perun_params_string_at(params, name, i);
		size_t slen = s ? strlen(s) : 0;
		if (!s)
			continue;
		if (suffix ? slen <= vlen && !strcmp(value + vlen - slen, s) : !strcmp(value, s))
			return 1;
	}
	return 0;
}

static int is_allocator(const char *function)
{
	for (int i = 0; i < PMEM_ALLOCATORS; i++)
		if (!strcmp(function, allocator_names[i]))
			return 1;
	return 0;
}

static const char *frame_str(const json_t *frame, const char *key)
{
	return json_string_value(json_object_get(frame, key));
}

/*
 * The stack's trace and uid, filtered as Python Perun's filter.py does:
 * without --all the allocators' frames and the frames of unknown function
 * or source go; the uid is the first frame with a known source; stacks
 * whose uid is --no-func or ends with a --no-source (or that have no uid)
 * give no resources.
 */
static int prepare_stack(struct process *p, struct stack_ref *r, const struct memory_options *o)
{
	if (r->prepared)
		return 0;
	json_t *trace = json_array();
	if (!trace)
		return -1;
	for (uint32_t i = 0; i < r->stack->depth; i++) {
		uint64_t ip = r->stack->ips[i];
		json_t *frame = resolve_frame(p, i > 0 && ip ? ip - 1 : ip);
		if (!frame) {
			json_decref(trace);
			return -1;
		}
		const char *fn = frame_str(frame, "function"), *src = frame_str(frame, "source");
		if (!o->all &&
		    (is_allocator(fn) || !strcmp(fn, "?") || !strcmp(src, "unreachable"))) {
			json_decref(frame);
			continue;
		}
		json_array_append_new(trace, frame);
	}
	size_t i;
	json_t *frame;
	json_array_foreach(trace, i, frame)
	{
		if (strcmp(frame_str(frame, "source"), "unreachable")) {
			r->uid = json_deep_copy(frame);
			break;
		}
	}
	r->trace = trace;
	r->prepared = 1;
	r->excluded = !r->uid || in_list(o->params, "no-func", frame_str(r->uid, "function"), 0) ||
		      in_list(o->params, "no-source", frame_str(r->uid, "source"), 1);
	return 0;
}

/* ---- the profile ---------------------------------------------------- */

static int compare_events(const void *a, const void *b)
{
	const struct event *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return 0;
}

/* Python Perun's snapshots: snapshot i ends at (i + 1) * sampling, its
 * "time" that end as "%f" of the interval summed up float by float. */
struct snapshots {
	double sampling, interval;
	long index;
	char time[64];
};

static void snapshot_of(struct snapshots *s, double seconds)
{
	while (seconds > s->interval) {
		s->interval += s->sampling;
		s->index++;
		snprintf(s->time, sizeof(s->time), "%f", s->interval);
	}
}

struct emitter {
	struct perun_profile *profile;
	json_t *orders; /* flattened uid -> allocation_order so far */
	struct perun_error *err;
};

static int emit(struct emitter *em, const struct stack_ref *r, const char *subtype, uint64_t amount,
		uint64_t address, const struct snapshots *snap, int flags, int leaked, int at_peak)
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
			  order, "snapshot", (int)snap->index, "time", snap->time);
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

int memory_trace_to_profile(struct memory_trace *t, const struct memory_options *o, uint64_t t0_ns,
			    struct perun_profile *profile, struct perun_error *err)
{
	struct emitter em = { .profile = profile, .orders = json_object(), .err = err };
	struct snapshots snap = { .sampling = o->sampling, .interval = o->sampling };
	int rc = 0;

	snprintf(snap.time, sizeof(snap.time), "%f", snap.interval);
	for (size_t i = 0; i < t->nprocs; i++)
		if (!(t->procs[i].frames = json_object()))
			em.orders = NULL;
	if (!em.orders || account(t)) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	/* The accounting used event indices: sort for emission only now (the
	 * positions it computed travel with the events). */
	qsort(t->events, t->nevents, sizeof(*t->events), compare_events);

	for (size_t i = 0; i < t->nevents && !rc; i++) {
		struct event *e = &t->events[i];
		struct process *p = &t->procs[e->proc];
		struct stack_ref *r = &p->threads[e->thread].stacks[e->stack];
		if (prepare_stack(p, r, o)) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			break;
		}
		uint64_t us = e->ts > t0_ns ? (e->ts - t0_ns + 500) / 1000 : 0;
		snapshot_of(&snap, (double)us / 1e6);
		if (r->excluded)
			continue;
		if (e->kind == PMEM_FREE) {
			rc = emit(&em, r, "free", 0, e->ptr, &snap, 0, 0, 0);
			continue;
		}
		int leaked = e->free_pos == SIZE_MAX;
		int at_peak =
			e->alloc_pos <= p->peak_pos && p->peak_pos < e->free_pos && p->peak > 0;
		rc = emit(&em, r, allocator_names[e->allocator], e->size, e->ptr, &snap, 1, leaked,
			  at_peak);
		if (!rc && e->kind == PMEM_REALLOC && e->old_ptr)
			rc = emit(&em, r, "free", 0, e->old_ptr, &snap, 0, 0, 0);
	}
out:
	json_decref(em.orders);
	return rc;
}
