/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench-trace-transform N: turn N raw trace events (a call tree of eight
 * functions over four threads, as the engines write them) into a profile
 * and then into its stored JSON; prints the seconds of each step.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../plugins/collect/trace/trace.h"

void trace_log(const struct trace_config *cfg, const char *fmt, ...)
{
	(void)cfg;
	(void)fmt;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	struct trace_probe v[8];
	char names[8][16];
	for (int i = 0; i < 8; i++) {
		snprintf(names[i], sizeof(names[i]), "func%d", i);
		v[i] = (struct trace_probe){ .kind = TRACE_PROBE_FUNC,
					     .name = names[i],
					     .uid = names[i],
					     .location = "prog",
					     .sample = 1,
					     .pair = -1 };
	}
	struct trace_probes probes = { .v = v, .n = 8 };
	struct perun_trace_event *ev = calloc(n, sizeof(*ev));
	if (!ev)
		return 1;
	/* Per thread: func0 calls func1..func7 in turn, each a leaf. */
	unsigned long long ts = 1000;
	size_t i = 0;
	while (i + 16 <= n) {
		unsigned tid = 100 + (unsigned)(i / 16 % 4);
		ev[i++] = (struct perun_trace_event){ ts++, tid, 100, 0, PERUN_TRACE_FUNC_BEGIN };
		for (unsigned f = 1; f < 8; f++) {
			ev[i++] = (struct perun_trace_event){ ts, tid, 100, f,
							      PERUN_TRACE_FUNC_BEGIN };
			ts += 50 + f;
			ev[i++] = (struct perun_trace_event){ ts++, tid, 100, f,
							      PERUN_TRACE_FUNC_END };
		}
		ev[i++] = (struct perun_trace_event){ ts++, tid, 100, 0, PERUN_TRACE_FUNC_END };
	}
	struct trace_transform_input in = {
		.probes = &probes, .workload = "", .location = "prog", .start_ns = 0
	};
	struct perun_profile *profile = perun_profile_new("mixed");
	struct trace_transform_stats stats;
	struct perun_error err = { 0 };
	double t0 = now();
	if (trace_transform(ev, i, &in, profile, &stats, &err)) {
		fprintf(stderr, "bench-trace-transform: %s\n", err.message);
		return 1;
	}
	double t1 = now();
	size_t len = 0;
	char *json = perun_profile_dump(profile, PERUN_DUMP_COMPACT, 1, &len);
	double t2 = now();
	printf("events %zu resources %zu transform %.3f s dump %.3f s (%zu MB of JSON)\n",
	       stats.events, stats.resources, t1 - t0, t2 - t1, len >> 20);
	free(json);
	perun_profile_free(profile);
	free(ev);
	return 0;
}
