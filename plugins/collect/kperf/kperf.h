/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The kperf collector's parts (README.md):
 *   sampler.c    perf events per CPU on the profiled processes, their ring
 *                buffers (mappings, forks, execs; samples in dwarf mode)
 *   engine_bpf.c frame-pointer mode: the BPF program counting stacks
 *   unwind.c     dwarf mode: a sample's user stack copy unwound with libdw
 *   procmaps.c   each process's mappings, its libdwfl session, frame names
 *   kallsyms.c   kernel frame names
 *   stacks.c     stacks of frame names and their sample counts per run
 *   kperf.c      options, runs, the profile
 * Only sampler.c and unwind.c see perf_event.h (libpfm4's); the BPF side
 * only sees file descriptors.
 */
#ifndef PERUN_KPERF_H
#define PERUN_KPERF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <perun/perun.h>

/* ---- procmaps.c --------------------------------------------------------- */

struct kperf_procs; /* every process seen, by pid */

struct kperf_procs *kperf_procs_new(void);
void kperf_procs_free(struct kperf_procs *procs);

/* A file mapping of pid (a line of /proc/pid/maps, a PERF_RECORD_MMAP2). */
struct kperf_mapping {
	uint64_t start, end, pgoff, inode;
	unsigned major, minor;
	char perms[5];	  /* "r-xp" */
	const char *path; /* copied by kperf_procs_map */
};
int kperf_procs_map(struct kperf_procs *procs, pid_t pid, const struct kperf_mapping *m);
/* All of /proc/pid/maps of a running process. */
int kperf_procs_read_maps(struct kperf_procs *procs, pid_t pid, struct perun_error *err);
/* A fork copies the parent's mappings; an exec drops them. */
int kperf_procs_fork(struct kperf_procs *procs, pid_t parent, pid_t child);
void kperf_procs_exec(struct kperf_procs *procs, pid_t pid);

/* pid's libdwfl session over its mappings so far (rebuilt when they
 * grew); NULL when it has none.  Borrowed. */
struct Dwfl *kperf_procs_dwfl(struct kperf_procs *procs, pid_t pid);

/* Between the frames of a stack key, and between the frames one address
 * stands for when functions were inlined there. */
#define KPERF_FRAME_SEPARATOR '\x1f'

/*
 * The name of the frame at addr (already moved into the call instruction
 * for return addresses) of pid: the demangled function, followed by the
 * functions inlined into it there (outermost first, separated by
 * KPERF_FRAME_SEPARATOR, so that they count as frames of their own), or
 * "module+0xoff" when the module has no symbol there, or "[unknown]".
 * Borrowed, valid until procs is freed.
 */
const char *kperf_procs_frame(struct kperf_procs *procs, pid_t pid, uint64_t addr);

/* Modules whose frames had no symbols (for one warning), comma-separated;
 * NULL when none.  Borrowed. */
const char *kperf_procs_unsymbolized(struct kperf_procs *procs);

/* ---- kallsyms.c ------------------------------------------------------- */

struct kperf_kallsyms;

/* /proc/kallsyms (NULL when unreadable: kernel frames become addresses). */
struct kperf_kallsyms *kperf_kallsyms_load(void);
void kperf_kallsyms_free(struct kperf_kallsyms *ks);
/* The function containing addr; "[unknown]" when none.  Borrowed. */
const char *kperf_kallsyms_frame(struct kperf_kallsyms *ks, uint64_t addr);

/* ---- stacks.c --------------------------------------------------------- */

struct kperf_stacks; /* stacks of names (root first) -> samples per run */

struct kperf_stacks *kperf_stacks_new(void);
void kperf_stacks_free(struct kperf_stacks *st);
/* count more samples of the stack names[0..n) (root first) in run. */
int kperf_stacks_add(struct kperf_stacks *st, const char *const *names, size_t n, size_t run,
		     uint64_t count);
uint64_t kperf_stacks_total(const struct kperf_stacks *st, size_t run);
/* The n functions with the most samples of run as their innermost frame
 * (self samples) so far: a new array of {"name", "samples"}, most first. */
json_t *kperf_stacks_top(const struct kperf_stacks *st, size_t run, size_t n);
/* Each stack and run with samples as Python Perun's kperf resource. */
int kperf_stacks_to_profile(const struct kperf_stacks *st, const char *command, double seconds,
			    struct perun_profile *profile, struct perun_error *err);

/*
 * Name the frames of one sampled stack and count it: kernel addresses
 * (innermost first) then user addresses (innermost first), each list's
 * first address the sampled instruction and the others return addresses.
 */
int kperf_stacks_add_addresses(struct kperf_stacks *st, struct kperf_procs *procs,
			       struct kperf_kallsyms *ks, pid_t pid, const uint64_t *kernel,
			       size_t nkernel, const uint64_t *user, size_t nuser, size_t run,
			       uint64_t count);

/* ---- sampler.c -------------------------------------------------------- */

enum kperf_call_graph { KPERF_FP, KPERF_DWARF };

struct kperf_sampling {
	const char *event;   /* a name counters_event_resolve takes */
	long long frequency; /* samples per second, or */
	long long period;    /* one sample every period events */
	enum kperf_call_graph call_graph;
	unsigned stack_bytes; /* dwarf: user stack copied per sample */
};

struct kperf_sampler;

/* Called for each record of the ring buffers, non-samples of a round
 * before its samples; header is a struct perf_event_header. */
struct kperf_sample_handler {
	void (*sample)(void *data, const void *record, size_t size);
	void *data;
};

/*
 * Resolve the event and check it can sample here, before anything runs
 * (an unknown event gets counters' closest names).
 */
int kperf_sampler_new(struct kperf_sampler **out, const struct kperf_sampling *how,
		      struct perun_error *err);
void kperf_sampler_free(struct kperf_sampler *s);

/* Open the events on each CPU for the threads tids[0..n) (disabled; on a
 * held command enabled at its exec), following their new children and
 * threads. */
int kperf_sampler_open(struct kperf_sampler *s, const pid_t *tids, size_t n, int enable_on_exec,
		       struct perun_error *err);
/* The sampling descriptors (to attach the BPF program to). */
const int *kperf_sampler_fds(const struct kperf_sampler *s, size_t *n);
int kperf_sampler_enable(struct kperf_sampler *s, struct perun_error *err);
/* Drain the ring buffers: mappings into procs, samples to the handler.
 * Waits up to timeout_ms for data (also watching extra_fd if >= 0);
 * returns 1 when extra_fd became readable, 0, or a negative error. */
int kperf_sampler_drain(struct kperf_sampler *s, struct kperf_procs *procs,
			const struct kperf_sample_handler *h, int extra_fd, int timeout_ms,
			struct perun_error *err);
/* Close the events (the next run opens new ones). */
void kperf_sampler_close(struct kperf_sampler *s);
/* Records the kernel lost for want of ring space. */
uint64_t kperf_sampler_lost(const struct kperf_sampler *s);

/* ---- unwind.c (dwarf mode) ------------------------------------------- */

struct perf_event_attr;

/* What dwarf mode asks of each sample (the layout kperf_unwind_sample
 * reads); fails on machines whose registers it does not know. */
int kperf_unwind_attr(struct perf_event_attr *attr, unsigned stack_bytes, struct perun_error *err);

/* Samples (perf records) unwound into stacks for run. */
struct kperf_unwinder {
	struct kperf_stacks *stacks;
	struct kperf_procs *procs;
	struct kperf_kallsyms *kallsyms;
	size_t run;
	uint64_t unwound, failed;
};

void kperf_unwind_sample(void *unwinder, const void *record, size_t size);

/* ---- engine_bpf.c (frame-pointer mode) --------------------------------- */

struct kperf_bpf;

/* Load the program (fails naming CAP_BPF when not permitted) and attach
 * it to each sampling descriptor. */
int kperf_bpf_attach(struct kperf_bpf **out, const int *fds, size_t n, int verbose,
		     struct perun_error *err);
/* Name and count every stack the kernel counted, into st for run. */
int kperf_bpf_collect(struct kperf_bpf *b, struct kperf_stacks *st, struct kperf_procs *procs,
		      struct kperf_kallsyms *ks, size_t run, uint64_t *dropped,
		      struct perun_error *err);
void kperf_bpf_free(struct kperf_bpf *b);

#endif
