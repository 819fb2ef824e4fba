/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Streamed loading of profiles, for readers that walk the resource types
 * once (the stack views).  perun_profile_load_file_streamed maps the file
 * and reads all of it but resource_type_map, nine tenths of a big kperf
 * profile, whose text it leaves as it is.  perun_profile_foreach_type then
 * reads the map's members a batch at a time in a thread of its own, while
 * the caller's callback walks the batch before: the tape of a million
 * types is never made, the file's pages stay the page cache's, and reading
 * overlaps the walk.
 *
 * The map is checked as it is read, as the usual load checks it.  When a
 * check fails, or the reader does not take the text, the file is loaded
 * the usual way into a profile of the walk's own: that load's error is the
 * walk's, word for word (and the stream's record, perun_profile_load_error),
 * or, for text only jansson takes, the walk goes on there where it stopped.
 * Readers given a const profile read it so, whole, and leave it as it is;
 * only perun_profile_load_whole and the readers that take a non-const
 * profile (perun_profile_json, ...) make it whole itself.
 *
 * Layer 7 of libperun, the streamed form: it uses the reader (reader.h),
 * the core (profile_core.h) and the whole form (profile_tree.h); the core
 * and the forms below reach it only through the struct profile_form it
 * sets in the profiles it loads.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perun/fsutil.h>

#include "profile_core.h"
#include "profile_tree.h"
#include "reader.h"

enum stream_state {
	STREAM_UNREAD,	/* the map is read on each walk */
	STREAM_SETTLED, /* the profile was made whole since */
	STREAM_FAILED,	/* the usual load failed: error says why */
};

struct profile_stream {
	struct perun_profile_source src; /* the text, and how to load it again */
	const char *map_text;		 /* resource_type_map's value in the text */
	size_t map_len;
	int map_from_file; /* the map's pages are a file's: dropped once read */
	/* The map read from map_reader instead, when has_reader: the text
	 * holds "{}" in its place. */
	struct perun_profile_map_reader map_reader;
	int has_reader;
	enum stream_state state;
	struct perun_error error;
	struct json_tape old_tape; /* the resources' tape before settling:
				    * a walk may still hold its values */
};

static const struct profile_form stream_form;
static int load_streamed(const struct perun_profile_source *src, int map_from_file,
			 const struct perun_profile_map_reader *map, size_t map_at,
			 struct perun_profile **out, struct perun_error *err);

/* The usual load of path, its messages naming the profile name (the path
 * when NULL). */
static int load_usual(const char *path, const char *name, struct perun_profile **out,
		      struct perun_error *err)
{
	if (!name)
		return perun_profile_load_file(path, out, err);
	char *buf;
	size_t len;
	int rc = perun_file_read(path, &buf, &len, err);
	if (rc)
		return rc;
	rc = perun_profile_load_buffer(buf, len, name, out, err);
	free(buf);
	return rc;
}

/* A file's text: its private mapping, loaded again from the file. */
struct file_source {
	char *path;
	char *name;
	char *map;
	size_t len;
};

static int file_reload(void *data, struct perun_profile **out, struct perun_error *err)
{
	struct file_source *fs = data;
	return load_usual(fs->path, fs->name, out, err);
}

static void file_release(void *data)
{
	struct file_source *fs = data;
	if (fs->map)
		munmap(fs->map, fs->len);
	free(fs->path);
	free(fs->name);
	free(fs);
}

int perun_profile_load_file_streamed(const char *path, struct perun_profile **out,
				     struct perun_error *err)
{
	return perun_profile_load_file_streamed_as(path, NULL, out, err);
}

int perun_profile_load_file_streamed_as(const char *path, const char *name,
					struct perun_profile **out, struct perun_error *err)
{
	struct file_source *fs = calloc(1, sizeof(*fs));
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!fs || !(fs->path = strdup(path)) || (name && !(fs->name = strdup(name))) || fd < 0 ||
	    fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size <= 0)
		goto usual;
	fs->len = (size_t)sb.st_size;
	/* Private and writable: the rest of the profile is decoded in place;
	 * the map's pages are never written, so they stay the page cache's. */
	fs->map = mmap(NULL, fs->len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (fs->map == MAP_FAILED) {
		fs->map = NULL;
		goto usual_closed;
	}
	/* All of it is read: start reading it in now. */
	madvise(fs->map, fs->len, MADV_WILLNEED);
	struct perun_profile_source src = {
		.text = fs->map,
		.len = fs->len,
		.name = name ? fs->name : fs->path,
		.reload = file_reload,
		.release = file_release,
		.data = fs,
	};
	return load_streamed(&src, 1, NULL, 0, out, err);
usual:
	if (fd >= 0)
		close(fd);
usual_closed:
	/* Anything amiss, the usual load says what, in its words. */
	if (fs)
		file_release(fs);
	return load_usual(path, name, out, err);
}

int perun_profile_load_memory_streamed(const struct perun_profile_source *src,
				       struct perun_profile **out, struct perun_error *err)
{
	return load_streamed(src, 0, NULL, 0, out, err);
}

int perun_profile_load_outline_streamed(const struct perun_profile_source *src, size_t map_at,
					const struct perun_profile_map_reader *map,
					struct perun_profile **out, struct perun_error *err)
{
	return load_streamed(src, 0, map, map_at, out, err);
}

/* The streamed load of src; map_from_file when its text is a private
 * mapping of a file, whose pages may be given back and read again; with
 * map, the map is read from it, its "{}" in the text at map_at. */
static int load_streamed(const struct perun_profile_source *src, int map_from_file,
			 const struct perun_profile_map_reader *map, size_t map_at,
			 struct perun_profile **out, struct perun_error *err)
{
	struct profile_stream *st = calloc(1, sizeof(*st));
	struct json_tape tape = { 0 };
	struct perun_profile *p = NULL;
	const char *span[2];
	if (!st || json_tape_parse_skipping(src->text, src->len, &tape, "resource_type_map", span))
		goto usual;
	st->src = *src;
	st->map_from_file = map_from_file;
	st->map_text = span[0];
	st->map_len = (size_t)(span[1] - span[0]);
	if (map) {
		/* The outline's map where its maker says, or the outline is
		 * not what it says (a damaged object's index). */
		if (span[0] != src->text + map_at || st->map_len != 2)
			goto usual;
		st->map_reader = *map;
		st->has_reader = 1;
		st->map_len = map->len;
	}
	struct perun_error ignored = { 0 };
	if (profile_of_tape(&tape, src->name, 0, &p, &ignored) || !p->tape.nodes)
		goto usual;
	p->text = src->text;
	p->stream = st;
	p->form = &stream_form;
	*out = p;
	return 0;
usual:
	/* Anything amiss, the usual load says what, in its words. */
	perun_profile_free(p);
	json_tape_release(&tape);
	free(st);
	int rc = src->reload(src->data, out, err);
	src->release(src->data);
	return rc;
}

/* The form's own parts: the text (or the old text once the tree replaced
 * it) and the tape of before settling. */
static void stream_release(struct perun_profile *p)
{
	struct profile_stream *st = p->stream;
	if (!st)
		return;
	if (p->text == st->src.text)
		p->text = NULL;
	if (p->old_text == st->src.text)
		p->old_text = NULL;
	json_tape_release(&st->old_tape);
	st->src.release(st->src.data);
	free(st);
	p->stream = NULL;
}

/* The usual load's error, recorded. */
static int stream_error(const struct profile_stream *st, struct perun_error *err)
{
	*err = st->error;
	return -(err->code ? err->code : PERUN_EGENERIC);
}

int perun_profile_load_error(const struct perun_profile *p, struct perun_error *err)
{
	if (!p || !p->stream || p->stream->state != STREAM_FAILED)
		return 0;
	return stream_error(p->stream, err);
}

/*
 * The file loaded the usual way into *out, the caller's, or *out NULL when
 * p itself was made whole.  A failed load is recorded in the stream (not
 * in the profile, which stays as it is): later readers get its error.
 */
static int stream_load_copy(const struct perun_profile *p, struct perun_profile **out,
			    struct perun_error *err)
{
	struct profile_stream *st = p->stream;
	*out = NULL;
	if (st->state == STREAM_SETTLED)
		return 0;
	if (st->state == STREAM_FAILED)
		return stream_error(st, err);
	if (st->src.reload(st->src.data, out, &st->error)) {
		st->state = STREAM_FAILED;
		return stream_error(st, err);
	}
	return 0;
}

/* Make p whole: the usual load's resources and map become p's. */
static int stream_load_whole(struct perun_profile *p, struct perun_error *err)
{
	struct profile_stream *st = p->stream;
	struct perun_profile *q;
	int rc = stream_load_copy(p, &q, err);
	if (rc) {
		/* Nothing to read then: resources and map both the empty
		 * placeholder the map has been. */
		p->resources = p->types;
		return rc;
	}
	if (!q)
		return 0;
	/* The tree's parts read before (header, models, ...) stay: callers
	 * may hold them.  The resources' tape is kept for the same reason. */
	st->old_tape = p->tape;
	memset(&p->tape, 0, sizeof(p->tape));
	if (q->text) {
		p->tape = q->tape;
		p->text = q->text;
		p->resources = q->resources;
		p->types = q->types;
		p->same_order = q->same_order;
		memset(&q->tape, 0, sizeof(q->tape));
		q->text = NULL;
	} else if (json_object_set(p->root, "resources", json_object_get(q->root, "resources")) ||
		   json_object_set(p->root, "resource_type_map",
				   json_object_get(q->root, "resource_type_map"))) {
		/* Without memory the profile stays as it was. */
		p->tape = st->old_tape;
		memset(&st->old_tape, 0, sizeof(st->old_tape));
		perun_profile_free(q);
		return perun_error_set(err, PERUN_EGENERIC,
				       "cannot read profile '%s': out of memory", st->src.name);
	} else {
		p->text = NULL;
	}
	perun_profile_free(q);
	st->state = STREAM_SETTLED;
	return 0;
}

/* The types from the from-th on, of p loaded the usual way. */
static int walk_whole_from(const struct perun_profile *p, size_t from, perun_type_fn fn, void *data,
			   struct perun_error *err)
{
	struct perun_profile *q;
	int rc = stream_load_copy(p, &q, err);
	if (rc)
		return rc;
	rc = profile_foreach_type_from(q ? q : p, from, fn, data, err);
	perun_profile_free(q);
	return rc;
}

/* ---- the walk ------------------------------------------------------------ */

/* Batches in flight between the reader and the walker, and their size. */
#define STREAM_BATCHES 4
#define BATCH_TYPES    256
#define BATCH_STRINGS  ((size_t)1 << 17)

struct type_batch {
	struct json_tape tape;		 /* each type's id, then its value */
	const struct perun_jv **columns; /* each type's, from the resources */
	size_t n;
	char *strings; /* its decoded strings */
};

struct type_stream {
	const struct perun_profile *p;
	struct profile_stream *st;
	size_t strings_len; /* of each batch's strings */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct type_batch batch[STREAM_BATCHES];
	size_t made, walked; /* batches */
	int read;	     /* reader done: 1 all, -1 failed */
	int stop;	     /* walker done */
};

/*
 * A map read from its reader a window at a time: the members still unread
 * are moved to the window's start and the rest filled, so the map is
 * never held whole.  A member cut by the window's end is read again with
 * more of the map (the window grows for one longer than itself).  The
 * reader runs ahead in a thread of its own, a few chunks at a time: a
 * store object's map is inflated while the one before is parsed.
 * Window and chunks are small enough to stay in the caches between the
 * inflate, the copy and the parse: with 16 MB and 8 MB, each went to
 * memory, and a stored profile's walk took 1.1-1.16 times its file's.
 */
#define WINDOW_BYTES	((size_t)512 << 10)
#define PREFETCH_CHUNKS 4
#define CHUNK_BYTES	((size_t)512 << 10)

struct prefetch {
	const struct perun_profile_map_reader *m;
	void *reading;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	pthread_t thread;
	int started;
	char *chunk[PREFETCH_CHUNKS];
	size_t chunk_bytes;
	long got[PREFETCH_CHUNKS]; /* each chunk's read: bytes, 0 the end, -1 */
	size_t made, taken;	   /* chunks */
	size_t at;		   /* in the chunk being taken */
	int stop;
};

struct map_window {
	struct prefetch pf;
	char *buf;
	size_t cap;
	size_t ahead; /* refilled when fewer bytes are left unread */
	int done;     /* the reader said all was read, and sound */
};

static void *prefetch_run(void *data)
{
	struct prefetch *pf = data;
	for (long n = 1; n > 0;) {
		pthread_mutex_lock(&pf->lock);
		while (pf->made - pf->taken == PREFETCH_CHUNKS && !pf->stop)
			pthread_cond_wait(&pf->changed, &pf->lock);
		int stop = pf->stop;
		pthread_mutex_unlock(&pf->lock);
		if (stop)
			break;
		size_t c = pf->made % PREFETCH_CHUNKS;
		n = pf->m->read(pf->reading, pf->chunk[c], pf->chunk_bytes);
		pthread_mutex_lock(&pf->lock);
		pf->got[c] = n;
		pf->made++;
		pthread_cond_signal(&pf->changed);
		pthread_mutex_unlock(&pf->lock);
	}
	return NULL;
}

/* The reader's read, from the chunks read ahead when there is a thread. */
static long prefetch_read(struct prefetch *pf, char *buf, size_t cap)
{
	if (!pf->started)
		return pf->m->read(pf->reading, buf, cap);
	pthread_mutex_lock(&pf->lock);
	while (pf->taken == pf->made)
		pthread_cond_wait(&pf->changed, &pf->lock);
	pthread_mutex_unlock(&pf->lock);
	size_t c = pf->taken % PREFETCH_CHUNKS;
	long got = pf->got[c];
	if (got <= 0)
		return got; /* the end, or damage: the last chunk stays */
	size_t n = (size_t)got - pf->at < cap ? (size_t)got - pf->at : cap;
	memcpy(buf, pf->chunk[c] + pf->at, n);
	pf->at += n;
	if (pf->at == (size_t)got) {
		pf->at = 0;
		pthread_mutex_lock(&pf->lock);
		pf->taken++;
		pthread_cond_signal(&pf->changed);
		pthread_mutex_unlock(&pf->lock);
	}
	return (long)n;
}

static int prefetch_open(struct prefetch *pf, const struct perun_profile_map_reader *m,
			 size_t chunk_bytes)
{
	memset(pf, 0, sizeof(*pf));
	pf->m = m;
	pf->chunk_bytes = chunk_bytes;
	pthread_mutex_init(&pf->lock, NULL);
	pthread_cond_init(&pf->changed, NULL);
	if (!(pf->reading = m->open(m->data)))
		return -1;
	int room = 1;
	for (int i = 0; i < PREFETCH_CHUNKS; i++)
		room &= (pf->chunk[i] = malloc(chunk_bytes)) != NULL;
	/* Without room or a thread, the window reads the reader itself. */
	pf->started = room && !pthread_create(&pf->thread, NULL, prefetch_run, pf);
	return 0;
}

static void prefetch_close(struct prefetch *pf)
{
	if (pf->started) {
		pthread_mutex_lock(&pf->lock);
		pf->stop = 1;
		pthread_cond_signal(&pf->changed);
		pthread_mutex_unlock(&pf->lock);
		pthread_join(pf->thread, NULL);
	}
	if (pf->reading)
		pf->m->close(pf->reading);
	for (int i = 0; i < PREFETCH_CHUNKS; i++)
		free(pf->chunk[i]);
	pthread_mutex_destroy(&pf->lock);
	pthread_cond_destroy(&pf->changed);
}

static int window_open(struct map_window *w, const struct perun_profile_map_reader *m)
{
	memset(w, 0, sizeof(*w));
	w->cap = WINDOW_BYTES;
	/* The reader's parts read whole, into chunks of their size. */
	size_t chunk = m->part > CHUNK_BYTES ? m->part : CHUNK_BYTES;
	/* PERUN_TEST_MAP_WINDOW: a small window and chunks, for tests of
	 * members cut by its end and parts cut by a chunk's (in the manner
	 * of git's GIT_TEST_*). */
	const char *test = getenv("PERUN_TEST_MAP_WINDOW");
	if (test && atol(test) > 0)
		w->cap = chunk = (size_t)atol(test);
	w->ahead = w->cap / 4;
	w->buf = malloc(w->cap);
	return w->buf ? prefetch_open(&w->pf, m, chunk) : -1;
}

static void window_close(struct map_window *w)
{
	if (w->buf)
		prefetch_close(&w->pf);
	free(w->buf);
}

/* More of the map after js's unread bytes: when fewer than ahead are
 * left, or with more set always (grown when the window is full).  0, or
 * -1 when the reader finds the map damaged or memory runs out. */
static int window_refill(struct map_window *w, struct json_object_stream *js, int more)
{
	size_t unread = (size_t)(js->end - js->p);
	if (w->done || (!more && unread >= w->ahead))
		return 0;
	if (unread)
		memmove(w->buf, js->p, unread);
	if (unread == w->cap) {
		char *grown = realloc(w->buf, 2 * w->cap);
		if (!grown)
			return -1;
		w->buf = grown;
		w->cap *= 2;
	}
	size_t have = unread;
	while (have < w->cap && !w->done) {
		long n = prefetch_read(&w->pf, w->buf + have, w->cap - have);
		if (n < 0)
			return -1;
		w->done = n == 0;
		have += (size_t)n;
	}
	js->p = w->buf;
	js->end = w->buf + have;
	return 0;
}

/* The next member (json_object_stream_next), from the window w when
 * set. */
static int next_member(struct json_object_stream *js, struct map_window *w, struct json_tape *tape,
		       char **strings)
{
	if (w && window_refill(w, js, 0))
		return -1;
	for (;;) {
		char *at = js->p, *strings_at = *strings;
		size_t nodes = tape->n;
		int rc = json_object_stream_next(js, tape, strings);
		if (rc >= 0 || !w || w->done)
			return rc;
		/* Maybe cut by the window's end: again, with more. */
		js->p = at;
		*strings = strings_at;
		tape->n = nodes;
		if (window_refill(w, js, 1))
			return -1;
	}
}

/* After the map's closing brace: the reader's word that it is all there
 * and sound (0), or -1. */
static int window_finish(struct map_window *w)
{
	char extra;
	while (!w->done) {
		long n = prefetch_read(&w->pf, &extra, 1);
		if (n)
			return -1; /* damaged, or bytes after the map */
		w->done = 1;
	}
	return 0;
}

/* Fill b with the next types: 1, 0 after the last, -1 when the text or a
 * check fails. */
static int read_batch(struct json_object_stream *js, struct map_window *w,
		      struct member_cursor *resources, size_t *found, struct type_batch *b)
{
	char *strings = b->strings;
	b->tape.n = 0;
	b->n = 0;
	while (b->n < BATCH_TYPES && (size_t)(strings - b->strings) < BATCH_STRINGS) {
		size_t at = b->tape.n;
		int rc = next_member(js, w, &b->tape, &strings);
		if (rc <= 0)
			return rc;
		const struct perun_jv *id = &b->tape.nodes[at];
		int oom = 0;
		/* The usual load's checks: every type an object, ... */
		if (perun_jv_type(id + 1) != PERUN_JV_OBJECT)
			return -1;
		const struct perun_jv *columns = member_cursor_find(resources, id, &oom);
		if (oom)
			return -1;
		*found += columns != NULL;
		b->columns[b->n++] = columns ? columns : &profile_empty_object;
	}
	return 1;
}

static uintptr_t page_up(uintptr_t at)
{
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	return (at + page - 1) & ~(page - 1);
}

/*
 * Give back the map's file pages read since dropped, up to the page of
 * read, a few megabytes at a time: the process then holds a window of the
 * map, not all of it (a walk again reads them back from the page cache).
 * The map's pages are never written, and only whole pages of it go: the
 * first and last may hold the rest of the profile, decoded in place.
 * Returns where the next drop starts.
 */
static uintptr_t drop_read_pages(uintptr_t dropped, uintptr_t read)
{
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t upto = read & ~(page - 1);
	if (upto < dropped + ((uintptr_t)8 << 20))
		return dropped;
	madvise((void *)dropped, upto - dropped, MADV_DONTNEED);
	return upto;
}

static void *read_types(void *arg)
{
	struct type_stream *s = arg;
	const struct perun_jv *resources = &s->p->tape.nodes[s->p->resources];
	struct json_object_stream js = { 0 };
	struct member_cursor cursor;
	struct map_window window, *w = s->st->has_reader ? &window : NULL;
	size_t found = 0;
	int rc = 1;
	if (w) {
		/* The first window, then the stream on it. */
		struct json_object_stream first = { 0 };
		if (window_open(w, &s->st->map_reader) || window_refill(w, &first, 1) ||
		    json_object_stream_open_part(&js, first.p, (size_t)(first.end - first.p),
						 s->st->map_len))
			rc = -1;
	} else if (json_object_stream_open(&js, s->st->map_text, s->st->map_len)) {
		rc = -1;
	}
	member_cursor_init(&cursor, resources, 0);
	uintptr_t dropped = page_up((uintptr_t)s->st->map_text);
	while (rc == 1) {
		if (s->st->map_from_file)
			dropped = drop_read_pages(dropped, (uintptr_t)js.p);
		pthread_mutex_lock(&s->lock);
		while (s->made - s->walked == STREAM_BATCHES && !s->stop)
			pthread_cond_wait(&s->changed, &s->lock);
		int stop = s->stop;
		pthread_mutex_unlock(&s->lock);
		if (stop)
			break;
		struct type_batch *b = &s->batch[s->made % STREAM_BATCHES];
		rc = read_batch(&js, w, &cursor, &found, b);
		pthread_mutex_lock(&s->lock);
		if (rc >= 0 && b->n)
			s->made++;
		pthread_cond_signal(&s->changed);
		pthread_mutex_unlock(&s->lock);
	}
	/* ... and every resource's type in the map, ... */
	if (!rc && found != perun_jv_len(resources))
		rc = -1;
	/* ... which its reader found all there and sound. */
	if (!rc && w && window_finish(w))
		rc = -1;
	member_cursor_release(&cursor);
	json_object_stream_close(&js);
	if (w)
		window_close(w);
	pthread_mutex_lock(&s->lock);
	s->read = rc ? -1 : 1;
	pthread_cond_signal(&s->changed);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static void type_stream_release(struct type_stream *s)
{
	for (int i = 0; i < STREAM_BATCHES; i++) {
		json_tape_release(&s->batch[i].tape);
		free(s->batch[i].columns);
		json_room_free(s->batch[i].strings, s->strings_len);
	}
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->changed);
}

static int stream_init(struct type_stream *s, const struct perun_profile *p)
{
	memset(s, 0, sizeof(*s));
	s->p = p;
	s->st = p->stream;
	/* Decoded strings are never longer than their text: the rest of the
	 * map's always fit (a mapping of its own when big: only what a batch
	 * writes is made). */
	s->strings_len = s->st->map_len + 1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->changed, NULL);
	for (int i = 0; i < STREAM_BATCHES; i++) {
		struct type_batch *b = &s->batch[i];
		if (!(b->columns = malloc(BATCH_TYPES * sizeof(*b->columns))) ||
		    !(b->strings = json_room_alloc(s->strings_len)) ||
		    json_tape_grow(&b->tape, 1024))
			return -1;
	}
	return 0;
}

/* Walk the batches as they come; fn's non-zero return, or 0 when the
 * reader stopped (s->read says how); *walked counts the types. */
static int walk_batches(struct type_stream *s, perun_type_fn fn, void *data, size_t *walked)
{
	for (;;) {
		pthread_mutex_lock(&s->lock);
		while (s->walked == s->made && !s->read)
			pthread_cond_wait(&s->changed, &s->lock);
		int more = s->walked < s->made && s->read >= 0;
		pthread_mutex_unlock(&s->lock);
		if (!more)
			return 0;
		struct type_batch *b = &s->batch[s->walked % STREAM_BATCHES];
		const struct perun_jv *id = b->tape.nodes;
		for (size_t i = 0; i < b->n; i++, id = perun_jv_skip(id + 1)) {
			int rc = fn(id->u.s, id + 1, b->columns[i], data);
			if (rc)
				return rc;
			++*walked;
		}
		pthread_mutex_lock(&s->lock);
		s->walked++;
		pthread_cond_signal(&s->changed);
		pthread_mutex_unlock(&s->lock);
	}
}

static int stream_foreach_type(const struct perun_profile *p, perun_type_fn fn, void *data,
			       struct perun_error *err)
{
	struct type_stream s;
	pthread_t reader;
	size_t walked = 0;
	if (p->stream->state == STREAM_SETTLED)
		return profile_foreach_type_from(p, 0, fn, data, err);
	if (p->stream->state == STREAM_FAILED)
		return stream_error(p->stream, err);
	/* Without room or a thread for it (a small address space), the walk
	 * goes the usual way. */
	if (stream_init(&s, p) || pthread_create(&reader, NULL, read_types, &s)) {
		type_stream_release(&s);
		return walk_whole_from(p, 0, fn, data, err);
	}
	int rc = walk_batches(&s, fn, data, &walked);
	pthread_mutex_lock(&s.lock);
	s.stop = 1;
	pthread_cond_signal(&s.changed);
	pthread_mutex_unlock(&s.lock);
	pthread_join(reader, NULL);
	int read = s.read;
	type_stream_release(&s);
	if (rc || read > 0)
		return rc;
	/* The usual load: its error, or the rest of the walk there. */
	return walk_whole_from(p, walked, fn, data, err);
}

static const struct profile_form stream_form = {
	.foreach_type = stream_foreach_type,
	.load_copy = stream_load_copy,
	.load_whole = stream_load_whole,
	.release = stream_release,
};
