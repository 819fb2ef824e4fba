/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * In-kernel half of the ebpf engine: uprobes, uretprobes and USDT probes of
 * the traced program, and the fork/exit tracepoints that follow its
 * processes and threads.  Only processes descending from the profiled
 * command pass the filter, and sampled probes are thinned here, so only
 * what is asked for crosses into the ring buffer.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/usdt.bpf.h>

#include "trace-event.h"

char LICENSE[] SEC("license") = "GPL";

#define RINGBUF_BYTES (1 << 24)
/* A quarter full: wake the reader now rather than at its next poll. */
#define WAKEUP_BYTES (RINGBUF_BYTES / 4)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RINGBUF_BYTES);
} events SEC(".maps");

/* Processes (tgids) of the profiled command and its descendants. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} tracked SEC(".maps");

/* Per thread and sampled probe: calls seen, nesting depth and which of the
 * open calls were recorded, so that a recorded entry gets its exit. */
struct sample_state {
	__u64 calls;
	__u64 mask;
	__u32 depth;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1 << 16);
	__type(key, __u64);
	__type(value, struct sample_state);
} samples SEC(".maps");

/* Events the ring buffer had no room for. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* Async regions of <perun/annotate.h> begun and not yet ended, by
 * process, begin probe and the region's id: their begin time. */
struct async_key {
	__u32 pid;
	__u32 sid;
	__u64 id;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1 << 16);
	__type(key, struct async_key);
	__type(value, __u64);
} async_open SEC(".maps");

static __always_inline void emit_at(__u64 ts, __u32 type, __u32 id, __u32 pid, __u32 tid);

static __always_inline void emit(__u32 type, __u32 id, __u32 pid, __u32 tid)
{
	emit_at(bpf_ktime_get_ns(), type, id, pid, tid);
}

static __always_inline void emit_at(__u64 ts, __u32 type, __u32 id, __u32 pid, __u32 tid)
{
	struct perun_trace_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__u32 zero = 0;
		__u64 *n = bpf_map_lookup_elem(&lost, &zero);
		if (n)
			(*n)++;
		return;
	}
	e->ts = ts;
	e->tid = tid;
	e->pid = pid;
	e->id = id;
	e->type = type;
	/* Waking the reader for every event would cost a context switch per
	 * call; it polls anyway, and is woken early only when the buffer
	 * fills up. */
	__u64 pending = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	bpf_ringbuf_submit(e, pending > WAKEUP_BYTES ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

/* Should this call of a sampled probe be recorded? */
static __always_inline int sampled(__u64 cookie, __u32 tid, int begin)
{
	__u64 sample = cookie >> 40;
	if (sample <= 1)
		return 1;
	__u64 key = ((__u64)tid << 32) | ((cookie >> 20) & PERUN_TRACE_ID_MASK);
	struct sample_state *s = bpf_map_lookup_elem(&samples, &key);
	if (!s) {
		struct sample_state zero = {};
		bpf_map_update_elem(&samples, &key, &zero, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&samples, &key);
		if (!s)
			return 0;
	}
	if (begin) {
		__u32 d = s->depth++;
		int take = s->calls++ % sample == 0;
		if (d < 64) {
			if (take)
				s->mask |= 1ULL << d;
			else
				s->mask &= ~(1ULL << d);
		}
		return take;
	}
	if (s->depth == 0)
		return 0; /* an exit whose entry happened before tracing */
	__u32 d = --s->depth;
	/* Deeper than the mask: record, the transformation drops strays. */
	return d >= 64 || (s->mask & (1ULL << d));
}

static __always_inline int probe_hit(__u64 cookie, __u32 type, int begin)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 pid = pid_tgid >> 32, tid = (__u32)pid_tgid;
	if (!bpf_map_lookup_elem(&tracked, &pid))
		return 0;
	if (!sampled(cookie, tid, begin))
		return 0;
	emit(type, cookie & PERUN_TRACE_ID_MASK, pid, tid);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(func_entry)
{
	return probe_hit(bpf_get_attach_cookie(ctx), PERUN_TRACE_FUNC_BEGIN, 1);
}

SEC("uretprobe")
int BPF_KRETPROBE(func_exit)
{
	return probe_hit(bpf_get_attach_cookie(ctx), PERUN_TRACE_FUNC_END, 0);
}

/* A dynamic location: a single point, timed between two hits. */
SEC("uprobe")
int BPF_KPROBE(point_hit)
{
	return probe_hit(bpf_get_attach_cookie(ctx), PERUN_TRACE_USDT_SINGLE, 1);
}

SEC("usdt")
int BPF_USDT(usdt_begin)
{
	return probe_hit(bpf_usdt_cookie(ctx), PERUN_TRACE_USDT_BEGIN, 1);
}

SEC("usdt")
int BPF_USDT(usdt_end)
{
	return probe_hit(bpf_usdt_cookie(ctx), PERUN_TRACE_USDT_END, 0);
}

/*
 * An async region (argument 2: its id) may end on another thread: its
 * begin is kept here by id, and its end emits the begin (at its time)
 * and the end on the ending thread, a pair the transformation matches
 * as any other.
 */
SEC("usdt")
int BPF_USDT(usdt_async_begin, __u64 name, __s64 id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), cookie = bpf_usdt_cookie(ctx);
	__u32 pid = pid_tgid >> 32;
	if (!bpf_map_lookup_elem(&tracked, &pid))
		return 0;
	struct async_key key = { pid, (__u32)(cookie & PERUN_TRACE_ID_MASK), (__u64)id };
	__u64 ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&async_open, &key, &ts, BPF_ANY);
	return 0;
}

SEC("usdt")
int BPF_USDT(usdt_async_end, __u64 name, __s64 id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), cookie = bpf_usdt_cookie(ctx);
	__u32 pid = pid_tgid >> 32, tid = (__u32)pid_tgid;
	if (!bpf_map_lookup_elem(&tracked, &pid))
		return 0;
	__u32 sid = (cookie >> 20) & PERUN_TRACE_ID_MASK;
	struct async_key key = { pid, sid, (__u64)id };
	__u64 *begin = bpf_map_lookup_elem(&async_open, &key);
	if (!begin)
		return 0; /* begun before tracing, or ended twice */
	__u64 ts = *begin;
	bpf_map_delete_elem(&async_open, &key);
	emit_at(ts, PERUN_TRACE_USDT_BEGIN, sid, pid, tid);
	emit(PERUN_TRACE_USDT_END, cookie & PERUN_TRACE_ID_MASK, pid, tid);
	return 0;
}

SEC("usdt")
int BPF_USDT(usdt_single)
{
	return probe_hit(bpf_usdt_cookie(ctx), PERUN_TRACE_USDT_SINGLE, 1);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid = BPF_CORE_READ(parent, tgid);
	if (!bpf_map_lookup_elem(&tracked, &ppid))
		return 0;
	__u32 pid = BPF_CORE_READ(child, tgid), tid = BPF_CORE_READ(child, pid);
	if (pid == tid) {
		__u8 one = 1;
		bpf_map_update_elem(&tracked, &pid, &one, BPF_ANY);
		emit(PERUN_TRACE_PROCESS_BEGIN, ppid, pid, tid);
	} else {
		emit(PERUN_TRACE_THREAD_BEGIN, 0, pid, tid);
	}
	return 0;
}

/* A new program image in a traced process: the calls of the old one
 * ended here (their returns never come). */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 pid = pid_tgid >> 32, tid = (__u32)pid_tgid;
	if (!bpf_map_lookup_elem(&tracked, &pid))
		return 0;
	emit(PERUN_TRACE_PROCESS_BEGIN, BPF_CORE_READ(task, real_parent, tgid), pid, tid);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *task)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 pid = pid_tgid >> 32, tid = (__u32)pid_tgid;
	if (!bpf_map_lookup_elem(&tracked, &pid))
		return 0;
	if (pid == tid)
		emit(PERUN_TRACE_PROCESS_END, BPF_CORE_READ(task, real_parent, tgid), pid, tid);
	else
		emit(PERUN_TRACE_THREAD_END, 0, pid, tid);
	return 0;
}
