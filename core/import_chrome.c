/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun import chrome <file>...: Chrome Trace Event JSON of many processes
 * and hosts (a workflow run: libperun-annotate's and PerfFlowAspect's
 * files, "perun show ... chrome" exports) merged into one profile of the
 * trace collector's shape: a resource per region with amount (us),
 * timestamp (us since the earliest event of all files), call-order,
 * exclusive (sync regions: amount minus their nested regions on the
 * thread), uid, tid, pid, host, process; !ThreadResource! and
 * !ProcessResource! records give the life of every thread and process.
 *
 * B/E pairs nest per thread; X events are complete; b/e (and S/F) async
 * pairs match by process, category, name and id, on any thread.  A region
 * still open at the end of its file ends at its thread's last event (a
 * crashed program); an end that closes nothing is dropped and counted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"

struct call {
	char *uid;
	const char *host, *process, *location; /* owned by the file's strings */
	long long pid, tid;
	double begin, dur, child;
	int async;
};

struct span {
	const char *host, *process;
	long long pid, tid;
	double first, last;
};

struct open_ev {
	char *key; /* thread: "name"; async: "pid cat name id" */
	long long pid, tid;
	double ts;
	const char *location;
	int async;
};

struct importer {
	struct call *calls;
	size_t ncalls, acalls;
	struct span *threads;
	size_t nthreads, athreads;
	char **strings; /* hosts, process names, categories of all files */
	size_t nstrings, astrings;
	struct pname {
		long long pid;
		const char *name;
	} * pnames; /* process_name metadata of the file being read */
	size_t npnames, apnames;
	size_t dropped;
	double origin;
	const char *path;
};

#define GROW(v, n, a) ((n) == (a) ? grow_array((void **)&(v), &(a), sizeof(*(v))) : 0)

static int grow_array(void **v, size_t *alloc, size_t size)
{
	size_t n = *alloc ? 2 * *alloc : 16;
	void *p = realloc(*v, n * size);
	if (!p)
		return -1;
	*v = p;
	*alloc = n;
	return 0;
}

/* A copy of s kept until the import ends; NULL without memory. */
static const char *keep(struct importer *im, const char *s)
{
	for (size_t i = im->nstrings; i-- > 0;)
		if (!strcmp(im->strings[i], s))
			return im->strings[i];
	char *d = strdup(s);
	if (!d || GROW(im->strings, im->nstrings, im->astrings)) {
		free(d);
		return NULL;
	}
	return im->strings[im->nstrings++] = d;
}

static int oom(struct perun_error *err)
{
	return perun_error_set(err, PERUN_EGENERIC, "out of memory");
}

static int bad_event(struct importer *im, size_t i, const char *problem, const char *ph,
		     struct perun_error *err)
{
	return perun_error_set(err, PERUN_EINVAL, "cannot import '%s': event %zu%s%s%s: %s",
			       im->path, i, ph ? " (ph '" : "", ph ? ph : "", ph ? "')" : "",
			       problem);
}

/* The thread record of (pid, tid) in this file, from index first on. */
static struct span *thread_of(struct importer *im, size_t first, const char *host, long long pid,
			      long long tid)
{
	for (size_t i = first; i < im->nthreads; i++)
		if (im->threads[i].pid == pid && im->threads[i].tid == tid)
			return &im->threads[i];
	if (GROW(im->threads, im->nthreads, im->athreads))
		return NULL;
	struct span *s = &im->threads[im->nthreads++];
	*s = (struct span){ host, NULL, pid, tid, INFINITY, -INFINITY };
	return s;
}

static void span_extend(struct importer *im, struct span *th, double begin, double end)
{
	th->first = fmin(th->first, begin);
	th->last = fmax(th->last, end);
	im->origin = fmin(im->origin, begin);
}

static int add_call(struct importer *im, const char *uid, const char *host, const char *location,
		    long long pid, long long tid, double begin, double end, int async)
{
	if (GROW(im->calls, im->ncalls, im->acalls))
		return -1;
	char *u = strdup(uid);
	if (!u)
		return -1;
	im->calls[im->ncalls++] =
		(struct call){ u, host, NULL, location, pid, tid, begin, end - begin, 0.0, async };
	return 0;
}

static const char *str_field(json_t *ev, const char *key)
{
	return json_string_value(json_object_get(ev, key));
}

/* An integer pid or tid; Chrome also allows strings of digits. */
static int int_field(json_t *ev, const char *key, long long *out)
{
	json_t *v = json_object_get(ev, key);
	if (json_is_integer(v)) {
		*out = (long long)json_integer_value(v);
		return 0;
	}
	const char *s = json_string_value(v);
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return *end || errno ? -1 : 0;
}

/* The id of an async event as text (numbers and strings alike). */
static int id_text(json_t *ev, char *buf, size_t size)
{
	json_t *id = json_object_get(ev, "id");
	if (!id)
		id = json_object_get(json_object_get(ev, "id2"), "local");
	if (!id)
		id = json_object_get(json_object_get(ev, "id2"), "global");
	if (json_is_string(id))
		snprintf(buf, size, "%s", json_string_value(id));
	else if (json_is_integer(id))
		snprintf(buf, size, "0x%llx", (unsigned long long)json_integer_value(id));
	else
		return -1;
	return 0;
}

static int find_open(struct open_ev *v, size_t n, const char *key, long long pid, long long tid,
		     int any_thread)
{
	for (size_t i = n; i-- > 0;)
		if (v[i].pid == pid && (any_thread || v[i].tid == tid) && !strcmp(v[i].key, key))
			return (int)i;
	return -1;
}

/* Metadata: process names and the host (process_labels, otherData). */
static int read_metadata(struct importer *im, json_t *events, const char **host,
			 struct perun_error *err)
{
	size_t i;
	json_t *ev;
	im->npnames = 0;
	json_array_foreach(events, i, ev)
	{
		const char *name = str_field(ev, "name"), *ph = str_field(ev, "ph");
		if (!ph || strcmp(ph, "M") || !name)
			continue;
		const char *arg = str_field(json_object_get(ev, "args"),
					    strcmp(name, "process_labels") ? "name" : "labels");
		long long pid;
		if (!arg || !*arg)
			continue;
		if (!strcmp(name, "process_labels")) {
			if (!(*host = keep(im, arg)))
				return oom(err);
		} else if (!strcmp(name, "process_name") && !int_field(ev, "pid", &pid)) {
			if (GROW(im->pnames, im->npnames, im->apnames) || !(arg = keep(im, arg)))
				return oom(err);
			im->pnames[im->npnames++] = (struct pname){ pid, arg };
		}
	}
	return 0;
}

static const char *process_name(const struct importer *im, long long pid)
{
	for (size_t i = 0; i < im->npnames; i++)
		if (im->pnames[i].pid == pid)
			return im->pnames[i].name;
	return "";
}

/* Parse text as JSON; a file cut short after its last complete event
 * (the trailing ']' is optional in Chrome's array format) is closed. */
static json_t *load_trace(const char *path, struct perun_error *err)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);
	if (root)
		return root;
	FILE *f = fopen(path, "r");
	if (!f) {
		perun_error_set_errno(err, PERUN_EINVAL, errno, "cannot read '%s'", path);
		return NULL;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	char buf[65536];
	size_t n;
	while (mem && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, mem);
	fclose(f);
	if (mem)
		fclose(mem);
	if (text) {
		size_t k = len;
		while (k && strchr(" \t\r\n,", text[k - 1]))
			k--;
		size_t start = strspn(text, " \t\r\n");
		if (k > start && text[start] == '[' && text[k - 1] == '}') {
			char *fixed = malloc(k + 2);
			if (fixed) {
				memcpy(fixed, text, k);
				fixed[k] = ']';
				root = json_loadb(fixed, k + 1, 0, &(json_error_t){ 0 });
				free(fixed);
			}
		}
	}
	free(text);
	if (!root)
		perun_error_set(err, PERUN_EINVAL, "cannot import '%s': line %d: %s", path,
				jerr.line, jerr.text);
	return root;
}

struct when {
	size_t i;
	double ts;
};

static int cmp_when(const void *a, const void *b)
{
	const struct when *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int read_file(struct importer *im, const char *path, struct perun_error *err)
{
	im->path = path;
	json_t *root = load_trace(path, err);
	if (!root)
		return -PERUN_EINVAL;
	json_t *events = json_is_array(root) ? root : json_object_get(root, "traceEvents");
	const char *host = str_field(json_object_get(root, "otherData"), "hostname");
	struct open_ev *open = NULL;
	struct when *order = NULL;
	size_t nopen = 0, aopen = 0, first_thread = im->nthreads, first_call = im->ncalls;
	int rc = 0;
	if (!json_is_array(events)) {
		rc = perun_error_set(err, PERUN_EINVAL,
				     "cannot import '%s': neither an array of events nor an "
				     "object with traceEvents",
				     path);
		goto out;
	}
	if (!(host = keep(im, host ? host : "")) || read_metadata(im, events, &host, err)) {
		rc = err->code ? -err->code : oom(err);
		goto out;
	}
	/* Threads write their buffers in turn: events are taken in the
	 * order of their times (stable: a thread's own order holds). */
	size_t nev = json_array_size(events);
	order = malloc((nev ? nev : 1) * sizeof(*order));
	if (!order) {
		rc = oom(err);
		goto out;
	}
	for (size_t k = 0; k < nev; k++) {
		json_t *e = json_array_get(events, k);
		order[k].i = k;
		order[k].ts = json_number_value(json_object_get(e, "ts"));
	}
	qsort(order, nev, sizeof(*order), cmp_when);
	for (size_t o = 0; o < nev; o++) {
		size_t i = order[o].i;
		json_t *ev = json_array_get(events, i);
		if (!json_is_object(ev)) {
			rc = bad_event(im, i, "not an object", NULL, err);
			goto out;
		}
		const char *ph = str_field(ev, "ph"), *name = str_field(ev, "name");
		if (!ph) {
			rc = bad_event(im, i, "no 'ph' string", NULL, err);
			goto out;
		}
		if (ph[0] && strchr("MCiIRNODPsftnv", ph[0])) {
			/* Metadata, counters, instants, objects, flows: only
			 * how long their thread lived. */
			long long pid, tid;
			json_t *ts = json_object_get(ev, "ts");
			struct span *th;
			if (ph[0] != 'M' && json_is_number(ts) && isfinite(json_number_value(ts)) &&
			    !int_field(ev, "pid", &pid) && !int_field(ev, "tid", &tid) &&
			    (th = thread_of(im, first_thread, host, pid, tid)))
				span_extend(im, th, json_number_value(ts), json_number_value(ts));
			continue;
		}
		int sync = strchr("BEX", ph[0]) != NULL, async = strchr("beSF", ph[0]) != NULL;
		if (!ph[0] || ph[1] || (!sync && !async)) {
			rc = bad_event(im, i, "not a known phase", ph, err);
			goto out;
		}
		long long pid, tid;
		json_t *ts = json_object_get(ev, "ts");
		if (!name || !json_is_number(ts) || int_field(ev, "pid", &pid) ||
		    int_field(ev, "tid", &tid)) {
			rc = bad_event(im, i,
				       "needs 'name' (string), 'ts' (number), 'pid' and 'tid' "
				       "(integers)",
				       ph, err);
			goto out;
		}
		double t = json_number_value(ts);
		if (!isfinite(t)) {
			rc = bad_event(im, i, "its 'ts' is not a finite number", ph, err);
			goto out;
		}
		const char *cat = str_field(ev, "cat");
		const char *loc = keep(im, cat ? cat : "");
		struct span *th = thread_of(im, first_thread, host, pid, tid);
		if (!loc || !th) {
			rc = oom(err);
			goto out;
		}
		double end = t;
		if (ph[0] == 'X') {
			json_t *dur = json_object_get(ev, "dur");
			end = t + json_number_value(dur);
			if (!json_is_number(dur) || json_number_value(dur) < 0 || !isfinite(end)) {
				rc = bad_event(im, i, "needs a 'dur' >= 0", ph, err);
				goto out;
			}
			if (add_call(im, name, host, loc, pid, tid, t, end, 0)) {
				rc = oom(err);
				goto out;
			}
		} else {
			char id[128] = "", *key;
			if (async && id_text(ev, id, sizeof(id))) {
				rc = bad_event(im, i, "needs an 'id'", ph, err);
				goto out;
			}
			if (asprintf(&key, "%s\x1f%s\x1f%s", async ? cat ? cat : "" : "", name,
				     id) < 0) {
				rc = oom(err);
				goto out;
			}
			int begin = ph[0] == 'B' || ph[0] == 'b' || ph[0] == 'S';
			if (begin) {
				if (GROW(open, nopen, aopen)) {
					free(key);
					rc = oom(err);
					goto out;
				}
				open[nopen++] = (struct open_ev){ key, pid, tid, t, loc, async };
			} else {
				int k = find_open(open, nopen, key, pid, tid, async);
				free(key);
				if (k < 0) {
					im->dropped++;
				} else {
					if (add_call(im, name, host, open[k].location, pid,
						     open[k].tid, open[k].ts, t, async)) {
						rc = oom(err);
						goto out;
					}
					free(open[k].key);
					memmove(&open[k], &open[k + 1],
						(nopen - (size_t)k - 1) * sizeof(*open));
					nopen--;
				}
			}
		}
		span_extend(im, th, t, end);
	}
	/* Regions never ended (a crash) end at their thread's last event. */
	for (size_t k = 0; k < nopen && !rc; k++) {
		struct span *th = thread_of(im, first_thread, host, open[k].pid, open[k].tid);
		const char *key = strchr(open[k].key, '\x1f') + 1;
		char *name = strndup(key, strcspn(key, "\x1f"));
		if (!th || !name ||
		    add_call(im, name, host, open[k].location, open[k].pid, open[k].tid, open[k].ts,
			     th->last, open[k].async))
			rc = oom(err);
		free(name);
	}
	for (size_t k = first_thread; k < im->nthreads && !rc; k++) {
		if (!(im->threads[k].process = keep(im, process_name(im, im->threads[k].pid))))
			rc = oom(err);
	}
	for (size_t k = first_call; k < im->ncalls && !rc; k++) {
		struct span *th =
			thread_of(im, first_thread, host, im->calls[k].pid, im->calls[k].tid);
		if (!th)
			rc = oom(err);
		else
			im->calls[k].process = th->process;
	}
out:
	for (size_t k = 0; k < nopen; k++)
		free(open[k].key);
	free(open);
	free(order);
	json_decref(root);
	return rc;
}

/* Sync regions of a thread by begin, the outer (longer) first. */
/* Calls by host, process and thread. */
static int cmp_thread(const struct call *x, const struct call *y)
{
	int c = strcmp(x->host, y->host);
	if (c)
		return c;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_nesting(const void *a, const void *b)
{
	const struct call *x = a, *y = b;
	int c = cmp_thread(x, y);
	if (c)
		return c;
	if (x->async != y->async)
		return x->async - y->async;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->dur > y->dur ? -1 : x->dur < y->dur;
}

/* The time of each sync region's direct children on its thread. */
static int exclusive_times(struct importer *im)
{
	struct call **stack = NULL;
	size_t n = 0, alloc = 0;
	for (size_t i = 0; i < im->ncalls; i++) {
		struct call *c = &im->calls[i];
		if (i && cmp_thread(c, c - 1))
			n = 0;
		if (c->async)
			continue;
		while (n && stack[n - 1]->begin + stack[n - 1]->dur <= c->begin)
			n--;
		/* Only a region that ends inside its parent is its callee
		 * (malformed X events may overlap): exclusive stays >= 0. */
		if (n && c->begin + c->dur <= stack[n - 1]->begin + stack[n - 1]->dur)
			stack[n - 1]->child += c->dur;
		else if (n)
			continue;
		if (GROW(stack, n, alloc)) {
			free(stack);
			return -1;
		}
		stack[n++] = c;
	}
	free(stack);
	return 0;
}

static int put_row(struct perun_profile *profile, json_t *row, struct perun_error *err)
{
	if (!row)
		return oom(err);
	int rc = perun_profile_add_resource(profile, row, err);
	json_decref(row);
	return rc;
}

static json_t *base_row(const char *uid, double amount, double ts, long long order,
			const char *host, const char *process, long long pid, long long tid,
			const char *location)
{
	return json_pack("{s:f, s:f, s:I, s:s, s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:s}", "amount",
			 amount, "timestamp", ts, "call-order", (json_int_t)order, "uid", uid,
			 "tid", (json_int_t)tid, "pid", (json_int_t)pid, "host", host, "process",
			 process, "type", "mixed", "subtype", "time delta", "location", location,
			 "workload", "");
}

/* Calls of a uid on a thread are numbered in the order they began. */
static int cmp_order(const void *a, const void *b)
{
	const struct call *x = a, *y = b;
	int c = strcmp(x->uid, y->uid);
	if (!c)
		c = cmp_thread(x, y);
	if (c)
		return c;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int build_profile(struct importer *im, struct perun_profile *profile,
			 struct perun_error *err)
{
	if (!im->ncalls)
		return perun_error_set(err, PERUN_EINVAL,
				       "cannot import '%s': no regions (B/E, X or async events) "
				       "in the files",
				       im->path);
	qsort(im->calls, im->ncalls, sizeof(*im->calls), cmp_nesting);
	if (exclusive_times(im))
		return oom(err);
	qsort(im->calls, im->ncalls, sizeof(*im->calls), cmp_order);
	long long order = 0;
	int rc = 0;
	for (size_t i = 0; i < im->ncalls && !rc; i++) {
		struct call *c = &im->calls[i];
		int same = i && !strcmp(c->uid, c[-1].uid) && !cmp_thread(c, c - 1);
		order = same ? order + 1 : 0;
		json_t *row = base_row(c->uid, c->dur, c->begin - im->origin, order, c->host,
				       c->process ? c->process : "", c->pid, c->tid, c->location);
		/* Async regions have no callees: no exclusive time, and a type
		 * of their own (rows of one type must have the same keys). */
		if (row && !c->async)
			json_object_set_new(row, "exclusive", json_real(c->dur - c->child));
		else if (row)
			json_object_set_new(row, "async", json_true());
		rc = put_row(profile, row, err);
	}
	/* Threads, then processes (first to last event of their threads). */
	for (size_t i = 0; i < im->nthreads && !rc; i++) {
		struct span *t = &im->threads[i];
		rc = put_row(profile,
			     base_row("!ThreadResource!", t->last - t->first, t->first - im->origin,
				      0, t->host, t->process, t->pid, t->tid, ""),
			     err);
	}
	for (size_t i = 0; i < im->nthreads && !rc; i++) {
		struct span p = im->threads[i];
		int seen = 0;
		for (size_t k = 0; k < im->nthreads; k++) {
			struct span *t = &im->threads[k];
			if (t->pid != p.pid || t->host != p.host)
				continue;
			if (k < i)
				seen = 1;
			p.first = fmin(p.first, t->first);
			p.last = fmax(p.last, t->last);
		}
		if (seen)
			continue;
		json_t *row = base_row("!ProcessResource!", p.last - p.first, p.first - im->origin,
				       0, p.host, p.process, p.pid, p.pid, "");
		if (row)
			json_object_set_new(row, "ppid", json_integer(0));
		rc = put_row(profile, row, err);
	}
	/* The header's cmd: the processes' names, sorted and distinct. */
	char **names = calloc(im->nthreads + 1, sizeof(*names));
	size_t nn = 0;
	if (!rc && !names)
		rc = oom(err);
	for (size_t i = 0; !rc && i < im->nthreads; i++) {
		const char *p = im->threads[i].process;
		int dup = 0;
		for (size_t k = 0; k < nn && !dup; k++)
			dup = !strcmp(names[k], p);
		if (!dup && *p)
			names[nn++] = (char *)p;
	}
	if (!rc) {
		qsort(names, nn, sizeof(*names), cmp_str);
		struct perun_strbuf cmd = PERUN_STRBUF_INIT;
		for (size_t k = 0; k < nn; k++)
			perun_strbuf_addf(&cmd, "%s%s", k ? " " : "", names[k]);
		perun_profile_set_header(profile, "cmd", cmd.len ? cmd.buf : "chrome-trace");
		perun_profile_set_header(profile, "args", "");
		perun_profile_set_header(profile, "workload", "");
		perun_strbuf_release(&cmd);
	}
	free(names);
	return rc;
}

static int read_chrome(char *const *paths, int n, struct perun_profile *profile,
		       struct perun_error *err)
{
	struct importer im = { .origin = INFINITY };
	int rc = 0;
	for (int i = 0; i < n && !rc; i++)
		rc = read_file(&im, paths[i], err);
	if (!rc)
		rc = build_profile(&im, profile, err);
	if (!rc && im.dropped)
		fprintf(stderr, "perun: %zu end events that closed nothing were dropped\n",
			im.dropped);
	for (size_t i = 0; i < im.ncalls; i++)
		free(im.calls[i].uid);
	for (size_t i = 0; i < im.nstrings; i++)
		free(im.strings[i]);
	free(im.calls);
	free(im.threads);
	free(im.strings);
	free(im.pnames);
	return rc;
}

const struct perun_import_source perun_import_chrome = {
	.name = "chrome",
	.summary = "merge Chrome Trace Event JSON files into one trace profile",
	.profile_type = "mixed",
	.units = "{\"mixed(time delta)\": \"us\"}",
	.read_many = read_chrome,
};
