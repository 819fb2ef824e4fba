/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The raw event every engine produces and the transformation reads: the
 * BPF programs write it into their ring buffer, the collector appends it to
 * the raw data file, the instrument runtime's records are turned into it.
 * Included by BPF code too, so only fixed-size integer types appear here.
 */
#ifndef PERUN_TRACE_EVENT_H
#define PERUN_TRACE_EVENT_H

/* Python Perun's record types (collect/trace/values.py RecordType). */
enum perun_trace_record {
	PERUN_TRACE_FUNC_BEGIN = 0,
	PERUN_TRACE_FUNC_END = 1,
	PERUN_TRACE_USDT_SINGLE = 2,
	PERUN_TRACE_USDT_BEGIN = 3,
	PERUN_TRACE_USDT_END = 4,
	PERUN_TRACE_THREAD_BEGIN = 5,
	PERUN_TRACE_THREAD_END = 6,
	PERUN_TRACE_PROCESS_BEGIN = 7,
	PERUN_TRACE_PROCESS_END = 8,
};

/*
 * 24 bytes.  ts is CLOCK_MONOTONIC in ns (bpf_ktime_get_ns); id is the
 * probe id for probe records and the parent's pid for process records.
 */
struct perun_trace_event {
	unsigned long long ts;
	unsigned int tid;
	unsigned int pid;
	unsigned int id;
	unsigned int type;
};

/*
 * BPF cookie of a probe: its id, the id whose sampling state it shares (a
 * paired USDT end uses its begin's), and its sampling (1: every call).
 */
#define PERUN_TRACE_ID_BITS 20
#define PERUN_TRACE_ID_MASK ((1ULL << PERUN_TRACE_ID_BITS) - 1)
#define PERUN_TRACE_COOKIE(id, sid, sample)                                                        \
	((unsigned long long)(id) | ((unsigned long long)(sid) << 20) |                            \
	 ((unsigned long long)(sample) << 40))

#endif
