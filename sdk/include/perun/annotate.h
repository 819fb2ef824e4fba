/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun/annotate.h: annotations in a program's source (C11 and C++), in the
 * manner of PerfFlowAspect.  Link with -lperun-annotate (pkg-config
 * perun-annotate).
 *
 *   int work(int n)
 *   {
 *           PERUN_CRITICAL_PATH(work, around);   first line of the function
 *           ...
 *   }
 *   PERUN_SYNC_BEGIN(load); ... PERUN_SYNC_END(load);
 *   { PERUN_SYNC_SCOPE(parse); ... }             ends with its block
 *   PERUN_ASYNC_BEGIN(request, id);  ... on any thread:  PERUN_ASYNC_END(request, id);
 *   PERUN_INSTANT(checkpoint, "items", n);
 *   PERUN_COUNTER(queue, "length", len);
 *
 * Names are identifiers.  Pointcuts are before (an instant event at entry),
 * after (an instant event at exit) and around (a region); before_async,
 * after_async and around_async are their asynchronous forms (id 0).
 *
 * Every annotation is a USDT probe of provider "perun" (the stapsdt note of
 * <sys/sdt.h>, with a semaphore): <name>_begin/<name>_end for sync regions,
 * <name>_async_start/<name>_async_finish for async ones (argument 2: the
 * id), <name>_before, <name>_after, <name>_instant and <name>_counter
 * (argument 2: the value); argument 1 is the name as a string.  The trace
 * collector pairs them by suffix.  While nobody traces and PERUN_ANNOTATE is
 * unset, an annotation costs two loads and a branch.
 *
 * PERUN_ANNOTATE (the keys of PerfFlowAspect's PERFFLOW_OPTIONS), when set,
 * makes the runtime write Chrome Trace Event JSON per process:
 *   PERUN_ANNOTATE="name=solver:log-dir=/tmp/t:log-event=compact"
 * keys, separated by ':':
 *   name                  the component's name (process_name)  [generic]
 *   log-filename-include  parts of the file name, of name, instance-path,
 *                         hostname, pid, joined by '.'  [hostname,pid]
 *                         the file is <log-dir>/perun.<parts>.pfw, or
 *                         .1.pfw, .2.pfw, ... when that exists (never
 *                         overwritten: an exec'd image keeps the pid)
 *   log-dir               where the file is written  [.]
 *   log-enable            True or False  [True]
 *   cpu-mem-usage         True: CPU usage (%) and peak memory (KiB) per
 *                         region, as counter events  [False]
 *   log-event             verbose (B/E events) or compact (X)  [verbose]
 *   log-format            array or object  [array]
 * instance-path is $FLUX_ENCLOSING_ID and $FLUX_JOB_ID joined by '.'
 * ("local" when neither is set).  The file parses as JSON after every
 * flush: events are buffered per thread and written at 64 KiB, at thread
 * and process exit, before fork and on a fatal signal (not at an exec:
 * call perun_annotate_flush() before one).
 */
#ifndef PERUN_ANNOTATE_H
#define PERUN_ANNOTATE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Set by the runtime while it writes JSON; read by every annotation. */
extern int perun_annotate_active;

enum perun_annotate_kind {
	PERUN_ANNOTATE_SYNC,
	PERUN_ANNOTATE_ASYNC,
	PERUN_ANNOTATE_BEFORE,
	PERUN_ANNOTATE_AFTER,
	PERUN_ANNOTATE_INSTANT,
	PERUN_ANNOTATE_COUNTER,
};

/* One annotation site; static, never freed. */
struct perun_annotate_site {
	const char *name;
	const char *cat; /* the source file */
	const char *key; /* the argument of instants and counters */
	int kind;
	volatile unsigned short *sema_begin, *sema_end;
	void (*probe_begin)(const char *name, int64_t arg);
	void (*probe_end)(const char *name, int64_t arg);
};

/* What a scope remembers between its beginning and its end. */
struct perun_annotate_scope {
	const struct perun_annotate_site *site;
	int armed;
};

/* The slow paths, taken only when a tracer or the JSON writer listens. */
void perun_annotate_begin(const struct perun_annotate_site *site, int64_t arg);
void perun_annotate_end(const struct perun_annotate_site *site, int64_t arg);
void perun_annotate_point(const struct perun_annotate_site *site, int64_t arg);
void perun_annotate_scope_begin(struct perun_annotate_scope *scope);
void perun_annotate_scope_end_slow(struct perun_annotate_scope *scope);
/* Write out what every thread buffered (also done at exit by itself). */
void perun_annotate_flush(void);

static inline void perun_annotate_scope_end(struct perun_annotate_scope *scope)
{
	if (__builtin_expect(scope->armed != 0, 0))
		perun_annotate_scope_end_slow(scope);
}

#ifdef __cplusplus
}
#endif

#define PERUN__STR(x)	     #x
#define PERUN__XSTR(x)	     PERUN__STR(x)
#define PERUN__LIKELY_OFF(x) __builtin_expect((x) != 0, 0)

/*
 * A USDT probe as a tiny function (a nop the tracer patches, then ret),
 * emitted once per translation unit and name, with its stapsdt note and
 * semaphore: calling it from a slow path lets a scope's end, run by a
 * cleanup function, still be a probe of its own name.  The arguments are
 * the call's first two registers.
 */
#if defined(__x86_64__)
#define PERUN__NOP_RET "nop\n\tret"
#define PERUN__ADDR    ".8byte"
#define PERUN__ARGS    "8@%rdi -8@%rsi"
#elif defined(__aarch64__)
#define PERUN__NOP_RET "nop\n\tret"
#define PERUN__ADDR    ".8byte"
#define PERUN__ARGS    "8@x0 -8@x1"
#endif

#ifdef PERUN__NOP_RET
#define PERUN__PROBE_ASM(probe)                                                                    \
	__asm__ __volatile__(                                                                      \
		".ifndef __perun_probe_" probe "\n\t"                                              \
		".pushsection .text.perun_probes,\"ax\",@progbits\n\t"                             \
		".weak __perun_probe_" probe "\n\t"                                                \
		".hidden __perun_probe_" probe "\n\t"                                              \
		".type __perun_probe_" probe ",@function\n"                                        \
		"__perun_probe_" probe ":\n\t" PERUN__NOP_RET "\n\t"                               \
		".size __perun_probe_" probe ", . - __perun_probe_" probe "\n\t"                   \
		".popsection\n\t"                                                                  \
		".pushsection .probes,\"aw\",@progbits\n\t"                                        \
		".weak __perun_sema_" probe "\n\t"                                                 \
		".hidden __perun_sema_" probe "\n\t"                                               \
		".balign 2\n"                                                                      \
		"__perun_sema_" probe ":\n\t.2byte 0\n\t"                                          \
		".popsection\n\t"                                                                  \
		".pushsection .note.stapsdt,\"\",\"note\"\n\t"                                     \
		".balign 4\n\t"                                                                    \
		".4byte 992f-991f, 994f-993f, 3\n"                                                 \
		"991:\t.asciz \"stapsdt\"\n"                                                       \
		"992:\t.balign 4\n"                                                                \
		"993:\t" PERUN__ADDR " __perun_probe_" probe "\n\t" PERUN__ADDR                    \
		" _.stapsdt.base\n\t" PERUN__ADDR " __perun_sema_" probe "\n\t"                    \
		".asciz \"perun\"\n\t"                                                             \
		".asciz \"" probe "\"\n\t"                                                         \
		".asciz \"" PERUN__ARGS "\"\n"                                                     \
		"994:\t.balign 4\n\t"                                                              \
		".popsection\n\t"                                                                  \
		".ifndef _.stapsdt.base\n\t"                                                       \
		".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n\t"          \
		".weak _.stapsdt.base\n\t"                                                         \
		".hidden _.stapsdt.base\n"                                                         \
		"_.stapsdt.base: .space 1\n\t"                                                     \
		".size _.stapsdt.base, 1\n\t"                                                      \
		".popsection\n\t"                                                                  \
		".endif\n\t"                                                                       \
		".endif\n")
/* Declared by their assembler names: C++ would mangle a function's. */
#define PERUN__PROBE_DECL(sym)                                                                     \
	extern __attribute__((visibility("hidden"))) volatile unsigned short                       \
		__perun_sema_##sym __asm__(PERUN__XSTR(__perun_sema_##sym));                       \
	extern __attribute__((visibility("hidden"))) void __perun_probe_##sym(                     \
		const char *, int64_t) __asm__(PERUN__XSTR(__perun_probe_##sym))
#define PERUN__SEMA(sym)      __perun_sema_##sym
#define PERUN__SEMA_ADDR(sym) (&__perun_sema_##sym)
#define PERUN__PROBE_FN(sym)  (&__perun_probe_##sym)
#else /* no probes on this architecture: the JSON writer only */
static volatile unsigned short perun__no_sema;
#define PERUN__PROBE_ASM(probe) ((void)0)
#define PERUN__PROBE_DECL(sym)	extern int perun__unused_##sym
#define PERUN__SEMA(sym)	perun__no_sema
#define PERUN__SEMA_ADDR(sym)	(&perun__no_sema)
#define PERUN__PROBE_FN(sym)	((void (*)(const char *, int64_t))0)
#endif

/* The site of an annotation with probes b and e (e may repeat b). */
#define PERUN__SITE(var, name, kind, key, b, e)                                                    \
	PERUN__PROBE_DECL(name##_##b);                                                             \
	PERUN__PROBE_DECL(name##_##e);                                                             \
	static const struct perun_annotate_site var = {                                            \
		#name,                                                                             \
		__FILE__,                                                                          \
		key,                                                                               \
		kind,                                                                              \
		PERUN__SEMA_ADDR(name##_##b),                                                      \
		PERUN__SEMA_ADDR(name##_##e),                                                      \
		PERUN__PROBE_FN(name##_##b),                                                       \
		PERUN__PROBE_FN(name##_##e),                                                       \
	}

#define PERUN__LISTENING(name, b) (PERUN__SEMA(name##_##b) | perun_annotate_active)

/* Begin and end probes of a region (both emitted where it begins). */
#define PERUN__REGION_ASM(name, b, e)                                                              \
	do {                                                                                       \
		PERUN__PROBE_ASM(PERUN__XSTR(name##_##b));                                         \
		PERUN__PROBE_ASM(PERUN__XSTR(name##_##e));                                         \
	} while (0)

#define PERUN__CALL(fn, name, kind, key, b, e, arg)                                                \
	do {                                                                                       \
		PERUN__SITE(perun__site, name, kind, key, b, e);                                   \
		PERUN__REGION_ASM(name, b, e);                                                     \
		if (PERUN__LIKELY_OFF(PERUN__LISTENING(name, b)))                                  \
			fn(&perun__site, (int64_t)(arg));                                          \
	} while (0)

/* A synchronous region on this thread, from begin to end. */
#define PERUN_SYNC_BEGIN(name)                                                                     \
	PERUN__CALL(perun_annotate_begin, name, PERUN_ANNOTATE_SYNC, 0, begin, end, 0)
#define PERUN_SYNC_END(name)                                                                       \
	PERUN__CALL(perun_annotate_end, name, PERUN_ANNOTATE_SYNC, 0, end, end, 0)

/* An asynchronous region: begun and ended anywhere, matched by id. */
#define PERUN_ASYNC_BEGIN(name, id)                                                                \
	PERUN__CALL(perun_annotate_begin, name, PERUN_ANNOTATE_ASYNC, 0, async_start,              \
		    async_finish, id)
#define PERUN_ASYNC_END(name, id)                                                                  \
	PERUN__CALL(perun_annotate_end, name, PERUN_ANNOTATE_ASYNC, 0, async_finish, async_finish, \
		    id)

/* An instant event, and a counter, with one integer argument key: value. */
#define PERUN_INSTANT(name, key, value)                                                            \
	PERUN__CALL(perun_annotate_point, name, PERUN_ANNOTATE_INSTANT, key, instant, instant,     \
		    value)
#define PERUN_COUNTER(name, key, value)                                                            \
	PERUN__CALL(perun_annotate_point, name, PERUN_ANNOTATE_COUNTER, key, counter, counter,     \
		    value)

/*
 * A region from here to the end of the enclosing block, however it is
 * left (return, break, goto, a C++ exception): a cleanup variable.
 */
#define PERUN__SCOPE(var, name, kind, b, e)                                                        \
	PERUN__SITE(var##_site, name, kind, 0, b, e);                                              \
	struct perun_annotate_scope var                                                            \
		__attribute__((cleanup(perun_annotate_scope_end))) = { &var##_site, 0 };           \
	PERUN__REGION_ASM(name, b, e);                                                             \
	if (PERUN__LIKELY_OFF(PERUN__SEMA(name##_##b) | PERUN__SEMA(name##_##e) |                  \
			      perun_annotate_active))                                              \
	perun_annotate_scope_begin(&var)

#define PERUN_SYNC_SCOPE(name)                                                                     \
	PERUN__SCOPE(perun__scope_##name, name, PERUN_ANNOTATE_SYNC, begin, end)

/* The first line of a function on the critical path, with its pointcut. */
#define PERUN_CRITICAL_PATH(name, pointcut) PERUN__CP_##pointcut(name)
#define PERUN__CP_around(name)		    PERUN_SYNC_SCOPE(name)
#define PERUN__CP_before(name)                                                                     \
	PERUN__CALL(perun_annotate_point, name, PERUN_ANNOTATE_BEFORE, 0, before, before, 0)
#define PERUN__CP_after(name)                                                                      \
	PERUN__SCOPE(perun__after_##name, name, PERUN_ANNOTATE_AFTER, after, after)
#define PERUN__CP_around_async(name)                                                               \
	PERUN__SCOPE(perun__scope_##name, name, PERUN_ANNOTATE_ASYNC, async_start, async_finish)
#define PERUN__CP_before_async(name)                                                               \
	PERUN__CALL(perun_annotate_begin, name, PERUN_ANNOTATE_ASYNC, 0, async_start,              \
		    async_finish, 0)
#define PERUN__CP_after_async(name) PERUN_ASYNC_END(name, 0)

#endif
