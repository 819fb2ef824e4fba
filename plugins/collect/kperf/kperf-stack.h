/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * What the BPF program (kperf.bpf.c) and the collector share: the key of
 * the in-kernel sample counts.  Stack ids index the stack-trace map; a
 * negative id is the error bpf_get_stackid gave (no user stack in a
 * kernel thread, no kernel stack for a sample taken in user space).
 */
#ifndef PERUN_KPERF_STACK_H
#define PERUN_KPERF_STACK_H

#define KPERF_MAX_STACK_DEPTH 127
#define KPERF_MAX_STACKS      16384
#define KPERF_MAX_COUNTS      65536

struct kperf_stack_key {
	unsigned int pid; /* the process (tgid) sampled */
	int user_stack;
	int kernel_stack;
	unsigned int pad;
};

#endif
