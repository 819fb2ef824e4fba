/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Frame-pointer mode: the BPF program of kperf.bpf.c (a bpftool skeleton)
 * attached to every sampling event counts (pid, user stack, kernel stack)
 * in the kernel; at the end of a run the counts and the stacks they name
 * are read once.  Costs per sample a stack walk in the kernel and a hash
 * update, nothing in user space: cheaper than perf record -g, which copies
 * each sample's stack out and parses it afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kperf-stack.h"
#include "kperf.bpf.skel.h"
#include "kperf.h"

/* linux/perf_event.h's, which would clash with libpfm4's copy. */
#define KPERF_IOC_SET_BPF _IOW('$', 8, __u32)

struct kperf_bpf {
	struct kperf_bpf_skel *skel;
};

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level, (void)fmt, (void)ap;
	return 0;
}

static int libbpf_verbose(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

static int load_error(int e, struct perun_error *err)
{
	if (e == EPERM || e == EACCES)
		return perun_error_set(
			err, PERUN_ETOOL,
			"not permitted to load the BPF stack sampler (needs root, "
			"or CAP_BPF and CAP_PERFMON; --call-graph dwarf needs neither, "
			"only perf_event_paranoid <= 2)");
	return perun_error_set_errno(err, PERUN_ETOOL, e,
				     "cannot load the BPF stack sampler (does the kernel have "
				     "BPF and BTF?)");
}

int kperf_bpf_attach(struct kperf_bpf **out, const int *fds, size_t n, int verbose,
		     struct perun_error *err)
{
	struct kperf_bpf *b = calloc(1, sizeof(*b));
	*out = b;
	if (!b)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	libbpf_set_print(verbose ? libbpf_verbose : libbpf_quiet);
	b->skel = kperf_bpf_skel__open();
	if (!b->skel)
		return load_error(errno, err);
	int e = kperf_bpf_skel__load(b->skel);
	if (e)
		return load_error(-e, err);
	int prog = bpf_program__fd(b->skel->progs.sample_stack);
	for (size_t i = 0; i < n; i++)
		if (ioctl(fds[i], KPERF_IOC_SET_BPF, prog))
			return errno == EPERM || errno == EACCES
				       ? load_error(errno, err)
				       : perun_error_set_errno(
						 err, PERUN_ETOOL, errno,
						 "cannot attach the BPF stack sampler to an event");
	return 0;
}

/* A stack of the map, innermost first, cut at its first zero. */
static size_t stack_of(int map, int id, uint64_t *ips)
{
	if (id < 0 || bpf_map_lookup_elem(map, &id, ips))
		return 0;
	size_t n = 0;
	while (n < KPERF_MAX_STACK_DEPTH && ips[n])
		n++;
	return n;
}

static uint64_t dropped_samples(struct kperf_bpf *b)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t total = 0;
	__u64 *per_cpu = ncpu > 0 ? calloc((size_t)ncpu, sizeof(*per_cpu)) : NULL;
	__u32 zero = 0;
	if (per_cpu && !bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.dropped), &zero, per_cpu))
		for (int c = 0; c < ncpu; c++)
			total += per_cpu[c];
	free(per_cpu);
	return total;
}

int kperf_bpf_collect(struct kperf_bpf *b, struct kperf_stacks *st, struct kperf_procs *procs,
		      struct kperf_kallsyms *ks, size_t run, uint64_t *dropped,
		      struct perun_error *err)
{
	int counts = bpf_map__fd(b->skel->maps.counts);
	int stacks = bpf_map__fd(b->skel->maps.stacks);
	uint64_t user[KPERF_MAX_STACK_DEPTH], kernel[KPERF_MAX_STACK_DEPTH];
	struct kperf_stack_key key, next;
	void *prev = NULL;
	*dropped = dropped_samples(b);
	while (!bpf_map_get_next_key(counts, prev, &next)) {
		key = next;
		prev = &key;
		__u64 count;
		if (bpf_map_lookup_elem(counts, &key, &count))
			continue;
		size_t nuser = stack_of(stacks, key.user_stack, user);
		size_t nkernel = stack_of(stacks, key.kernel_stack, kernel);
		if (!nuser && !nkernel) {
			*dropped += count;
			continue;
		}
		if (kperf_stacks_add_addresses(st, procs, ks, (pid_t)key.pid, kernel, nkernel, user,
					       nuser, run, count))
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	return 0;
}

void kperf_bpf_free(struct kperf_bpf *b)
{
	if (!b)
		return;
	kperf_bpf_skel__destroy(b->skel);
	free(b);
}
