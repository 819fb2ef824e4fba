/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Dwarf mode: each sample carries the user registers and a copy of the top
 * of the user stack (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER), as
 * perf record --call-graph dwarf asks, and the kernel's own call chain.
 * libdw unwinds the copy with the CFI of the modules (.eh_frame,
 * .debug_frame) through a Dwfl_Thread_Callbacks set whose memory is the
 * copy, so programs built without frame pointers get whole stacks.
 */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <string.h>

#include "events.h"
#include "kperf.h"

#define MAX_FRAMES 127

#if defined(__x86_64__)
/* perf's x86 register numbers (asm/perf_regs.h): AX BX CX DX SI DI BP SP
 * IP, then R8..R15 at 16..23; in the sample in that (bit) order. */
#define REGS_MASK 0xff01ffULL
#define NREGS	  17
/* The sample's i-th register is DWARF register dwarf_of[i]: rax rdx rcx
 * rbx rsi rdi rbp rsp r8..r15 rip. */
static const int dwarf_of[NREGS] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 8, 9, 10, 11, 12, 13, 14, 15 };
#define DWARF_SP 7
#endif

int kperf_unwind_attr(struct perf_event_attr *attr, unsigned stack_bytes, struct perun_error *err)
{
#ifdef REGS_MASK
	attr->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			     PERF_SAMPLE_STACK_USER;
	attr->exclude_callchain_user = 1;
	attr->sample_regs_user = REGS_MASK;
	attr->sample_stack_user = stack_bytes;
	return 0;
#else
	(void)attr, (void)stack_bytes;
	return perun_error_set(err, PERUN_EINVAL,
			       "--call-graph dwarf is not supported on this architecture yet "
			       "(use --call-graph fp)");
#endif
}

/* The sample being unwound: what the callbacks read. */
struct sample {
	pid_t tid;
	Dwarf_Word regs[NREGS];
	uint64_t sp;
	const unsigned char *stack;
	uint64_t stack_size;
	uint64_t ips[MAX_FRAMES];
	size_t n;
};

static pid_t next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	(void)dwfl;
	struct sample **current = dwfl_arg;
	if (*thread_argp)
		return 0;
	*thread_argp = *current;
	return (*current)->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
	(void)dwfl, (void)tid;
	*thread_argp = *(struct sample **)dwfl_arg;
	return true;
}

/* Only the copied stack is memory: a read outside it ends the unwinding,
 * as perf's unwinder ends there. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
	(void)dwfl;
	const struct sample *s = *(struct sample **)dwfl_arg;
	if (addr < s->sp || addr - s->sp + sizeof(*result) > s->stack_size)
		return false;
	memcpy(result, s->stack + (addr - s->sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	const struct sample *s = thread_arg;
	return dwfl_thread_state_registers(thread, 0, NREGS, s->regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct sample *s = arg;
	Dwarf_Addr pc;
	if (!dwfl_frame_pc(state, &pc, NULL) || !pc)
		return DWARF_CB_ABORT;
	s->ips[s->n++] = pc;
	return s->n < MAX_FRAMES ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* The callbacks' view of the sample: one per process, as dwfl_attach_state
 * binds its argument once for the Dwfl's life. */
static struct sample *current;

static void unwind_user(struct kperf_unwinder *u, pid_t pid, struct sample *s)
{
	Dwfl *dwfl = kperf_procs_dwfl(u->procs, pid);
	current = s;
	if (dwfl && dwfl_pid(dwfl) < 0 &&
	    !dwfl_attach_state(dwfl, NULL, pid, &thread_callbacks, &current))
		dwfl = NULL;
	if (dwfl)
		dwfl_getthread_frames(dwfl, s->tid, on_frame, s);
	if (!s->n) /* at least where it was */
		s->ips[s->n++] = s->regs[16];
}

void kperf_unwind_sample(void *unwinder, const void *record, size_t size)
{
	struct kperf_unwinder *u = unwinder;
	const unsigned char *p = (const unsigned char *)record + sizeof(struct perf_event_header);
	const unsigned char *end = (const unsigned char *)record + size;
	struct sample s = { 0 };
	uint64_t kernel[MAX_FRAMES];
	size_t nkernel = 0;
#define TAKE(dst, bytes)                                                                           \
	do {                                                                                       \
		if ((size_t)(end - p) < (bytes))                                                   \
			return;                                                                    \
		memcpy((dst), p, (bytes));                                                         \
		p += (bytes);                                                                      \
	} while (0)
	uint64_t ip, nr, abi, value;
	uint32_t ids[2];
	TAKE(&ip, 8);
	TAKE(ids, 8);
	s.tid = (pid_t)ids[1];
	TAKE(&nr, 8);
	for (uint64_t i = 0; i < nr; i++) {
		TAKE(&value, 8);
		/* Context markers (PERF_CONTEXT_*) are the highest values. */
		if (value < (uint64_t)-4095 && nkernel < MAX_FRAMES)
			kernel[nkernel++] = value;
	}
	TAKE(&abi, 8);
	if (abi) {
		for (int i = 0; i < NREGS; i++) {
			TAKE(&value, 8);
			s.regs[dwarf_of[i]] = value;
		}
		s.sp = s.regs[DWARF_SP];
	}
	uint64_t stack_size = 0, dyn_size = 0;
	TAKE(&stack_size, 8);
	if (stack_size) {
		if ((size_t)(end - p) < stack_size + 8)
			return;
		s.stack = p;
		memcpy(&dyn_size, p + stack_size, 8);
		s.stack_size = dyn_size < stack_size ? dyn_size : stack_size;
	}
#undef TAKE
	pid_t pid = (pid_t)ids[0];
	if (abi)
		unwind_user(u, pid, &s);
	if (s.n > 1)
		u->unwound++;
	else
		u->failed++;
	kperf_stacks_add_addresses(u->stacks, u->procs, u->kallsyms, pid, kernel, nkernel, s.ips,
				   s.n, u->run, 1);
}
