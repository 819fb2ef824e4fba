/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The trace transformation on hand-made raw events: inclusive and exclusive
 * times, call orders with sampling, USDT pairs and single probes, threads
 * and processes, calls left open by a crash, returns without a call.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../trace.h"
#include "../../../../tests/tap.h"

/* Linked from trace.c in the plugin; the test needs none of it. */
void trace_log(const struct trace_config *cfg, const char *fmt, ...)
{
	(void)cfg;
	(void)fmt;
}

enum { MAIN, WORK, LEAF, REGION, REGION_END, TICK, NPROBES };

static struct trace_probe probe_v[NPROBES] = {
	[MAIN] = { .kind = TRACE_PROBE_FUNC,
		   .name = "main",
		   .uid = "main",
		   .sample = 1,
		   .pair = -1 },
	[WORK] = { .kind = TRACE_PROBE_FUNC,
		   .name = "_Z4workv",
		   .uid = "work()",
		   .sample = 1,
		   .pair = -1 },
	[LEAF] = { .kind = TRACE_PROBE_FUNC,
		   .name = "leaf",
		   .uid = "leaf",
		   .sample = 3,
		   .pair = -1 },
	[REGION] = { .kind = TRACE_PROBE_USDT,
		     .name = "region",
		     .uid = "region#region_end",
		     .sample = 1,
		     .pair = REGION_END },
	[REGION_END] = { .kind = TRACE_PROBE_USDT_END,
			 .name = "region_end",
			 .uid = "region_end",
			 .sample = 1,
			 .pair = REGION },
	[TICK] = { .kind = TRACE_PROBE_USDT,
		   .name = "tick",
		   .uid = "tick#tick",
		   .sample = 1,
		   .pair = -1 },
};

struct row {
	char uid[64];
	double amount, timestamp, exclusive;
	long long order, tid, pid, ppid;
	int has_exclusive;
	char location[32];
};

static struct row rows[64];
static size_t nrows;

static int collect_row(const json_t *r, void *data)
{
	(void)data;
	struct row *w = &rows[nrows++];
	memset(w, 0, sizeof(*w));
	snprintf(w->uid, sizeof(w->uid), "%s", json_string_value(json_object_get(r, "uid")));
	snprintf(w->location, sizeof(w->location), "%s",
		 json_string_value(json_object_get(r, "location")));
	w->amount = json_number_value(json_object_get(r, "amount"));
	w->timestamp = json_number_value(json_object_get(r, "timestamp"));
	w->has_exclusive = json_object_get(r, "exclusive") != NULL;
	w->exclusive = json_number_value(json_object_get(r, "exclusive"));
	w->order = json_integer_value(json_object_get(r, "call-order"));
	w->tid = json_integer_value(json_object_get(r, "tid"));
	w->pid = json_integer_value(json_object_get(r, "pid"));
	w->ppid = json_integer_value(json_object_get(r, "ppid"));
	return nrows == 64;
}

/* The n-th row (by timestamp order of insertion) of uid in thread tid. */
static const struct row *find(const char *uid, long long tid, long long order)
{
	for (size_t i = 0; i < nrows; i++)
		if (!strcmp(rows[i].uid, uid) && rows[i].tid == tid && rows[i].order == order)
			return &rows[i];
	return NULL;
}

static size_t count(const char *uid)
{
	size_t n = 0;
	for (size_t i = 0; i < nrows; i++)
		n += !strcmp(rows[i].uid, uid);
	return n;
}

#define EV(t, ty, tid_, pid_, id_)                                                                 \
	{                                                                                          \
		.ts = (t), .type = (ty), .tid = (tid_), .pid = (pid_), .id = (id_)                 \
	}

int main(void)
{
	struct trace_probes probes = { .v = probe_v, .n = NPROBES };
	for (size_t i = 0; i < NPROBES; i++)
		probe_v[i].location = "prog";
	const unsigned long long o = 1000000; /* the time origin */
	const struct perun_trace_event ev[] = {
		EV(o, PERUN_TRACE_PROCESS_BEGIN, 10, 10, 1),
		EV(o + 1000, PERUN_TRACE_FUNC_BEGIN, 10, 10, MAIN),
		EV(o + 1500, PERUN_TRACE_FUNC_END, 10, 10, WORK), /* no call: dropped */
		EV(o + 2000, PERUN_TRACE_FUNC_BEGIN, 10, 10, WORK),
		EV(o + 2500, PERUN_TRACE_FUNC_BEGIN, 10, 10, LEAF),
		EV(o + 3000, PERUN_TRACE_FUNC_END, 10, 10, LEAF),
		EV(o + 3100, PERUN_TRACE_FUNC_BEGIN, 10, 10, LEAF),
		EV(o + 3600, PERUN_TRACE_FUNC_END, 10, 10, LEAF),
		EV(o + 5000, PERUN_TRACE_FUNC_END, 10, 10, WORK),
		EV(o + 5100, PERUN_TRACE_THREAD_BEGIN, 11, 10, 0),
		EV(o + 5200, PERUN_TRACE_USDT_BEGIN, 11, 10, REGION),
		EV(o + 5300, PERUN_TRACE_USDT_SINGLE, 11, 10, TICK),
		EV(o + 5500, PERUN_TRACE_USDT_SINGLE, 11, 10, TICK),
		EV(o + 5600, PERUN_TRACE_USDT_SINGLE, 11, 10, TICK),
		EV(o + 6200, PERUN_TRACE_USDT_END, 11, 10, REGION_END),
		EV(o + 6300, PERUN_TRACE_FUNC_BEGIN, 11, 10, WORK), /* open at the end */
		EV(o + 7300, PERUN_TRACE_THREAD_END, 11, 10, 0),
		EV(o + 9000, PERUN_TRACE_FUNC_END, 10, 10, MAIN),
		EV(o + 10000, PERUN_TRACE_PROCESS_END, 10, 10, 1),
	};
	struct trace_transform_input in = {
		.probes = &probes,
		.workload = "w",
		.location = "prog",
		.start_ns = o,
	};
	struct perun_profile *profile = perun_profile_new("mixed");
	struct trace_transform_stats stats;
	struct perun_error err = { 0 };
	int rc = trace_transform(ev, sizeof(ev) / sizeof(ev[0]), &in, profile, &stats, &err);
	tap_ok(rc == 0, "transform succeeds (%s)", err.message);
	perun_profile_foreach_resource(profile, collect_row, NULL);

	const struct row *m = find("main", 10, 0), *w = find("work()", 10, 0);
	const struct row *l0 = find("leaf", 10, 0), *l1 = find("leaf", 10, 3);
	tap_ok(m && m->amount == 8.0 && m->timestamp == 1.0, "main: 8 us inclusive from 1 us");
	tap_ok(w && w->amount == 3.0 && w->has_exclusive && w->exclusive == 2.0,
	       "work: 3 us inclusive, 2 us exclusive (two leaf calls of 0.5 us)");
	tap_ok(m && m->exclusive == 5.0, "main: exclusive is inclusive minus work's 3 us");
	tap_ok(l0 && l1 && l0->amount == 0.5 && l1->amount == 0.5 && l0->exclusive == 0.5,
	       "leaf: call orders advance by its sampling (0, 3)");
	const struct row *r = find("region#region_end", 11, 0);
	tap_ok(r && r->amount == 1.0 && !r->has_exclusive, "usdt pair: 1 us in thread 11");
	tap_ok(count("tick#tick") == 2 && find("tick#tick", 11, 0) &&
		       find("tick#tick", 11, 0)->amount == 0.2 &&
		       find("tick#tick", 11, 1)->amount == 0.1,
	       "single usdt: timed between hits");
	const struct row *open = find("work()", 11, 0);
	tap_ok(open && open->amount == 1.0, "a call open at its thread's end closes there");
	const struct row *t = find("!ThreadResource!", 11, 0);
	tap_ok(t && t->amount == 2.2 && t->pid == 10, "thread record with its pid");
	const struct row *p = find("!ProcessResource!", 10, 0);
	tap_ok(p && p->amount == 10.0 && p->ppid == 1 && p->timestamp == 0.0,
	       "process record with pid and ppid");
	tap_ok(stats.unmatched == 1 && stats.open_at_end == 1,
	       "one return without call, one call open at the end (%zu, %zu)", stats.unmatched,
	       stats.open_at_end);
	tap_ok(count("main") == 1 && count("work()") == 2 && nrows == 10,
	       "every call is one resource (%zu rows)", nrows);
	json_t *map = json_object_get(perun_profile_json(profile), "resource_type_map");
	tap_ok(json_object_get(map, "work()#0") && json_object_get(map, "work()#1") &&
		       json_object_get(map, "leaf#0"),
	       "one resource type per uid and thread");
	json_t *cols = json_object_get(json_object_get(perun_profile_json(profile), "resources"),
				       "leaf#0");
	tap_ok(json_array_size(json_object_get(cols, "amount")) == 2 &&
		       json_array_size(json_object_get(cols, "exclusive")) == 2,
	       "columns of a type filled in together");
	perun_profile_free(profile);

	/* An exec: the process begins again while main is open; main of the
	 * old image ends there, the process record spans both images. */
	const struct perun_trace_event exec_ev[] = {
		EV(o, PERUN_TRACE_PROCESS_BEGIN, 20, 20, 1),
		EV(o + 1000, PERUN_TRACE_FUNC_BEGIN, 20, 20, MAIN),
		EV(o + 1500, PERUN_TRACE_FUNC_BEGIN, 20, 20, WORK),
		EV(o + 4000, PERUN_TRACE_PROCESS_BEGIN, 20, 20, 1),
		EV(o + 5000, PERUN_TRACE_FUNC_BEGIN, 20, 20, MAIN),
		EV(o + 6000, PERUN_TRACE_FUNC_END, 20, 20, MAIN),
		EV(o + 7000, PERUN_TRACE_PROCESS_END, 20, 20, 1),
	};
	profile = perun_profile_new("mixed");
	nrows = 0;
	rc = trace_transform(exec_ev, sizeof(exec_ev) / sizeof(exec_ev[0]), &in, profile, &stats,
			     &err);
	perun_profile_foreach_resource(profile, collect_row, NULL);
	const struct row *m0 = find("main", 20, 0), *m1 = find("main", 20, 1);
	const struct row *w0 = find("work()", 20, 0), *p0 = find("!ProcessResource!", 20, 0);
	tap_ok(rc == 0 && m0 && m0->amount == 3.0 && m0->exclusive == 0.5,
	       "exec: the old image's main ends at the exec");
	tap_ok(w0 && w0->amount == 2.5, "exec: and its callee too");
	tap_ok(m1 && m1->amount == 1.0 && m1->timestamp == 5.0, "exec: the new image's main");
	tap_ok(p0 && p0->amount == 7.0 && count("!ProcessResource!") == 1,
	       "exec: one process record over both images");
	perun_profile_free(profile);

	/* An empty trace makes no resources and no error. */
	profile = perun_profile_new("mixed");
	rc = trace_transform(NULL, 0, &in, profile, &stats, &err);
	tap_ok(rc == 0 && perun_profile_resource_count(profile) == 0, "no events, no resources");
	perun_profile_free(profile);
	return tap_done();
}
