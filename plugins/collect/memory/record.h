/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The binary trace the preload library (recorder.c) writes and the memory
 * collector (trace.c) reads: one file per process image, named
 * "<pid>.<n>.pmem" (n counts the images a pid went through by exec), with
 * the process's /proc/self/maps dumps beside it in "<pid>.<n>.maps".
 *
 * The file is mapped shared and written in place, so what a thread stored
 * is in the page cache at once: nothing to flush, and a crash, _exit or
 * SIGKILL loses nothing already recorded.  After the header page come
 * fixed-size blocks, each owned by one thread; a block holds records
 * back to back.  A record's first word (its kind) is stored last, with
 * release order, so a record is either whole or reads as the end of its
 * block (kind 0: the file is zero-filled).
 */
#ifndef PERUN_MEMORY_RECORD_H
#define PERUN_MEMORY_RECORD_H

#include <stdint.h>

#define PMEM_MAGIC	 0x4d454d50u /* "PMEM" */
#define PMEM_BLOCK_MAGIC 0x4b4c4250u /* "PBLK" */
#define PMEM_VERSION	 1u
#define PMEM_HEADER_SIZE 4096u
#define PMEM_BLOCK_SIZE	 (64u * 1024u)
/* Address space reserved for one process's file; recording stops there. */
#define PMEM_MAP_MAX (64ull << 30)
/* Deepest stack one record may carry (frames after the allocator's own). */
#define PMEM_MAX_DEPTH 256

/* Environment the collector sets for the recorded program. */
#define PMEM_ENV_DIR   "PERUN_MEMORY_DIR"
#define PMEM_ENV_DEPTH "PERUN_MEMORY_DEPTH"

enum pmem_flags {
	PMEM_EXITED = 1u << 0, /* the library's destructor ran (exit or return) */
	PMEM_FULL = 1u << 1,   /* PMEM_MAP_MAX reached or the disk is full */
};

struct pmem_header {
	uint32_t magic;
	uint32_t version;
	uint32_t pid;
	uint32_t ppid;
	uint64_t start_ns; /* CLOCK_MONOTONIC when recording began */
	uint64_t reserved; /* bytes of the file handed out to blocks */
	uint64_t exit_ns;  /* CLOCK_MONOTONIC at exit, if PMEM_EXITED */
	uint32_t flags;	   /* enum pmem_flags */
	uint32_t max_depth;
	uint32_t threads;    /* thread serials handed out */
	uint32_t maps_dumps; /* /proc/self/maps copies in the .maps file */
};

struct pmem_block {
	uint32_t magic;	 /* PMEM_BLOCK_MAGIC */
	uint32_t thread; /* serial of the owning thread, from 1 */
	uint64_t unused;
};

enum pmem_kind {
	PMEM_END = 0,	/* no more records in this block */
	PMEM_STACK = 1, /* defines the thread's next stack id (from 0) */
	PMEM_ALLOC = 2, /* aux: enum pmem_allocator */
	PMEM_FREE = 3,
	PMEM_REALLOC = 4, /* ptr from old_ptr (0: like malloc) */
};

/* Index into pmem_allocator_names: the "subtype" Perun records. */
enum pmem_allocator {
	PMEM_MALLOC,
	PMEM_CALLOC,
	PMEM_REALLOC_FN,
	PMEM_FREE_FN,
	PMEM_MEMALIGN,
	PMEM_POSIX_MEMALIGN,
	PMEM_VALLOC,
	PMEM_ALIGNED_ALLOC,
	PMEM_ALLOCATORS
};

/* Kind in the low byte, allocator in the next one. */
#define PMEM_KIND(word) ((word)&0xffu)
#define PMEM_AUX(word)	(((word) >> 8) & 0xffu)

/* depth frames follow: frame 0 is the allocator's own entry point. */
struct pmem_stack {
	uint32_t kind;
	uint32_t depth;
	uint64_t ips[];
};

struct pmem_alloc {
	uint32_t kind;
	uint32_t stack;
	uint64_t ts; /* after the allocation returned */
	uint64_t ptr;
	uint64_t size;
};

struct pmem_free {
	uint32_t kind;
	uint32_t stack;
	uint64_t ts; /* before the memory was given back */
	uint64_t ptr;
};

struct pmem_realloc {
	uint32_t kind;
	uint32_t stack;
	uint64_t ts_free; /* before the call: old_ptr stops being ours */
	uint64_t ptr;	  /* the result */
	uint64_t size;
	uint64_t old_ptr;
	uint64_t ts; /* after the call */
};

#endif
