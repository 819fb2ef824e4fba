/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The instrument engine: runs a program built with -finstrument-functions
 * with the runtime libperun-instrument.so preloaded, then symbolises what
 * it recorded.  Each record's address is mapped through the process's
 * /proc/<pid>/maps copy to a file and offset, and from there to a probe of
 * the table; addresses of functions not selected are dropped, and sampling
 * is applied here with the same per-thread rule as in the kernel.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace.h"
#include "runtime/instrument-record.h"

#ifndef PERUN_TRACE_RUNTIME
#define PERUN_TRACE_RUNTIME "libperun-instrument.so"
#endif

/* Where the runtime is: $PERUN_TRACE_RUNTIME, beside the loaded plugin
 * (<plugins>/../runtime/, as installed and as staged in the build tree),
 * or where it was installed.  Caller frees. */
static char *runtime_path(void)
{
	const char *env = getenv("PERUN_TRACE_RUNTIME");
	if (env && *env)
		return strdup(env);
	Dl_info info;
	if (dladdr((void *)runtime_path, &info) && info.dli_fname) {
		char *copy = strdup(info.dli_fname), *path = NULL;
		if (copy &&
		    asprintf(&path, "%s/../../runtime/libperun-instrument.so", dirname(copy)) >=
			    0 &&
		    !access(path, R_OK)) {
			free(copy);
			return path;
		}
		free(copy);
		free(path);
	}
	return strdup(PERUN_TRACE_RUNTIME);
}

struct region {
	unsigned long long start, end, offset;
	char *path;
};

/* Function probes of one file, sorted by offset. */
struct lib_index {
	const char *path;
	size_t *ids;
	size_t n;
};

/* TSC -> CLOCK_MONOTONIC ns, from two readings of both around the run. */
struct clock_map {
	unsigned long long tsc0, ns0;
	double ns_per_tick;
};

static void clock_mark(unsigned long long *tsc, unsigned long long *ns)
{
#if PERUN_INST_USE_TSC
	*tsc = __rdtsc();
#else
	*tsc = 0;
#endif
	*ns = trace_now_ns();
}

static unsigned long long clock_ns(const struct clock_map *c, unsigned long long stamp)
{
#if PERUN_INST_USE_TSC
	return c->ns0 + (unsigned long long)((double)(long long)(stamp - c->tsc0) * c->ns_per_tick);
#else
	(void)c;
	return stamp;
#endif
}

struct symboliser {
	struct clock_map clock;
	/* The profiled command: its threads that left no end record were
	 * killed, and ended when it was reaped. */
	unsigned root_pid;
	unsigned long long root_end_ns;
	const struct trace_probes *probes;
	struct lib_index *libs;
	size_t nlibs;
	struct region *regions;
	size_t nregions;
};

static const struct trace_probes *sort_probes;

static int by_offset(const void *a, const void *b)
{
	const struct trace_probe *x = &sort_probes->v[*(const size_t *)a];
	const struct trace_probe *y = &sort_probes->v[*(const size_t *)b];
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int index_probes(struct symboliser *s)
{
	const struct trace_probes *p = s->probes;
	s->libs = calloc(p->n + 1, sizeof(*s->libs));
	if (!s->libs)
		return -1;
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].kind != TRACE_PROBE_FUNC)
			continue;
		size_t l;
		for (l = 0; l < s->nlibs && strcmp(s->libs[l].path, p->v[i].lib); l++)
			;
		if (l == s->nlibs) {
			s->libs[l].path = p->v[i].lib;
			s->libs[l].ids = calloc(p->n, sizeof(size_t));
			if (!s->libs[l].ids)
				return -1;
			s->nlibs++;
		}
		s->libs[l].ids[s->libs[l].n++] = i;
	}
	sort_probes = p;
	for (size_t l = 0; l < s->nlibs; l++)
		if (s->libs[l].n) /* qsort's base may not be NULL, even for none */
			qsort(s->libs[l].ids, s->libs[l].n, sizeof(size_t), by_offset);
	return 0;
}

static void free_regions(struct symboliser *s)
{
	for (size_t i = 0; i < s->nregions; i++)
		free(s->regions[i].path);
	free(s->regions);
	s->regions = NULL;
	s->nregions = 0;
}

static int load_maps(struct symboliser *s, const char *tmpdir, unsigned pid, unsigned image)
{
	char path[4200], line[4600];
	snprintf(path, sizeof(path), "%s/maps.%u.%u", tmpdir, pid, image);
	free_regions(s);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t alloc = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &pos) <
			    4 ||
		    !pos || perms[2] != 'x' || line[pos] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (s->nregions == alloc) {
			alloc = alloc ? 2 * alloc : 32;
			void *p = realloc(s->regions, alloc * sizeof(*s->regions));
			if (!p)
				break;
			s->regions = p;
		}
		s->regions[s->nregions++] = (struct region){ start, end, off, strdup(line + pos) };
	}
	fclose(f);
	return 0;
}

/* The probe id of a function address, or -1. */
static long lookup(const struct symboliser *s, unsigned long long addr)
{
	for (size_t r = 0; r < s->nregions; r++) {
		const struct region *g = &s->regions[r];
		if (addr < g->start || addr >= g->end || !g->path)
			continue;
		unsigned long long off = addr - g->start + g->offset;
		for (size_t l = 0; l < s->nlibs; l++) {
			const struct lib_index *li = &s->libs[l];
			if (strcmp(li->path, g->path))
				continue;
			size_t lo = 0, hi = li->n;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (s->probes->v[li->ids[mid]].offset <= off)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo && off == s->probes->v[li->ids[lo - 1]].offset)
				return (long)li->ids[lo - 1];
			return -1;
		}
		return -1;
	}
	return -1;
}

/* Sampling state of one (thread, function), as in trace.bpf.c. */
struct sample_state {
	unsigned long long calls, mask;
	unsigned depth;
};

static int sampled(struct sample_state *st, unsigned sample, int begin)
{
	if (sample <= 1)
		return 1;
	if (begin) {
		unsigned d = st->depth++;
		int take = st->calls++ % sample == 0;
		if (d < 64)
			st->mask = take ? st->mask | (1ULL << d) : st->mask & ~(1ULL << d);
		return take;
	}
	if (!st->depth)
		return 0;
	unsigned d = --st->depth;
	return d >= 64 || (st->mask & (1ULL << d));
}

/* The records of map before byte at, read: their pages given back from
 * *released on (they stay the file's), so that a long run's records are
 * never all mapped at once. */
static void release_read(const void *map, size_t at, size_t *released)
{
	size_t end = at & ~((size_t)sysconf(_SC_PAGESIZE) - 1);
	if (end > *released) {
		madvise((char *)map + *released, end - *released, MADV_DONTNEED);
		*released = end;
	}
}

/* convert_thread's return when the sink took not all events. */
#define THREAD_REFUSED 1

/* One thread's records to out: 0, THREAD_REFUSED, or -1 (errno) when its
 * file cannot be read. */
static int convert_thread(struct symboliser *s, const char *path, unsigned pid, unsigned tid,
			  int last_image, const struct trace_sink *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0 || !sb.st_size) {
		if (fd >= 0)
			close(fd);
		return fd < 0 ? -1 : 0;
	}
	const struct perun_inst_record *r =
		mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (r == MAP_FAILED)
		return -1;
	size_t n = (size_t)sb.st_size / sizeof(*r), released = 0;
	madvise((void *)r, (size_t)sb.st_size, MADV_SEQUENTIAL);
	struct sample_state *ss = calloc(s->probes->n + 1, sizeof(*ss));
	if (!ss) {
		munmap((void *)r, (size_t)sb.st_size);
		return -1;
	}
	unsigned long long last_fn = ~0ULL;
	long last_id = -1;
	int ended = 0, refused = 0;
	for (size_t i = 0; i < n && r[i].ts && !refused; i++) {
		if ((i & 0xffff) == 0xffff)
			release_read(r, i * sizeof(*r), &released);
		struct perun_trace_event e = { .ts = clock_ns(&s->clock, r[i].ts),
					       .tid = tid,
					       .pid = pid };
		unsigned long long fn = r[i].fn;
		if (fn & PERUN_INST_MARKER) {
			switch (fn & 0xff) {
			case 1: e.type = PERUN_TRACE_THREAD_BEGIN; break;
			case 2: e.type = PERUN_TRACE_THREAD_END; break;
			case 3: e.type = PERUN_TRACE_PROCESS_END; break;
			default:
				e.type = PERUN_TRACE_PROCESS_BEGIN;
				e.id = (unsigned)((fn & ~PERUN_INST_MARKER) >> 8);
			}
			ended |= e.type == PERUN_TRACE_THREAD_END ||
				 e.type == PERUN_TRACE_PROCESS_END;
			refused = out->put(out->data, &e);
			continue;
		}
		if (!fn)
			continue;
		int begin = !(fn & PERUN_INST_EXIT);
		fn &= ~PERUN_INST_EXIT;
		/* Hot loops call the same function again and again. */
		long id = fn == last_fn ? last_id : lookup(s, fn);
		last_fn = fn;
		last_id = id;
		if (id < 0 || !sampled(&ss[id], s->probes->v[id].sample, begin))
			continue;
		e.id = (unsigned)id;
		e.type = begin ? PERUN_TRACE_FUNC_BEGIN : PERUN_TRACE_FUNC_END;
		refused = out->put(out->data, &e);
	}
	if (!refused && !ended && last_image && pid == s->root_pid && s->root_end_ns) {
		struct perun_trace_event e = {
			.ts = s->root_end_ns,
			.tid = tid,
			.pid = pid,
			.id = (unsigned)getpid(),
			.type = tid == pid ? PERUN_TRACE_PROCESS_END : PERUN_TRACE_THREAD_END,
		};
		refused = out->put(out->data, &e);
	}
	free(ss);
	munmap((void *)r, (size_t)sb.st_size);
	return refused ? THREAD_REFUSED : 0;
}

struct thread_file {
	unsigned pid, image, tid;
	char *name;
};

static int by_thread(const void *a, const void *b)
{
	const struct thread_file *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * Thread files "t.<pid>.<image>.<tid>" -> raw events to out, one thread
 * after another; the images of a pid in the order they ran, so that an
 * exec'd program follows the one that exec'd it.
 */
static int symbolise(const struct trace_config *cfg, const struct trace_probes *probes,
		     const struct clock_map *clock, const struct trace_child *child,
		     const struct trace_sink *out, struct perun_error *err)
{
	struct symboliser s = { .probes = probes,
				.clock = *clock,
				.root_pid = (unsigned)child->pid,
				.root_end_ns = child->end_ns };
	struct thread_file *files = NULL;
	size_t n = 0, alloc = 0;
	int rc = 0;
	DIR *d = opendir(cfg->tmpdir);
	if (!d || index_probes(&s)) {
		rc = perun_error_set_errno(err, PERUN_ETOOL, errno,
					   "cannot symbolise the records in '%s'", cfg->tmpdir);
		goto out;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		struct thread_file f;
		if (sscanf(de->d_name, "t.%u.%u.%u", &f.pid, &f.image, &f.tid) != 3)
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			void *p = realloc(files, alloc * sizeof(*files));
			if (!p) {
				rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
				goto out;
			}
			files = p;
		}
		f.name = strdup(de->d_name);
		files[n++] = f;
	}
	if (n) /* qsort's base may not be NULL, even for none */
		qsort(files, n, sizeof(*files), by_thread);
	for (size_t i = 0; i < n; i++) {
		const struct thread_file *f = &files[i];
		if (!i || f->pid != files[i - 1].pid || f->image != files[i - 1].image)
			load_maps(&s, cfg->tmpdir, f->pid, f->image);
		int last_image = 1;
		for (size_t k = i + 1; k < n && files[k].pid == f->pid; k++)
			last_image &= files[k].image == f->image;
		char path[4200];
		snprintf(path, sizeof(path), "%s/%s", cfg->tmpdir, f->name ? f->name : "");
		int got = f->name ? convert_thread(&s, path, f->pid, f->tid, last_image, out) : -1;
		if (got == THREAD_REFUSED) {
			rc = perun_error_set(err, PERUN_EGENERIC,
					     "cannot take the trace events of '%s' (out of memory, "
					     "or the raw data file cannot be written)",
					     path);
			goto out;
		}
		if (got) {
			rc = perun_error_set_errno(err, PERUN_ETOOL, errno, "cannot read '%s'",
						   path);
			goto out;
		}
	}
out:
	if (d)
		closedir(d);
	for (size_t i = 0; i < n; i++)
		free(files[i].name);
	free(files);
	free_regions(&s);
	for (size_t l = 0; l < s.nlibs; l++)
		free(s.libs[l].ids);
	free(s.libs);
	return rc;
}

int trace_engine_instrument(const struct trace_config *cfg, const struct trace_probes *probes,
			    struct trace_child *child, const struct trace_sink *sink,
			    struct perun_error *err)
{
	if (!trace_elf_references(cfg->binary, "__cyg_profile_func_enter"))
		return perun_error_set(err, PERUN_EINVAL,
				       "binary '%s' was not built with -finstrument-functions "
				       "(it does not call __cyg_profile_func_enter)",
				       cfg->binary);
	char *runtime = runtime_path();
	if (!runtime)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (access(runtime, R_OK)) {
		int rc = perun_error_set_errno(err, PERUN_ETOOL, errno,
					       "cannot find the instrument runtime '%s'", runtime);
		free(runtime);
		return rc;
	}
	const char *old = getenv("LD_PRELOAD");
	char *preload = NULL, *dir = NULL;
	int rc;
	if (asprintf(&preload, "LD_PRELOAD=%s%s%s", runtime, old && *old ? ":" : "",
		     old ? old : "") < 0 ||
	    asprintf(&dir, "PERUN_TRACE_DIR=%s", cfg->tmpdir) < 0) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	char *env[] = { preload, dir, NULL };
	struct clock_map clock;
	clock_mark(&clock.tsc0, &clock.ns0);
	rc = trace_child_spawn(child, cfg, env, err);
	if (rc)
		goto out;
	int e = trace_child_continue(child);
	if (e) {
		rc = perun_error_set_errno(err, PERUN_ETOOL, e, "cannot run '%s'", cfg->argv[0]);
		goto out;
	}
	trace_log(cfg, "profiled command started, pid %d, runtime %s", (int)child->pid, runtime);
	rc = trace_child_wait(child, cfg, NULL, NULL, err);
	unsigned long long tsc1, ns1;
	clock_mark(&tsc1, &ns1);
	clock.ns_per_tick =
		tsc1 > clock.tsc0 ? (double)(ns1 - clock.ns0) / (double)(tsc1 - clock.tsc0) : 1.0;
	trace_log(cfg, "clock: %.6f ns per time-stamp tick", clock.ns_per_tick);
	if (!rc)
		rc = symbolise(cfg, probes, &clock, child, sink, err);
out:
	free(runtime);
	free(preload);
	free(dir);
	return rc;
}
