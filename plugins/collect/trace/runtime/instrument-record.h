/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The instrument runtime's records, read back by engine_instrument.c. */
#ifndef PERUN_INSTRUMENT_RECORD_H
#define PERUN_INSTRUMENT_RECORD_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define PERUN_INST_USE_TSC 1
#else
#define PERUN_INST_USE_TSC 0
#endif

struct perun_inst_record {
	uint64_t ts; /* TSC, or CLOCK_MONOTONIC ns; 0 ends the file */
	uint64_t fn; /* function address | PERUN_INST_EXIT, or a marker */
};

#define PERUN_INST_EXIT (1ULL << 63)
/* Markers have bit 62 set, which no user-space address has. */
#define PERUN_INST_MARKER	 (1ULL << 62)
#define PERUN_INST_THREAD_BEGIN	 (PERUN_INST_MARKER | 1ULL)
#define PERUN_INST_THREAD_END	 (PERUN_INST_MARKER | 2ULL)
#define PERUN_INST_PROCESS_END	 (PERUN_INST_MARKER | 3ULL)
#define PERUN_INST_PROCESS_BEGIN (PERUN_INST_MARKER | 4ULL) /* | ppid << 8 */
/* Records per mapped window of a thread's file (1 MiB). */
#define PERUN_INST_WINDOW 65536

#endif
