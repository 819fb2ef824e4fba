/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Sampling perf events on the profiled processes, one per CPU and thread
 * given (children and new threads inherit them), as perf record opens
 * them; all events of a CPU write into one ring buffer (SET_OUTPUT).  The
 * ring carries the mappings, forks and execs that name the frames, and in
 * dwarf mode the samples; in frame-pointer mode the BPF program attached
 * to the events counts the stacks and writes no sample.
 *
 * A round of draining applies every mapping record present in all rings
 * before any sample of that round: a process's mmap can land in one CPU's
 * ring and its first samples in another's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "events.h"
#include "kperf.h"

/* Ring data pages per CPU: dwarf samples carry the stack copy. */
#define RING_PAGES_FP	 16
#define RING_PAGES_DWARF 512

struct ring {
	int fd;
	void *base; /* the metadata page, then the data */
	size_t data_size;
	uint64_t head; /* read by a round's first pass, for both */
};

struct kperf_sampler {
	struct counters_event ev;
	int *cpus;
	size_t ncpus;
	int *fds;
	size_t nfds, fds_cap;
	struct ring *rings; /* one per CPU */
	size_t nrings;
	size_t ring_pages;
	uint64_t lost;
	unsigned char *copy; /* a record that wraps around the ring's end */
};

/* /sys/devices/system/cpu/online: "0-3,6". */
static int online_cpus(struct kperf_sampler *s, struct perun_error *err)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	char text[4096] = "";
	if (f) {
		if (!fgets(text, sizeof(text), f))
			text[0] = '\0';
		fclose(f);
	}
	if (!text[0]) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		snprintf(text, sizeof(text), "0-%ld", n > 0 ? n - 1 : 0);
	}
	for (char *p = text; *p && *p != '\n';) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p)
			break;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long c = lo; c <= hi; c++) {
			int *grown = realloc(s->cpus, (s->ncpus + 1) * sizeof(*grown));
			if (!grown)
				return perun_error_set(err, PERUN_EGENERIC, "out of memory");
			s->cpus = grown;
			s->cpus[s->ncpus++] = (int)c;
		}
		p = *end == ',' ? end + 1 : end;
	}
	if (!s->ncpus)
		return perun_error_set(err, PERUN_ETOOL, "no online CPU found");
	return 0;
}

int kperf_sampler_new(struct kperf_sampler **out, const struct kperf_sampling *how,
		      struct perun_error *err)
{
	struct kperf_sampler *s = calloc(1, sizeof(*s));
	*out = s;
	if (!s || !(s->copy = malloc(1 << 16)))
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = counters_event_resolve(how->event, &s->ev, err);
	if (rc)
		return rc;
	struct perf_event_attr *a = &s->ev.attr;
	if (how->period > 0) {
		a->sample_period = (uint64_t)how->period;
	} else {
		a->freq = 1;
		a->sample_freq = (uint64_t)how->frequency;
	}
	a->sample_type = PERF_SAMPLE_TID;
	/* mmap_data too: a module's first segment is not code. */
	a->mmap = a->mmap2 = a->mmap_data = a->comm = a->task = 1;
	a->watermark = 1;
	s->ring_pages = RING_PAGES_FP;
	if (how->call_graph == KPERF_DWARF) {
		rc = kperf_unwind_attr(a, how->stack_bytes, err);
		if (rc)
			return rc;
		s->ring_pages = RING_PAGES_DWARF;
	}
	a->wakeup_watermark = (uint32_t)(s->ring_pages * (size_t)sysconf(_SC_PAGESIZE) / 4);
	rc = online_cpus(s, err);
	if (rc)
		return rc;
	/* Tried on perun itself now, so that an event this machine cannot
	 * sample fails before anything runs. */
	struct counters_event probe = s->ev;
	probe.attr.disabled = 1;
	int fd = counters_event_open_cpu(&probe, 0, -1, err);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

void kperf_sampler_close(struct kperf_sampler *s)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	for (size_t i = 0; i < s->nrings; i++)
		if (s->rings[i].base)
			munmap(s->rings[i].base, page + s->rings[i].data_size);
	for (size_t i = 0; i < s->nfds; i++)
		close(s->fds[i]);
	free(s->rings);
	s->rings = NULL;
	s->nrings = s->nfds = 0;
}

void kperf_sampler_free(struct kperf_sampler *s)
{
	if (!s)
		return;
	kperf_sampler_close(s);
	counters_event_release(&s->ev);
	free(s->fds);
	free(s->cpus);
	free(s->copy);
	free(s);
}

static int keep_fd(struct kperf_sampler *s, int fd, struct perun_error *err)
{
	if (s->nfds == s->fds_cap) {
		size_t ncap = s->fds_cap ? 2 * s->fds_cap : 16;
		int *grown = realloc(s->fds, ncap * sizeof(*grown));
		if (!grown) {
			close(fd);
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		}
		s->fds = grown;
		s->fds_cap = ncap;
	}
	s->fds[s->nfds++] = fd;
	return 0;
}

static int open_ring(struct ring *r, int fd, size_t pages, struct perun_error *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	r->fd = fd;
	r->data_size = pages * page;
	r->base = mmap(NULL, page + r->data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return perun_error_set_errno(err, PERUN_ETOOL, errno,
					     "cannot map the sample buffer (see "
					     "/proc/sys/kernel/perf_event_mlock_kb)");
	}
	return 0;
}

int kperf_sampler_open(struct kperf_sampler *s, const pid_t *tids, size_t n, int enable_on_exec,
		       struct perun_error *err)
{
	s->rings = calloc(s->ncpus, sizeof(*s->rings));
	if (!s->rings)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	struct counters_event ev = s->ev;
	ev.attr.disabled = 1;
	ev.attr.enable_on_exec = enable_on_exec ? 1 : 0;
	ev.attr.inherit = 1;
	for (size_t c = 0; c < s->ncpus; c++) {
		struct ring *r = &s->rings[s->nrings];
		for (size_t t = 0; t < n; t++) {
			int fd = counters_event_open_cpu(&ev, tids[t], s->cpus[c], err);
			if (fd < 0)
				return fd;
			int rc = keep_fd(s, fd, err);
			if (!rc && !r->base) {
				rc = open_ring(r, fd, s->ring_pages, err);
				s->nrings += !rc;
			} else if (!rc && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd)) {
				rc = perun_error_set_errno(err, PERUN_ETOOL, errno,
							   "cannot share the sample buffer");
			}
			if (rc)
				return rc;
		}
	}
	return 0;
}

const int *kperf_sampler_fds(const struct kperf_sampler *s, size_t *n)
{
	*n = s->nfds;
	return s->fds;
}

int kperf_sampler_enable(struct kperf_sampler *s, struct perun_error *err)
{
	for (size_t i = 0; i < s->nfds; i++)
		if (ioctl(s->fds[i], PERF_EVENT_IOC_ENABLE, 0))
			return perun_error_set_errno(err, PERUN_ETOOL, errno,
						     "cannot start sampling");
	return 0;
}

uint64_t kperf_sampler_lost(const struct kperf_sampler *s)
{
	return s->lost;
}

struct mmap2_record {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t major, minor;
	uint64_t inode, inode_generation;
	uint32_t prot, flags;
	char filename[];
};

struct task_record { /* PERF_RECORD_FORK, PERF_RECORD_EXIT */
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct comm_record {
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[];
};

static void apply_record(struct kperf_sampler *s, struct kperf_procs *procs,
			 const struct perf_event_header *h)
{
	switch (h->type) {
	case PERF_RECORD_MMAP2: {
		const struct mmap2_record *r = (const void *)h;
		if (h->size <= sizeof(*r))
			break;
		/* Every mapping of a file, not only its code: libdwfl finds a
		 * module's load address from its first (offset 0) segment. */
		struct kperf_mapping m = {
			.start = r->addr,
			.end = r->addr + r->len,
			.pgoff = r->pgoff,
			.inode = r->inode,
			.major = r->major,
			.minor = r->minor,
			.perms = { r->prot & PROT_READ ? 'r' : '-',
				   r->prot & PROT_WRITE ? 'w' : '-',
				   r->prot & PROT_EXEC ? 'x' : '-', 'p' },
			.path = r->filename,
		};
		kperf_procs_map(procs, (pid_t)r->pid, &m);
		break;
	}
	case PERF_RECORD_FORK: {
		const struct task_record *r = (const void *)h;
		if (r->pid != r->ppid) /* a process, not a thread */
			kperf_procs_fork(procs, (pid_t)r->ppid, (pid_t)r->pid);
		break;
	}
	case PERF_RECORD_COMM:
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
			kperf_procs_exec(procs, (pid_t)((const struct comm_record *)h)->pid);
		break;
	case PERF_RECORD_LOST: s->lost += ((const uint64_t *)(h + 1))[1]; break;
	default: break;
	}
}

/* Walk the records of r from its tail to head: pass 0 applies the others,
 * pass 1 hands the samples over and frees the space. */
static void walk_ring(struct kperf_sampler *s, struct ring *r, int pass, struct kperf_procs *procs,
		      const struct kperf_sample_handler *h)
{
	struct perf_event_mmap_page *meta = r->base;
	const unsigned char *data = (const unsigned char *)r->base + sysconf(_SC_PAGESIZE);
	if (pass == 0)
		r->head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t head = r->head, tail = meta->data_tail;
	while (tail < head) {
		size_t at = (size_t)(tail % r->data_size);
		const struct perf_event_header *eh = (const void *)(data + at);
		struct perf_event_header hdr;
		/* The header itself is 8-byte aligned, never split. */
		memcpy(&hdr, eh, sizeof(hdr));
		if (hdr.size < sizeof(hdr))
			break;
		if (at + hdr.size > r->data_size) {
			size_t first = r->data_size - at;
			memcpy(s->copy, data + at, first);
			memcpy(s->copy + first, data, hdr.size - first);
			eh = (const void *)s->copy;
		}
		if (pass == 0 && hdr.type != PERF_RECORD_SAMPLE)
			apply_record(s, procs, eh);
		else if (pass == 1 && hdr.type == PERF_RECORD_SAMPLE && h && h->sample)
			h->sample(h->data, eh, hdr.size);
		tail += hdr.size;
	}
	if (pass == 1)
		__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

int kperf_sampler_drain(struct kperf_sampler *s, struct kperf_procs *procs,
			const struct kperf_sample_handler *h, int extra_fd, int timeout_ms,
			struct perun_error *err)
{
	struct pollfd *p = calloc(s->nrings + 1, sizeof(*p));
	if (!p)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	size_t n = 0;
	for (size_t i = 0; i < s->nrings; i++)
		p[n++] = (struct pollfd){ .fd = s->rings[i].fd, .events = POLLIN };
	if (extra_fd >= 0)
		p[n++] = (struct pollfd){ .fd = extra_fd, .events = POLLIN };
	int ready = timeout_ms ? poll(p, n, timeout_ms) : 0;
	int ended = ready > 0 && extra_fd >= 0 && p[n - 1].revents;
	free(p);
	if (ready < 0 && errno != EINTR)
		return perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot wait for samples");
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < s->nrings; i++)
			walk_ring(s, &s->rings[i], pass, procs, h);
	return ended;
}
