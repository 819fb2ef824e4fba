/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * libperun-malloc.so - preloaded into the profiled program by the memory
 * collector: records every malloc, calloc, realloc, free, memalign,
 * posix_memalign, valloc and aligned_alloc (C++ new and delete go through
 * them) with the raw return addresses of its call stack.  Symbols and lines
 * are resolved after the run, by the collector (trace.c).
 *
 * Cost per call: one local unwind (libunwind's unw_backtrace, which caches
 * the frame layout per address), a hash of the stack looked up in a
 * per-thread table so that each distinct stack is written once, a clock
 * read and a 24..48 byte record stored into the thread's block of a file
 * mapped shared (record.h).  No locks on that path; the only lock guards
 * growing the file, once per 32 MiB.
 *
 * The program must not notice us: the real functions' results and errno are
 * passed through untouched, nothing is recorded while we are inside
 * ourselves (libunwind, dlsym and signal handlers may allocate), dlsym's own
 * early allocations come from a static arena, and each process image after
 * fork or exec writes its own file.
 */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libunwind.h>
#include <malloc.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

#define EXPORT	    __attribute__((visibility("default")))
#define TLS	    __thread __attribute__((tls_model("initial-exec")))
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* How much the file grows at a time. */
#define GROW_BYTES    (32ull << 20)
#define DEFAULT_DEPTH 64

static struct {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void *(*memalign)(size_t, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*valloc)(size_t);
	void *(*aligned_alloc)(size_t, size_t);
} real;

/* 0 not started, 1 resolving the real functions, 2 ready. */
static int init_state;
static TLS int in_init;

/*
 * dlsym may allocate (its error buffer) before we know the real malloc:
 * such blocks come from here, are never given back and never recorded.
 */
#define BOOT_BYTES (64u * 1024u)
static _Alignas(64) unsigned char boot_arena[BOOT_BYTES];
static size_t boot_used;

/*
 * The process image being recorded; gen changes in a forked child.  No
 * descriptor stays open: a program may close or reuse any of them, so the
 * files are opened by name for the moment they are grown or appended to.
 */
static struct {
	char path[4096];      /* the .pmem file */
	char maps_path[4096]; /* the .maps file */
	unsigned char *base;
	struct pmem_header *hdr;
	uint64_t file_size;
	unsigned long long dl_adds, dl_subs;
	uint32_t gen;
	int max_depth;
} proc;

static pthread_mutex_t grow_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * A call site seen again with the stack pointer it had: if the words the
 * unwinder read then (each frame's return address and the word below it,
 * where a frame pointer is saved) still hold the same values, the stack is
 * the one unwound then, and unwinding again can be skipped.
 */
#define HOT_ENTRIES 1024u
#define ARENA_WORDS (512u * 1024u) /* 4 MiB of checks per thread at most */

struct hot_entry {
	uintptr_t ret;	  /* the caller's return address */
	uintptr_t cfa;	  /* the wrapper's canonical frame address */
	uint32_t which;	  /* wrapper: enum pmem_allocator */
	uint16_t seen;	  /* misses on this key */
	uint16_t fails;	  /* times its checks did not hold */
	uint32_t id;	  /* the stack's id, once checks are set */
	uint32_t nchecks; /* (address, value) pairs in arena from checks */
	size_t checks;
};

/* Per thread: its block and the stacks it has already written. */
struct stack_slot {
	uint64_t hash; /* 0: empty */
	uint64_t id;
};

static TLS struct {
	uint32_t gen; /* proc.gen this state belongs to */
	uint32_t serial;
	unsigned char *block;
	uint32_t used;
	uint32_t stacks; /* ids handed out */
	int busy;	 /* inside a hook: do not record */
	int dead;	 /* recording stopped for this thread */
	struct stack_slot *table;
	size_t mask; /* table size - 1 */
	size_t count;
	struct hot_entry *hot; /* HOT_ENTRIES, direct mapped */
	uint64_t *arena;       /* the hot entries' checks */
	size_t arena_used;
	uintptr_t stack_lo, stack_hi; /* this thread's stack, 0: unknown */
	int stack_known;
	int keyed; /* thread_key set: its mappings go at exit */
} self;

static pthread_key_t thread_key;
static int have_thread_key;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *boot_alloc(size_t size, size_t align)
{
	if (align < 16)
		align = 16;
	size_t start = __atomic_load_n(&boot_used, __ATOMIC_RELAXED), at;
	do {
		at = (start + align - 1) & ~(align - 1);
		if (at + size > BOOT_BYTES || at + size < at)
			return NULL;
	} while (!__atomic_compare_exchange_n(&boot_used, &start, at + size, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return boot_arena + at;
}

static int is_boot(const void *p)
{
	return (const unsigned char *)p >= boot_arena &&
	       (const unsigned char *)p < boot_arena + BOOT_BYTES;
}

/* ---- writing -------------------------------------------------------- */

static void put_str(char *buf, size_t *len, size_t cap, const char *s)
{
	while (*s && *len + 1 < cap)
		buf[(*len)++] = *s++;
	buf[*len] = '\0';
}

/* snprintf may allocate in some locales; this never does. */
static void put_uint(char *buf, size_t *len, size_t cap, unsigned long v)
{
	char digits[24];
	int n = 0;
	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n > 0 && *len + 1 < cap)
		buf[(*len)++] = digits[--n];
	buf[*len] = '\0';
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

static int count_objects(struct dl_phdr_info *info, size_t size, void *data)
{
	unsigned long long *counts = data;
	(void)size;
	counts[0] = info->dlpi_adds;
	counts[1] = info->dlpi_subs;
	return 1;
}

/*
 * Append a copy of /proc/self/maps when objects were loaded or unloaded
 * since the last one: the collector maps return addresses to files with
 * it.  Called when a thread meets a new stack, so rarely.
 */
static void dump_maps(int force)
{
	unsigned long long counts[2] = { 0, 0 };
	dl_iterate_phdr(count_objects, counts);
	if (!force && counts[0] == proc.dl_adds && counts[1] == proc.dl_subs)
		return;
	pthread_mutex_lock(&maps_lock);
	if (force || counts[0] != proc.dl_adds || counts[1] != proc.dl_subs) {
		int in = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		int out = in < 0 ? -1 : open(proc.maps_path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (in >= 0 && out >= 0) {
			char buf[4096];
			ssize_t n;
			write_all(out, "#maps\n", 6);
			while ((n = read(in, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
				if (n > 0)
					write_all(out, buf, (size_t)n);
			__atomic_add_fetch(&((struct pmem_header *)proc.base)->maps_dumps, 1,
					   __ATOMIC_RELEASE);
		}
		if (in >= 0)
			close(in);
		if (out >= 0)
			close(out);
		proc.dl_adds = counts[0];
		proc.dl_subs = counts[1];
	}
	pthread_mutex_unlock(&maps_lock);
}

static void stop_recording(void)
{
	__atomic_or_fetch(&proc.hdr->flags, PMEM_FULL, __ATOMIC_RELAXED);
	self.dead = 1;
}

/* Make the file at least end bytes long, allocating its disk blocks so
 * that stores into the mapping can never fault on a full disk. */
static int ensure_size(uint64_t end)
{
	if (end <= __atomic_load_n(&proc.file_size, __ATOMIC_ACQUIRE))
		return 0;
	int rc = 0;
	pthread_mutex_lock(&grow_lock);
	int fd = open(proc.path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		rc = -1;
	while (!rc && proc.file_size < end) {
		uint64_t from = proc.file_size, len = GROW_BYTES;
		if (from + len > PMEM_MAP_MAX)
			len = PMEM_MAP_MAX - from;
		if (len == 0 || fallocate(fd, 0, (off_t)from, (off_t)len) != 0)
			rc = -1;
		else
			__atomic_store_n(&proc.file_size, from + len, __ATOMIC_RELEASE);
	}
	if (fd >= 0)
		close(fd);
	pthread_mutex_unlock(&grow_lock);
	return rc;
}

static int new_block(void)
{
	/* The full block is in the page cache already (the mapping is the
	 * file's): dropping it from this process keeps the program's resident
	 * size from growing with the number of events it makes. */
	if (self.block) {
		int saved = errno;
		madvise(self.block, PMEM_BLOCK_SIZE, MADV_DONTNEED);
		errno = saved;
	}
	uint64_t off = __atomic_fetch_add(&proc.hdr->reserved, PMEM_BLOCK_SIZE, __ATOMIC_RELAXED);
	if (off + PMEM_BLOCK_SIZE > PMEM_MAP_MAX || ensure_size(off + PMEM_BLOCK_SIZE)) {
		stop_recording();
		return -1;
	}
	struct pmem_block *b = (struct pmem_block *)(proc.base + off);
	b->thread = self.serial;
	__atomic_store_n(&b->magic, PMEM_BLOCK_MAGIC, __ATOMIC_RELEASE);
	self.block = (unsigned char *)b;
	self.used = sizeof(*b);
	return 0;
}

/* A new process image (or a fork) makes every thread start afresh. */
static void adopt_thread(void)
{
	self.gen = proc.gen;
	self.serial = __atomic_add_fetch(&proc.hdr->threads, 1, __ATOMIC_RELAXED);
	self.block = NULL;
	self.used = 0;
	self.stacks = 0;
	self.dead = 0;
	if (self.table)
		memset(self.table, 0, (self.mask + 1) * sizeof(*self.table));
	self.count = 0;
	if (self.hot)
		memset(self.hot, 0, HOT_ENTRIES * sizeof(*self.hot));
	self.arena_used = 0;
}

/* Room for len bytes in this thread's block, or NULL when not recording. */
static void *reserve(size_t len)
{
	if (unlikely(self.gen != proc.gen))
		adopt_thread();
	if (unlikely(self.dead))
		return NULL;
	if (unlikely(!self.block || self.used + len + sizeof(uint32_t) > PMEM_BLOCK_SIZE)) {
		if (new_block())
			return NULL;
	}
	void *p = self.block + self.used;
	self.used += (uint32_t)len;
	return p;
}

static uint64_t hash_stack(void *const *ips, int n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
	for (int i = 0; i < n; i++) {
		h ^= (uint64_t)(uintptr_t)ips[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	h ^= h >> 32;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h ? h : 1;
}

/* A thread's own mappings, given back when it exits (thread_gone). */
static void *map_anon(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (!self.keyed && have_thread_key)
		self.keyed = pthread_setspecific(thread_key, (void *)1) == 0;
	return p;
}

static void thread_gone(void *unused)
{
	(void)unused;
	if (self.table)
		munmap(self.table, (self.mask + 1) * sizeof(*self.table));
	if (self.hot)
		munmap(self.hot, HOT_ENTRIES * sizeof(*self.hot));
	if (self.arena)
		munmap(self.arena, ARENA_WORDS * sizeof(uint64_t));
	self.table = NULL;
	self.hot = NULL;
	self.arena = NULL;
	self.mask = self.count = self.arena_used = 0;
	/* Stacks already written keep their ids: a thread allocating in later
	 * destructors writes them again under new ids. */
	self.keyed = 0;
}

static int grow_table(void)
{
	size_t size = self.table ? (self.mask + 1) * 2 : 4096;
	struct stack_slot *t = map_anon(size * sizeof(*t));
	if (!t)
		return -1;
	if (self.table) {
		for (size_t i = 0; i <= self.mask; i++) {
			if (!self.table[i].hash)
				continue;
			size_t k = self.table[i].hash & (size - 1);
			while (t[k].hash)
				k = (k + 1) & (size - 1);
			t[k] = self.table[i];
		}
		munmap(self.table, (self.mask + 1) * sizeof(*self.table));
	}
	self.table = t;
	self.mask = size - 1;
	return 0;
}

/*
 * The thread's id of this stack, writing its definition first when it is
 * new.  Stacks are told apart by a 64-bit hash of their addresses.
 */
static int stack_id(void *const *ips, int n, uint32_t *id)
{
	if (unlikely(self.gen != proc.gen))
		adopt_thread();
	uint64_t h = hash_stack(ips, n);
	if (self.table) {
		for (size_t k = h & self.mask; self.table[k].hash; k = (k + 1) & self.mask)
			if (self.table[k].hash == h) {
				*id = (uint32_t)self.table[k].id;
				return 0;
			}
	}
	if ((self.count + 1) * 2 > (self.table ? self.mask + 1 : 0) && grow_table())
		return -1;
	struct pmem_stack *s = reserve(sizeof(*s) + (size_t)n * sizeof(uint64_t));
	if (!s)
		return -1;
	s->depth = (uint32_t)n;
	for (int i = 0; i < n; i++)
		s->ips[i] = (uint64_t)(uintptr_t)ips[i];
	__atomic_store_n(&s->kind, PMEM_STACK, __ATOMIC_RELEASE);
	*id = self.stacks++;
	size_t k = h & self.mask;
	while (self.table[k].hash)
		k = (k + 1) & self.mask;
	self.table[k].hash = h;
	self.table[k].id = *id;
	self.count++;
	dump_maps(0);
	return 0;
}

#define NO_STACK UINT32_MAX

static void record_alloc(enum pmem_allocator which, uint32_t id, const void *ptr, size_t size)
{
	if (id == NO_STACK)
		return;
	struct pmem_alloc *r = reserve(sizeof(*r));
	if (!r)
		return;
	r->stack = id;
	r->ts = now_ns();
	r->ptr = (uint64_t)(uintptr_t)ptr;
	r->size = size;
	__atomic_store_n(&r->kind, PMEM_ALLOC | (uint32_t)which << 8, __ATOMIC_RELEASE);
}

static void record_free(uint32_t id, const void *ptr, uint64_t ts)
{
	if (id == NO_STACK)
		return;
	struct pmem_free *r = reserve(sizeof(*r));
	if (!r)
		return;
	r->stack = id;
	r->ts = ts;
	r->ptr = (uint64_t)(uintptr_t)ptr;
	__atomic_store_n(&r->kind, PMEM_FREE | PMEM_FREE_FN << 8, __ATOMIC_RELEASE);
}

static void record_realloc(uint32_t id, const void *old, const void *ptr, size_t size,
			   uint64_t ts_free)
{
	if (id == NO_STACK)
		return;
	struct pmem_realloc *r = reserve(sizeof(*r));
	if (!r)
		return;
	r->stack = id;
	r->ts_free = ts_free;
	r->ptr = (uint64_t)(uintptr_t)ptr;
	r->size = size;
	r->old_ptr = (uint64_t)(uintptr_t)old;
	r->ts = now_ns();
	__atomic_store_n(&r->kind, PMEM_REALLOC | PMEM_REALLOC_FN << 8, __ATOMIC_RELEASE);
}

/* ---- stacks -------------------------------------------------------- */

/* The bounds of this thread's stack, once: checks read only inside it. */
static int know_stack(void)
{
	if (!self.stack_known) {
		pthread_attr_t attr;
		void *addr;
		size_t size;
		self.stack_known = 1;
		if (pthread_getattr_np(pthread_self(), &attr) == 0) {
			if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
				self.stack_lo = (uintptr_t)addr;
				self.stack_hi = (uintptr_t)addr + size;
			}
			pthread_attr_destroy(&attr);
		}
	}
	return self.stack_hi != 0;
}

static int in_stack(uintptr_t a)
{
	return a >= self.stack_lo && a + 2 * sizeof(uint64_t) <= self.stack_hi;
}

/*
 * Unwind again, slowly, to learn where each frame's return address lies
 * (its canonical frame address - 8) and remember those words and the
 * ones below them for e.  ips[0] is the wrapper, ips[1] its caller.
 */
static void __attribute__((noinline))
set_checks(struct hot_entry *e, void *const *ips, int n, uint32_t id)
{
	unw_context_t uc;
	unw_cursor_t c;
	unw_word_t ip, sp;
	int i = -1;
	if (n < 2 || !know_stack() || !in_stack(e->cfa))
		return;
	if (!self.arena && !(self.arena = map_anon(ARENA_WORDS * sizeof(uint64_t))))
		return;
	size_t need = 4 * (size_t)n;
	if (self.arena_used + need > ARENA_WORDS)
		return;
	uint64_t *chk = self.arena + self.arena_used;
	size_t k = 0;
	if (unw_getcontext(&uc) || unw_init_local(&c, &uc))
		return;
	/* Frames of this function and capture() come first: find the wrapper. */
	while (i < 0) {
		if (unw_get_reg(&c, UNW_REG_IP, &ip) || unw_step(&c) <= 0)
			return;
		if (ip == (unw_word_t)(uintptr_t)ips[0])
			i = 0;
	}
	for (;;) {
		/* c is at frame i + 1 now; its stack pointer is frame i's CFA. */
		if (unw_get_reg(&c, UNW_REG_SP, &sp) || unw_get_reg(&c, UNW_REG_IP, &ip))
			return;
		if (ip != (unw_word_t)(uintptr_t)ips[i + 1] || !in_stack(sp - 16) ||
		    (i == 0 && sp != e->cfa))
			return;
		const uint64_t *slot = (const uint64_t *)(uintptr_t)(sp - 16);
		chk[k++] = sp - 16;
		chk[k++] = slot[0];
		chk[k++] = sp - 8;
		chk[k++] = slot[1];
		if (++i + 1 >= n)
			break;
		if (unw_step(&c) <= 0)
			return;
	}
	e->checks = self.arena_used;
	e->nchecks = (uint32_t)(k / 2);
	e->id = id;
	self.arena_used += k;
}

static int checks_hold(const struct hot_entry *e)
{
	const uint64_t *chk = self.arena + e->checks;
	for (uint32_t i = 0; i < e->nchecks; i++)
		if (*(const volatile uint64_t *)(uintptr_t)chk[2 * i] != chk[2 * i + 1])
			return 0;
	return 1;
}

/*
 * The id of the stack a wrapper was called with (NO_STACK when not
 * recording).  ret and frame are the wrapper's return address and frame
 * address (it keeps a frame pointer, so its CFA is frame + 16).
 */
static uint32_t __attribute__((noinline)) capture(enum pmem_allocator which, void *ret, void *frame)
{
	if (unlikely(self.gen != proc.gen))
		adopt_thread();
	if (unlikely(self.dead))
		return NO_STACK;
	uintptr_t cfa = (uintptr_t)frame + 16;
	struct hot_entry *e = NULL;
	if (likely(self.hot != NULL) || (self.hot = map_anon(HOT_ENTRIES * sizeof(*self.hot)))) {
		uintptr_t h = ((uintptr_t)ret ^ (cfa >> 4) ^ which) * 0x9e3779b97f4a7c15ull;
		e = &self.hot[h >> (64 - 10)];
		if (e->ret == (uintptr_t)ret && e->cfa == cfa && e->which == which && e->nchecks &&
		    checks_hold(e))
			return e->id;
	}
	void *buf[PMEM_MAX_DEPTH + 2];
	int n = unw_backtrace(buf, proc.max_depth + 2) - 1;
	uint32_t id;
	if (n < 1 || stack_id(buf + 1, n, &id))
		return NO_STACK;
	if (e) {
		if (e->ret != (uintptr_t)ret || e->cfa != cfa || e->which != which) {
			*e = (struct hot_entry){ .ret = (uintptr_t)ret,
						 .cfa = cfa,
						 .which = which };
		} else if (e->nchecks) {
			/* The stack changed under this key; a key whose words keep
			 * changing (a local variable) is not worth checking. */
			e->nchecks = 0;
			e->seen = 0;
			e->fails++;
		} else if (e->fails < 2 && ++e->seen == 2) {
			set_checks(e, buf + 1, n, id);
		}
	}
	return id;
}

/* ---- set-up --------------------------------------------------------- */

static int parse_depth(const char *s)
{
	int v = 0;
	if (!s || !*s)
		return DEFAULT_DEPTH;
	for (; *s >= '0' && *s <= '9' && v <= PMEM_MAX_DEPTH; s++)
		v = v * 10 + (*s - '0');
	if (v < 1)
		return 1;
	return v > PMEM_MAX_DEPTH ? PMEM_MAX_DEPTH : v;
}

static void start_recording(void)
{
	const char *dir = getenv(PMEM_ENV_DIR);
	char path[4096];
	size_t len = 0, stem = 0;
	int fd = -1;
	if (!dir || !*dir)
		return;
	proc.max_depth = parse_depth(getenv(PMEM_ENV_DEPTH));
	for (unsigned long n = 0; n < 100000 && fd < 0; n++) {
		len = 0;
		put_str(path, &len, sizeof(path), dir);
		put_str(path, &len, sizeof(path), "/");
		put_uint(path, &len, sizeof(path), (unsigned long)getpid());
		put_str(path, &len, sizeof(path), ".");
		put_uint(path, &len, sizeof(path), n);
		stem = len;
		put_str(path, &len, sizeof(path), ".pmem");
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return;
	}
	if (fd < 0)
		return;
	memcpy(proc.path, path, len + 1);
	len = stem;
	put_str(path, &len, sizeof(path), ".maps");
	memcpy(proc.maps_path, path, len + 1);
	int maps_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	uint64_t first = PMEM_HEADER_SIZE + 4 * PMEM_BLOCK_SIZE;
	void *base = MAP_FAILED;
	if (maps_fd >= 0 && fallocate(fd, 0, 0, (off_t)first) == 0)
		base = mmap(NULL, PMEM_MAP_MAX, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
			    fd, 0);
	if (maps_fd >= 0)
		close(maps_fd);
	close(fd);
	if (base == MAP_FAILED)
		return;
	struct pmem_header *h = base;
	h->version = PMEM_VERSION;
	h->pid = (uint32_t)getpid();
	h->ppid = (uint32_t)getppid();
	h->start_ns = now_ns();
	h->reserved = PMEM_HEADER_SIZE;
	h->max_depth = (uint32_t)proc.max_depth;
	__atomic_store_n(&h->magic, PMEM_MAGIC, __ATOMIC_RELEASE);
	proc.base = base;
	proc.file_size = first;
	proc.gen++;
	dump_maps(1);
	__atomic_store_n(&proc.hdr, h, __ATOMIC_RELEASE);
}

static void fork_prepare(void)
{
	pthread_mutex_lock(&grow_lock);
	pthread_mutex_lock(&maps_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&maps_lock);
	pthread_mutex_unlock(&grow_lock);
}

/* The child must not write into its parent's file: it gets its own. */
static void fork_child(void)
{
	pthread_mutex_init(&grow_lock, NULL);
	pthread_mutex_init(&maps_lock, NULL);
	if (!proc.hdr)
		return;
	int busy = self.busy;
	self.busy = 1;
	proc.hdr = NULL;
	munmap(proc.base, PMEM_MAP_MAX);
	proc.base = NULL;
	proc.dl_adds = proc.dl_subs = 0;
	start_recording();
	self.busy = busy;
}

static void resolve(void)
{
	real.malloc = dlsym(RTLD_NEXT, "malloc");
	real.free = dlsym(RTLD_NEXT, "free");
	real.calloc = dlsym(RTLD_NEXT, "calloc");
	real.realloc = dlsym(RTLD_NEXT, "realloc");
	real.memalign = dlsym(RTLD_NEXT, "memalign");
	real.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	real.valloc = dlsym(RTLD_NEXT, "valloc");
	real.aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	if (!real.malloc || !real.free || !real.calloc || !real.realloc || !real.memalign ||
	    !real.posix_memalign || !real.valloc || !real.aligned_alloc) {
		static const char msg[] = "libperun-malloc: cannot find the allocator to wrap\n";
		write_all(STDERR_FILENO, msg, sizeof(msg) - 1);
		abort();
	}
}

/* Slow path of ready(): 1 when the real functions may be used. */
static int __attribute__((noinline)) init_slow(void)
{
	int expected = 0;
	if (in_init)
		return 0;
	if (__atomic_compare_exchange_n(&init_state, &expected, 1, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		in_init = 1;
		self.busy = 1;
		resolve();
		unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
		pthread_atfork(fork_prepare, fork_parent, fork_child);
		have_thread_key = pthread_key_create(&thread_key, thread_gone) == 0;
		start_recording();
		self.busy = 0;
		in_init = 0;
		__atomic_store_n(&init_state, 2, __ATOMIC_RELEASE);
		return 1;
	}
	while (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
	return 1;
}

static inline int ready(void)
{
	if (likely(__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) == 2))
		return 1;
	return init_slow();
}

__attribute__((constructor)) static void recorder_init(void)
{
	ready();
}

__attribute__((destructor)) static void recorder_fini(void)
{
	struct pmem_header *h = __atomic_load_n(&proc.hdr, __ATOMIC_ACQUIRE);
	if (!h)
		return;
	h->exit_ns = now_ns();
	__atomic_or_fetch(&h->flags, PMEM_EXITED, __ATOMIC_RELEASE);
}

/* ---- the wrappers --------------------------------------------------- */

/*
 * Frame 0 of every stack is the wrapper (Perun's traces start with the
 * allocator), frame 1 its caller; capture() drops its own frame.
 */
#define RECORDING()    (likely(!self.busy) && __atomic_load_n(&proc.hdr, __ATOMIC_RELAXED))
#define CAPTURE(which) capture((which), __builtin_return_address(0), __builtin_frame_address(0))

/*
 * The body of the wrappers returning a new block: call (the real function)
 * gives the block, of size bytes.  A macro, so that CAPTURE runs in the
 * wrapper's own frame.
 */
#define WRAP_ALLOC(which, call, size)                                                              \
	do {                                                                                       \
		if (!RECORDING())                                                                  \
			return (call);                                                             \
		self.busy = 1;                                                                     \
		int saved = errno;                                                                 \
		uint32_t id = CAPTURE(which);                                                      \
		errno = saved;                                                                     \
		void *p = (call);                                                                  \
		if (p) {                                                                           \
			saved = errno;                                                             \
			record_alloc((which), id, p, (size));                                      \
			errno = saved;                                                             \
		}                                                                                  \
		self.busy = 0;                                                                     \
		return p;                                                                          \
	} while (0)

EXPORT void *malloc(size_t size)
{
	if (unlikely(!ready()))
		return real.malloc ? real.malloc(size) : boot_alloc(size, 16);
	WRAP_ALLOC(PMEM_MALLOC, real.malloc(size), size);
}

EXPORT void free(void *ptr)
{
	if (!ptr || is_boot(ptr))
		return;
	if (unlikely(!ready()) || !RECORDING()) {
		if (real.free)
			real.free(ptr);
		return;
	}
	self.busy = 1;
	int saved = errno;
	uint32_t id = CAPTURE(PMEM_FREE_FN);
	uint64_t ts = now_ns();
	real.free(ptr);
	record_free(id, ptr, ts);
	errno = saved;
	self.busy = 0;
}

EXPORT void *calloc(size_t nmemb, size_t size)
{
	if (unlikely(!ready())) {
		if (real.calloc)
			return real.calloc(nmemb, size);
		if (size && nmemb > SIZE_MAX / size)
			return NULL;
		return boot_alloc(nmemb * size, 16); /* static: already zero */
	}
	WRAP_ALLOC(PMEM_CALLOC, real.calloc(nmemb, size), nmemb * size);
}

EXPORT void *realloc(void *ptr, size_t size)
{
	if (unlikely(!ready()))
		return real.realloc ? real.realloc(ptr, size) : NULL;
	if (unlikely(is_boot(ptr))) {
		/* Its size is unknown: copy what the arena can hold. */
		void *p = malloc(size);
		if (p) {
			size_t room = (size_t)(boot_arena + BOOT_BYTES - (unsigned char *)ptr);
			memcpy(p, ptr, size < room ? size : room);
		}
		return p;
	}
	if (!RECORDING())
		return real.realloc(ptr, size);
	self.busy = 1;
	int saved = errno;
	uint32_t id = CAPTURE(PMEM_REALLOC_FN);
	uint64_t ts_free = now_ns();
	errno = saved;
	void *p = real.realloc(ptr, size);
	saved = errno;
	if (p)
		record_realloc(id, ptr, p, size, ts_free);
	else if (ptr && size == 0) /* glibc freed it */
		record_free(id, ptr, ts_free);
	errno = saved;
	self.busy = 0;
	return p;
}

EXPORT void *memalign(size_t alignment, size_t size)
{
	if (unlikely(!ready()))
		return real.memalign ? real.memalign(alignment, size) : boot_alloc(size, alignment);
	WRAP_ALLOC(PMEM_MEMALIGN, real.memalign(alignment, size), size);
}

EXPORT int posix_memalign(void **memptr, size_t alignment, size_t size)
{
	if (unlikely(!ready())) {
		if (real.posix_memalign)
			return real.posix_memalign(memptr, alignment, size);
		void *p = boot_alloc(size, alignment);
		if (!p)
			return ENOMEM;
		*memptr = p;
		return 0;
	}
	if (!RECORDING())
		return real.posix_memalign(memptr, alignment, size);
	self.busy = 1;
	int saved = errno;
	uint32_t id = CAPTURE(PMEM_POSIX_MEMALIGN);
	errno = saved;
	int rc = real.posix_memalign(memptr, alignment, size);
	if (rc == 0) {
		saved = errno;
		record_alloc(PMEM_POSIX_MEMALIGN, id, *memptr, size);
		errno = saved;
	}
	self.busy = 0;
	return rc;
}

EXPORT void *valloc(size_t size)
{
	if (unlikely(!ready()))
		return real.valloc ? real.valloc(size) : boot_alloc(size, 4096);
	WRAP_ALLOC(PMEM_VALLOC, real.valloc(size), size);
}

EXPORT void *aligned_alloc(size_t alignment, size_t size)
{
	if (unlikely(!ready()))
		return real.aligned_alloc ? real.aligned_alloc(alignment, size)
					  : boot_alloc(size, alignment);
	WRAP_ALLOC(PMEM_ALIGNED_ALLOC, real.aligned_alloc(alignment, size), size);
}
