/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * In-kernel half of the frame-pointer mode: each sample of the perf events
 * the collector opened for the profiled processes walks the user and the
 * kernel stack (frame pointers) into a stack-trace map and counts the pair
 * in a hash map, so that only (pid, stack ids) -> count crosses into user
 * space, once, at the end; no sample is written to a ring buffer.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "kperf-stack.h"

char LICENSE[] SEC("license") = "GPL";

/* vmlinux.h has the kernel's types, not its errno macros. */
#define ENOMEM 12
#define EEXIST 17

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, KPERF_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, KPERF_MAX_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KPERF_MAX_COUNTS);
	__type(key, struct kperf_stack_key);
	__type(value, __u64);
} counts SEC(".maps");

/* Samples whose stacks or count found no room: reported, never silent. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dropped SEC(".maps");

static __always_inline void drop(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&dropped, &zero);
	if (n)
		*n += 1;
}

SEC("perf_event")
int sample_stack(struct bpf_perf_event_data *ctx)
{
	struct kperf_stack_key key = {};
	key.pid = bpf_get_current_pid_tgid() >> 32;
	key.user_stack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	key.kernel_stack = bpf_get_stackid(ctx, &stacks, 0);
	if (key.user_stack == -EEXIST || key.kernel_stack == -EEXIST || key.user_stack == -ENOMEM ||
	    key.kernel_stack == -ENOMEM) {
		drop();
		return 0;
	}
	__u64 *count = bpf_map_lookup_elem(&counts, &key);
	if (count) {
		__sync_fetch_and_add(count, 1);
		return 0;
	}
	__u64 one = 1;
	if (bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST)) {
		/* Another CPU made it first, or the map is full. */
		count = bpf_map_lookup_elem(&counts, &key);
		if (count)
			__sync_fetch_and_add(count, 1);
		else
			drop();
	}
	/* 0: no sample record for a ring buffer; the count is all. */
	return 0;
}
