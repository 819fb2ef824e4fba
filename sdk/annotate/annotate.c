/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * libperun-annotate: the runtime of <perun/annotate.h>.  The annotations
 * call in here only while a tracer holds a probe's semaphore or
 * PERUN_ANNOTATE asked for JSON.  Events are formatted by hand into a
 * buffer per thread (no stdio, no malloc per event) and written to the
 * process's file with pwrite, always followed by the closing bracket that
 * the next write overwrites: the file parses after every write, so a crash
 * or an _exit leaves a trace that parses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "perun/annotate.h"

#define EXPORT	  __attribute__((visibility("default")))
#define BUF_SIZE  (64 * 1024)
#define EVENT_MAX 1024 /* an event never takes more (names are truncated) */
#define STACK_MAX 256

EXPORT int perun_annotate_active;

struct open_region {
	const struct perun_annotate_site *site;
	uint64_t ts, cpu;
};

/* A site's ,"name":..,"cat":.. as formatted once per thread. */
struct site_text {
	const struct perun_annotate_site *site;
	char *text;
	size_t len;
};

#define SITE_CACHE 64

struct thread_buf {
	pthread_mutex_t lock; /* taken to flush, never to append */
	struct thread_buf *next;
	int tid;
	int named;
	char prefix[80]; /* ",\n{"pid":P,"tid":T,"ts":" */
	size_t prefix_len;
	struct site_text sites[SITE_CACHE];
	_Atomic size_t committed;
	size_t flushed;
	int depth;
	struct open_region stack[STACK_MAX];
	char buf[BUF_SIZE];
};

static struct {
	int enabled; /* PERUN_ANNOTATE is set and valid and log-enable */
	int compact, object, cpu_mem;
	char name[128];
	char parts[64]; /* log-filename-include, letters n i h p in order */
	char dir[1024];
	char host[256];
	pthread_mutex_t lock; /* the file and the list of threads */
	int fd;		      /* -1 until the first event of this process */
	int failed;	      /* the file could not be made: said once */
	off_t off;	      /* where the tail starts */
	int pid;
	struct thread_buf *threads;
	pthread_key_t key;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

/* Initial-exec: no __tls_get_addr call per event. */
static __thread struct thread_buf *self __attribute__((tls_model("initial-exec")));

static void close_open(struct thread_buf *t, int depth, uint64_t ts);

static void say(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, sizeof(msg) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(msg) - 2)
		n = sizeof(msg) - 2;
	msg[n++] = '\n';
	if (write(2, "perun-annotate: ", 16) < 0 || write(2, msg, (size_t)n) < 0)
		return;
}

/* ---- options ---------------------------------------------------------- */

static int parse_bool(const char *v, int *out)
{
	if (!strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "yes"))
		*out = 1;
	else if (!strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "no"))
		*out = 0;
	else
		return -1;
	return 0;
}

/* *out = 1 for v == one, 0 for v == zero (any case); -1: neither. */
static int parse_choice(const char *v, const char *one, const char *zero, int *out)
{
	if (strcasecmp(v, one) && strcasecmp(v, zero))
		return -1;
	*out = !strcasecmp(v, one);
	return 0;
}

static int parse_parts(const char *v)
{
	static const char *const names[] = { "name", "instance-path", "hostname", "pid" };
	static const char letters[] = "nihp";
	size_t n = 0;
	const char *p = v;
	while (*p) {
		size_t len = strcspn(p, ",");
		int found = 0;
		for (int i = 0; i < 4; i++)
			if (strlen(names[i]) == len && !strncmp(p, names[i], len)) {
				if (n + 1 < sizeof(g.parts) && !memchr(g.parts, letters[i], n))
					g.parts[n++] = letters[i];
				found = 1;
			}
		if (!found && len)
			return -1;
		p += len + (p[len] == ',');
	}
	g.parts[n] = 0;
	return 0;
}

static int copy_value(char *dst, size_t size, const char *v)
{
	if (strlen(v) >= size)
		return -1;
	strcpy(dst, v);
	return 0;
}

/* Parse PERUN_ANNOTATE into g; the key of a bad value is named on stderr. */
static int parse_options(const char *text)
{
	char *copy = strdup(text), *save = NULL;
	if (!copy)
		return -1;
	strcpy(g.name, "generic");
	strcpy(g.parts, "hp");
	strcpy(g.dir, ".");
	int enable = 1, rc = 0;
	for (char *item = strtok_r(copy, ":", &save); item && !rc;
	     item = strtok_r(NULL, ":", &save)) {
		char *eq = strchr(item, '=');
		if (!eq) {
			say("PERUN_ANNOTATE: '%s' is not key=value", item);
			rc = -1;
			break;
		}
		*eq = 0;
		const char *k = item, *v = eq + 1;
		const char *expect = NULL;
		if (!strcmp(k, "name")) {
			if (!*v || copy_value(g.name, sizeof(g.name), v))
				expect = "a name of 1 to 127 characters";
		} else if (!strcmp(k, "log-filename-include")) {
			if (parse_parts(v))
				expect = "a list of name, instance-path, hostname, pid";
		} else if (!strcmp(k, "log-dir")) {
			if (!*v || copy_value(g.dir, sizeof(g.dir), v))
				expect = "a directory";
		} else if (!strcmp(k, "log-enable")) {
			if (parse_bool(v, &enable))
				expect = "True or False";
		} else if (!strcmp(k, "cpu-mem-usage")) {
			if (parse_bool(v, &g.cpu_mem))
				expect = "True or False";
		} else if (!strcmp(k, "log-event")) {
			if (parse_choice(v, "compact", "verbose", &g.compact))
				expect = "verbose or compact";
		} else if (!strcmp(k, "log-format")) {
			if (parse_choice(v, "object", "array", &g.object))
				expect = "array or object";
		} else {
			say("PERUN_ANNOTATE: unknown key '%s' (name, log-filename-include, "
			    "log-dir, log-enable, cpu-mem-usage, log-event, log-format)",
			    k);
			rc = -1;
		}
		if (expect) {
			say("PERUN_ANNOTATE: bad value '%s' for key '%s' (%s)", v, k, expect);
			rc = -1;
		}
	}
	free(copy);
	return rc ? -1 : enable;
}

/* ---- formatting ------------------------------------------------------- */

/*
 * The wall clock in ns, down to a multiple of 250: readers parse "ts" as a
 * double, which holds microseconds since the epoch (about 2^50.6 now)
 * only to a quarter of one.  Exact quarters keep ts + dur of a region
 * equal to the ts of what follows it, where finer digits rounded either
 * way and made speedscope see an end after the next begin.
 */
static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return ns - ns % 250;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);
	memcpy(p, s, n);
	return p + n;
}

static char *put_u64(char *p, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	char tmp[24];
	int n = 24;
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		tmp[--n] = pairs[d + 1];
		tmp[--n] = pairs[d];
	}
	if (v >= 10) {
		tmp[--n] = pairs[v * 2 + 1];
		tmp[--n] = pairs[v * 2];
	} else {
		tmp[--n] = (char)('0' + v);
	}
	memcpy(p, tmp + n, (size_t)(24 - n));
	return p + 24 - n;
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* ns as microseconds with three decimals. */
static char *put_us(char *p, uint64_t ns)
{
	p = put_u64(p, ns / 1000);
	unsigned frac = (unsigned)(ns % 1000);
	*p++ = '.';
	*p++ = (char)('0' + frac / 100);
	*p++ = (char)('0' + frac / 10 % 10);
	*p++ = (char)('0' + frac % 10);
	return p;
}

/* A JSON string of at most max bytes of s. */
static char *put_json(char *p, const char *s, size_t max)
{
	static const char hex[] = "0123456789abcdef";
	*p++ = '"';
	for (size_t i = 0; s[i] && i < max; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = (char)c;
		} else if (c < 0x20) {
			p = put_str(p, "\\u00");
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		} else {
			*p++ = (char)c;
		}
	}
	*p++ = '"';
	return p;
}

/* ",\n{"name":..,"cat":..,"ph":"X","pid":..,"tid":..,"ts":.. up to there. */
static char *put_head(char *p, const char *name, const char *cat, const char *ph, int tid,
		      uint64_t ts)
{
	p = put_str(p, ",\n{\"name\":");
	p = put_json(p, name, 200);
	if (cat) {
		p = put_str(p, ",\"cat\":");
		p = put_json(p, cat, 300);
	}
	p = put_str(p, ",\"ph\":\"");
	p = put_str(p, ph);
	p = put_str(p, "\",\"pid\":");
	p = put_u64(p, (uint64_t)g.pid);
	p = put_str(p, ",\"tid\":");
	p = put_u64(p, (uint64_t)tid);
	p = put_str(p, ",\"ts\":");
	return put_us(p, ts);
}

/* The text of site for thread t, formatted at its first event there. */
static const struct site_text *site_text(struct thread_buf *t,
					 const struct perun_annotate_site *site)
{
	struct site_text *c = &t->sites[((uintptr_t)site >> 4) % SITE_CACHE];
	if (c->site == site)
		return c;
	char buf[EVENT_MAX], *p = put_str(buf, ",\"name\":");
	p = put_json(p, site->name, 200);
	p = put_str(p, ",\"cat\":");
	p = put_json(p, site->cat ? site->cat : "", 300);
	char *text = malloc((size_t)(p - buf));
	if (!text)
		return NULL;
	memcpy(text, buf, (size_t)(p - buf));
	free(c->text);
	*c = (struct site_text){ site, text, (size_t)(p - buf) };
	return c;
}

/* ",\n{"pid":..,"tid":..,"ts":..,"ph":"X","name":..,"cat":.. up to there. */
static char *put_event(char *p, struct thread_buf *t, const struct perun_annotate_site *site,
		       char ph, uint64_t ts)
{
	memcpy(p, t->prefix, t->prefix_len);
	p = put_us(p + t->prefix_len, ts);
	memcpy(p, ",\"ph\":\"X\"", 9);
	p[7] = ph;
	p += 9;
	const struct site_text *c = site_text(t, site);
	if (!c) {
		p = put_str(p, ",\"name\":");
		return put_json(p, site->name, 200);
	}
	memcpy(p, c->text, c->len);
	return p + c->len;
}

static void set_prefix(struct thread_buf *t)
{
	char *p = put_str(t->prefix, ",\n{\"pid\":");
	p = put_u64(p, (uint64_t)g.pid);
	p = put_str(p, ",\"tid\":");
	p = put_u64(p, (uint64_t)t->tid);
	p = put_str(p, ",\"ts\":");
	t->prefix_len = (size_t)(p - t->prefix);
}

/* ---- the file --------------------------------------------------------- */

static const char *tail(void)
{
	return g.object ? "\n]}\n" : "\n]\n";
}

/* Write data (with the tail after it) at the end; g.lock held. */
static void file_append(const char *data, size_t len)
{
	char stack[256];
	const char *t = tail();
	size_t tl = strlen(t);
	if (len + tl <= sizeof(stack)) {
		memcpy(stack, data, len);
		memcpy(stack + len, t, tl);
		if (pwrite(g.fd, stack, len + tl, g.off) == (ssize_t)(len + tl))
			g.off += (off_t)len;
		return;
	}
	/* Data and tail in one write: a crash leaves one or the other. */
	struct iovec iov[2] = { { (void *)data, len }, { (void *)t, tl } };
	if (pwritev(g.fd, iov, 2, g.off) == (ssize_t)(len + tl))
		g.off += (off_t)len;
}

static void hostname_part(char *out, size_t size)
{
	snprintf(out, size, "%s", g.host);
	char *dot = strchr(out, '.');
	if (dot)
		*dot = 0;
}

static void instance_path(char *out, size_t size)
{
	const char *enc = getenv("FLUX_ENCLOSING_ID"), *job = getenv("FLUX_JOB_ID");
	if (enc && *enc && job && *job)
		snprintf(out, size, "%s.%s", enc, job);
	else if ((enc && *enc) || (job && *job))
		snprintf(out, size, "%s", enc && *enc ? enc : job);
	else
		snprintf(out, size, "local");
}

/* Open this process's file; g.lock held.  Said once when it fails. */
static int file_open(void)
{
	if (g.fd >= 0)
		return 0;
	if (g.failed)
		return -1;
	char path[2048], part[300];
	size_t n = (size_t)snprintf(path, sizeof(path), "%s/perun", g.dir);
	for (const char *p = g.parts; *p && n < sizeof(path); p++) {
		switch (*p) {
		case 'n': snprintf(part, sizeof(part), "%s", g.name); break;
		case 'i': instance_path(part, sizeof(part)); break;
		case 'h': hostname_part(part, sizeof(part)); break;
		default: snprintf(part, sizeof(part), "%d", g.pid); break;
		}
		n += (size_t)snprintf(path + n, sizeof(path) - n, ".%s", part);
	}
	/* A trace of the same name is never overwritten: it is this pid's
	 * image before an exec (or a pid of an earlier run); .1, .2, ... */
	for (int k = 0; k < 100; k++) {
		if (n < sizeof(path))
			snprintf(path + n, sizeof(path) - n, k ? ".%d.pfw" : ".pfw", k);
		g.fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (g.fd >= 0 || errno != EEXIST)
			break;
	}
	if (g.fd < 0) {
		g.failed = 1;
		say("cannot write the trace '%s': %s; annotations go on without it", path,
		    strerror(errno));
		return -1;
	}
	char head[1024], *p = head;
	if (g.object) {
		p = put_str(p, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"hostname\":");
		p = put_json(p, g.host, 200);
		p = put_str(p, ",\"name\":");
		p = put_json(p, g.name, 120);
		p = put_str(p, ",\"writer\":\"perun-annotate\"},\"traceEvents\":[\n");
	} else {
		p = put_str(p, "[\n");
	}
	p = put_str(p, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");
	p = put_u64(p, (uint64_t)g.pid);
	p = put_str(p, ",\"tid\":");
	p = put_u64(p, (uint64_t)g.pid);
	p = put_str(p, ",\"args\":{\"name\":");
	p = put_json(p, g.name, 120);
	p = put_str(p, "}}");
	p = put_head(p, "process_labels", NULL, "M", g.pid, now_ns());
	p = put_str(p, ",\"args\":{\"labels\":");
	p = put_json(p, g.host, 200);
	p = put_str(p, "}}");
	g.off = 0;
	file_append(head, (size_t)(p - head));
	return 0;
}

/* Write what t committed since its last flush; t->lock and g.lock held. */
static void flush_locked(struct thread_buf *t)
{
	size_t c = atomic_load_explicit(&t->committed, memory_order_acquire);
	if (c > t->flushed && !file_open())
		file_append(t->buf + t->flushed, c - t->flushed);
	t->flushed = c;
}

/* The owner's flush: the buffer starts over. */
static void flush_own(struct thread_buf *t)
{
	pthread_mutex_lock(&t->lock);
	pthread_mutex_lock(&g.lock);
	flush_locked(t);
	pthread_mutex_unlock(&g.lock);
	atomic_store_explicit(&t->committed, 0, memory_order_release);
	t->flushed = 0;
	pthread_mutex_unlock(&t->lock);
}

EXPORT void perun_annotate_flush(void)
{
	if (!g.enabled)
		return;
	pthread_mutex_lock(&g.lock);
	for (struct thread_buf *t = g.threads; t; t = t->next) {
		if (pthread_mutex_trylock(&t->lock))
			continue; /* its owner is flushing it */
		flush_locked(t);
		pthread_mutex_unlock(&t->lock);
	}
	pthread_mutex_unlock(&g.lock);
}

static void thread_free(struct thread_buf *t)
{
	for (size_t i = 0; i < SITE_CACHE; i++)
		free(t->sites[i].text);
	free(t);
}

static void thread_gone(void *arg)
{
	struct thread_buf *t = arg;
	close_open(t, 0, now_ns());
	flush_own(t);
	pthread_mutex_lock(&g.lock);
	for (struct thread_buf **pp = &g.threads; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	pthread_mutex_unlock(&g.lock);
	if (self == t)
		self = NULL;
	thread_free(t);
}

static struct thread_buf *thread_self(void)
{
	if (__builtin_expect(self != NULL, 1))
		return self;
	struct thread_buf *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	t->tid = (int)syscall(SYS_gettid);
	set_prefix(t);
	pthread_mutex_lock(&g.lock);
	t->next = g.threads;
	g.threads = t;
	pthread_mutex_unlock(&g.lock);
	pthread_setspecific(g.key, t);
	self = t;
	return t;
}

/* Room for one more event in t's buffer (flushed when short). */
static char *reserve(struct thread_buf *t)
{
	size_t c = atomic_load_explicit(&t->committed, memory_order_relaxed);
	if (c + EVENT_MAX > BUF_SIZE) {
		flush_own(t);
		c = 0;
	}
	return t->buf + c;
}

static void commit(struct thread_buf *t, const char *end)
{
	atomic_store_explicit(&t->committed, (size_t)(end - t->buf), memory_order_release);
}

static void thread_name(struct thread_buf *t)
{
	char name[64] = "";
	t->named = 1;
	if (pthread_getname_np(pthread_self(), name, sizeof(name)) || !name[0])
		snprintf(name, sizeof(name), "%d", t->tid);
	char *p = reserve(t);
	p = put_str(p, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":");
	p = put_u64(p, (uint64_t)g.pid);
	p = put_str(p, ",\"tid\":");
	p = put_u64(p, (uint64_t)t->tid);
	p = put_str(p, ",\"args\":{\"name\":");
	p = put_json(p, name, 60);
	p = put_str(p, "}}");
	commit(t, p);
}

static struct thread_buf *writer(void)
{
	if (!perun_annotate_active)
		return NULL;
	struct thread_buf *t = thread_self();
	if (t && !t->named)
		thread_name(t);
	return t;
}

static uint64_t peak_kib(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) ? 0 : (uint64_t)ru.ru_maxrss;
}

/* The counters of a region that began at r (cpu-mem-usage). */
static char *put_usage(char *p, struct thread_buf *t, const struct open_region *r, uint64_t end)
{
	uint64_t wall = end > r->ts ? end - r->ts : 0, cpu = cpu_ns() - r->cpu;
	double pct = wall ? 100.0 * (double)cpu / (double)wall : 0.0;
	unsigned milli = (unsigned)(pct * 1000.0 + 0.5);
	p = put_event(p, t, r->site, 'C', r->ts);
	p = put_str(p, ",\"args\":{\"cpu_usage\":");
	p = put_u64(p, milli / 1000);
	*p++ = '.';
	*p++ = (char)('0' + milli / 100 % 10);
	*p++ = (char)('0' + milli / 10 % 10);
	*p++ = (char)('0' + milli % 10);
	p = put_str(p, ",\"memory_usage\":");
	p = put_u64(p, peak_kib());
	p = put_str(p, "}}");
	p = put_event(p, t, r->site, 'C', end);
	return put_str(p, ",\"args\":{\"cpu_usage\":0.0,\"memory_usage\":0}}");
}

static char *put_id(char *p, int64_t id)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[20];
	int n = 0;
	uint64_t v = (uint64_t)id;
	do {
		tmp[n++] = hex[v & 15];
		v >>= 4;
	} while (v);
	p = put_str(p, ",\"id\":\"0x");
	while (n)
		*p++ = tmp[--n];
	return put_str(p, "\"");
}

/* ---- the events ------------------------------------------------------- */

/* An async event (ph b or e) when site is async; 0 when it is not. */
static int json_async(struct thread_buf *t, const struct perun_annotate_site *site, char ph,
		      int64_t id, uint64_t ts)
{
	if (site->kind != PERUN_ANNOTATE_ASYNC)
		return 0;
	char *p = put_event(reserve(t), t, site, ph, ts);
	commit(t, put_str(put_id(p, id), "}"));
	return 1;
}

static void region_begin(struct thread_buf *t, const struct perun_annotate_site *site, uint64_t ts)
{
	if (t->depth < STACK_MAX) {
		struct open_region *r = &t->stack[t->depth];
		r->site = site;
		r->ts = ts;
		r->cpu = g.cpu_mem ? cpu_ns() : 0;
	}
	t->depth++;
	if (!g.compact && t->depth <= STACK_MAX)
		commit(t, put_str(put_event(reserve(t), t, site, 'B', ts), "}"));
}

/* End t's open regions down to depth, at ts. */
static void close_open(struct thread_buf *t, int depth, uint64_t ts)
{
	if (t->depth > STACK_MAX)
		t->depth = STACK_MAX;
	while (t->depth > depth) {
		struct open_region *r = &t->stack[--t->depth];
		char *p = reserve(t);
		if (g.cpu_mem)
			p = put_usage(p, t, r, ts);
		if (g.compact) {
			p = put_event(p, t, r->site, 'X', r->ts);
			p = put_str(p, ",\"dur\":");
			p = put_us(p, ts - r->ts);
		} else {
			p = put_event(p, t, r->site, 'E', ts);
		}
		commit(t, put_str(p, "}"));
	}
}

/* Close the innermost open region named as site's; ends of regions this
 * thread did not begin (or began before a fork) are dropped, so that
 * begins and ends stay balanced. */
static void region_end(struct thread_buf *t, const struct perun_annotate_site *site, uint64_t ts)
{
	if (t->depth > STACK_MAX) {
		t->depth--;
		return;
	}
	int i = t->depth - 1;
	while (i >= 0 && t->stack[i].site != site && t->stack[i].site->name != site->name &&
	       strcmp(t->stack[i].site->name, site->name))
		i--;
	if (i < 0)
		return;
	close_open(t, i, ts); /* regions left open inside it end with it */
}

static void json_region(const struct perun_annotate_site *site, int64_t arg, int end)
{
	struct thread_buf *t = writer();
	if (!t)
		return;
	uint64_t ts = now_ns();
	if (json_async(t, site, end ? 'e' : 'b', arg, ts))
		return;
	if (end)
		region_end(t, site, ts);
	else
		region_begin(t, site, ts);
}

static void json_point(const struct perun_annotate_site *site, int64_t arg)
{
	struct thread_buf *t = writer();
	if (!t)
		return;
	int counter = site->kind == PERUN_ANNOTATE_COUNTER;
	char *p = put_event(reserve(t), t, site, counter ? 'C' : 'i', now_ns());
	if (!counter)
		p = put_str(p, ",\"s\":\"t\"");
	p = put_str(p, ",\"args\":{");
	if (site->kind == PERUN_ANNOTATE_BEFORE || site->kind == PERUN_ANNOTATE_AFTER) {
		p = put_str(p, "\"pointcut\":");
		p = put_str(p, site->kind == PERUN_ANNOTATE_BEFORE ? "\"before\"" : "\"after\"");
	} else {
		p = put_json(p, site->key ? site->key : "value", 100);
		*p++ = ':';
		p = put_i64(p, arg);
	}
	commit(t, put_str(p, "}}"));
}

static void fire(volatile unsigned short *sema, void (*probe)(const char *, int64_t),
		 const char *name, int64_t arg)
{
	if (sema && *sema && probe)
		probe(name, arg);
}

EXPORT void perun_annotate_begin(const struct perun_annotate_site *site, int64_t arg)
{
	fire(site->sema_begin, site->probe_begin, site->name, arg);
	json_region(site, arg, 0);
}

EXPORT void perun_annotate_end(const struct perun_annotate_site *site, int64_t arg)
{
	/* An end macro's site has its own probe as both. */
	fire(site->sema_end, site->probe_end, site->name, arg);
	json_region(site, arg, 1);
}

EXPORT void perun_annotate_point(const struct perun_annotate_site *site, int64_t arg)
{
	fire(site->sema_begin, site->probe_begin, site->name, arg);
	json_point(site, arg);
}

EXPORT void perun_annotate_scope_begin(struct perun_annotate_scope *scope)
{
	const struct perun_annotate_site *site = scope->site;
	scope->armed = 1;
	if (site->kind != PERUN_ANNOTATE_AFTER)
		perun_annotate_begin(site, 0);
}

EXPORT void perun_annotate_scope_end_slow(struct perun_annotate_scope *scope)
{
	const struct perun_annotate_site *site = scope->site;
	scope->armed = 0;
	if (site->kind == PERUN_ANNOTATE_AFTER) {
		perun_annotate_point(site, 0);
		return;
	}
	fire(site->sema_end, site->probe_end, site->name, 0);
	json_region(site, 0, 1);
}

/* ---- process life ----------------------------------------------------- */

static void at_exit(void)
{
	if (!g.enabled)
		return;
	/* The exiting thread's open regions end here; others' stay open. */
	if (self)
		close_open(self, 0, now_ns());
	perun_annotate_flush();
}

/* Fatal signals: write what the threads committed, then die as before. */
static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP };

static void on_fatal(int sig)
{
	/* The dying thread's open regions end now, when its buffer has room
	 * for them without a flush (which would take locks). */
	struct thread_buf *me = self;
	if (me && me->depth > 0 &&
	    atomic_load(&me->committed) + (size_t)(me->depth + 1) * EVENT_MAX <= BUF_SIZE)
		close_open(me, 0, now_ns());
	if (!pthread_mutex_trylock(&g.lock)) {
		for (struct thread_buf *t = g.threads; t; t = t->next) {
			size_t c = atomic_load_explicit(&t->committed, memory_order_acquire);
			if (c > t->flushed && g.fd >= 0)
				file_append(t->buf + t->flushed, c - t->flushed);
			t->flushed = c;
		}
		pthread_mutex_unlock(&g.lock);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void before_fork(void)
{
	perun_annotate_flush();
	pthread_mutex_lock(&g.lock);
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&g.lock);
}

/* The child writes a file of its own; the other threads are gone. */
static void after_fork_child(void)
{
	if (g.fd >= 0)
		close(g.fd);
	g.fd = -1;
	g.failed = 0;
	g.pid = getpid();
	struct thread_buf *t = g.threads;
	while (t) {
		struct thread_buf *next = t->next;
		if (t != self)
			thread_free(t);
		t = next;
	}
	g.threads = NULL;
	pthread_mutex_init(&g.lock, NULL);
	if (self) {
		pthread_mutex_init(&self->lock, NULL);
		self->tid = (int)syscall(SYS_gettid);
		set_prefix(self);
		self->named = 0;
		self->depth = 0;
		self->flushed = 0;
		atomic_store(&self->committed, 0);
		self->next = NULL;
		g.threads = self;
	}
}

__attribute__((constructor)) static void perun_annotate_init(void)
{
	const char *opt = getenv("PERUN_ANNOTATE");
	if (!opt)
		return;
	int on = parse_options(opt);
	if (on <= 0)
		return; /* disabled, or a bad value named on stderr */
	if (pthread_key_create(&g.key, thread_gone))
		return;
	if (gethostname(g.host, sizeof(g.host) - 1))
		strcpy(g.host, "localhost");
	g.pid = getpid();
	g.enabled = 1;
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	atexit(at_exit);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
		struct sigaction old;
		if (!sigaction(fatal[i], NULL, &old) && old.sa_handler == SIG_DFL &&
		    !(old.sa_flags & SA_SIGINFO))
			signal(fatal[i], on_fatal);
	}
	perun_annotate_active = 1;
}

__attribute__((destructor)) static void perun_annotate_fini(void)
{
	at_exit();
}
