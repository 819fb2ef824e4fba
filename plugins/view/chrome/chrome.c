/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * chrome - call stacks as Chrome Trace Event JSON, for Perfetto
 * (ui.perfetto.dev), chrome://tracing and speedscope.
 *
 *   perun show <profile> chrome [-o trace.json]
 *
 * Every call is a complete event ("ph": "X") with its start "ts" and
 * duration "dur" in microseconds, on its thread, so the viewers nest them
 * by time.  Trace profiles give the real timeline: each recorded call at
 * its timestamp (the profile's time unit converted to microseconds).
 * Profiles without times (kperf samples, memory allocations) give the
 * call tree as a flame chart: the children of a frame laid end to end in
 * name order, one unit of weight drawn as one microsecond; otherData
 * says which of the two the file holds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>
#include <perun/strbuf.h>

#include "output.h"
#include "stacks.h"

static const struct perun_option chrome_options[] = {
	{ "output-file", "o", PERUN_OPTION_STRING, "-", NULL, "<path>",
	  "where to write (- is standard output)", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

struct chrome_job {
	struct perun_strbuf *sb;
	char **names; /* JSON text of each frame name, made once */
	double scale; /* profile time unit -> microseconds */
	int first;
};

/* Microseconds per unit of the profile's time, 0 when it is not a time. */
static double to_us(const char *unit)
{
	static const struct {
		const char *unit;
		double us;
	} units[] = {
		{ "ns", 1e-3 }, { "us", 1 },  { "\xc2\xb5s", 1 }, { "microseconds", 1 },
		{ "ms", 1e3 },	{ "s", 1e6 }, { "seconds", 1e6 },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].unit))
			return units[i].us;
	return 0;
}

static void add_number(struct perun_strbuf *sb, double v)
{
	char text[32];
	viewlib_stacks_format_weight(v, text);
	perun_strbuf_addstr(sb, text);
}

static void add_event(struct chrome_job *j, const struct viewlib_stacks *s, uint32_t node,
		      int64_t tid, double ts, double dur)
{
	perun_strbuf_addstr(j->sb, j->first ? "\n" : ",\n");
	j->first = 0;
	perun_strbuf_addf(j->sb, "{\"name\":%s,\"cat\":\"perun\",\"ph\":\"X\",\"ts\":",
			  j->names[s->nodes[node].frame]);
	add_number(j->sb, ts);
	perun_strbuf_addstr(j->sb, ",\"dur\":");
	add_number(j->sb, dur);
	perun_strbuf_addf(j->sb, ",\"pid\":1,\"tid\":%lld}", (long long)tid);
}

static int chart_event(const struct viewlib_stacks *s, uint32_t node, const uint32_t *path,
		       uint32_t depth, double offset, void *data)
{
	(void)path;
	if (depth && s->nodes[node].total > 0)
		add_event(data, s, node, 0, offset, s->nodes[node].total);
	return 0;
}

static char *json_text_dup(const char *s)
{
	json_t *v = json_string(s);
	char *text = v ? json_dumps(v, JSON_ENCODE_ANY) : NULL;
	json_decref(v);
	return text;
}

static int chrome_show(struct perun_view_ctx *ctx, struct perun_error *err)
{
	struct viewlib_stacks s;
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	struct chrome_job j = { &sb, NULL, 1, 1 };
	char *text = NULL, *cmd = NULL, *unit = NULL;
	size_t len;
	int rc;
	viewlib_stacks_init(&s, 0);
	if (ctx->argc > 0)
		return perun_error_set(err, PERUN_EINVAL, "unexpected argument '%s'", ctx->argv[0]);
	if ((rc = viewlib_stacks_from_profile(&s, ctx->profile, err)))
		goto out;
	if (s.timed && !(j.scale = to_us(s.unit))) {
		rc = perun_error_set(err, PERUN_EINVAL,
				     "the profile's unit '%s' is not a time unit (ns, us, ms, s)",
				     s.unit);
		goto out;
	}
	if (!(j.names = calloc(s.nnames + 1, sizeof(*j.names))))
		goto oom;
	for (uint32_t i = 0; i < s.nnames; i++)
		if (!(j.names[i] = json_text_dup(s.names[i])))
			goto oom;
	if (!(cmd = json_text_dup(perun_profile_header(ctx->profile, "cmd"))) ||
	    !(unit = json_text_dup(s.unit)))
		goto oom;
	perun_strbuf_addstr(&sb, "{\"traceEvents\":[");
	perun_strbuf_addf(&sb,
			  "\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
			  "\"args\":{\"name\":%s}}",
			  cmd);
	j.first = 0;
	if (s.timed) {
		int64_t last_tid = 0;
		for (size_t i = 0; i < s.nevents; i++) {
			const struct viewlib_stack_event *e = &s.events[i];
			if (i == 0 || e->tid != last_tid)
				perun_strbuf_addf(&sb,
						  ",\n{\"name\":\"thread_name\",\"ph\":\"M\","
						  "\"pid\":1,\"tid\":%lld,\"args\":{\"name\":"
						  "\"thread %lld\"}}",
						  (long long)e->tid, (long long)e->tid);
			last_tid = e->tid;
			add_event(&j, &s, e->node, e->tid, e->start * j.scale, e->dur * j.scale);
		}
	} else if (viewlib_stacks_walk(&s, chart_event, &j)) {
		goto oom;
	}
	perun_strbuf_addf(&sb,
			  "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":"
			  "\"perun\",\"command\":%s,\"unit\":%s,\"timeline\":\"%s\"}}\n",
			  cmd, unit,
			  s.timed ? "recorded calls"
				  : "flame chart: stacks laid end to end, 1 us per unit of weight");
	if (!(text = perun_strbuf_detach(&sb, &len)))
		goto oom;
	rc = viewlib_write(perun_params_string(ctx->params, "output-file", "-"), ctx->out, text,
			   len, err);
	goto out;
oom:
	rc = perun_error_set(err, PERUN_EGENERIC, "out of memory writing the trace events");
out:
	for (uint32_t i = 0; j.names && i < s.nnames; i++)
		free(j.names[i]);
	free(j.names);
	free(cmd);
	free(unit);
	perun_strbuf_release(&sb);
	viewlib_stacks_release(&s);
	free(text);
	return rc;
}

static const struct perun_view_ops chrome_ops = {
	.size = sizeof(struct perun_view_ops),
	.show = chrome_show,
	/* Its stacks are read with one walk of the types. */
	.flags = PERUN_VIEW_WALKS_TYPES,
};

PERUN_PLUGIN_DEFINE(
	chrome, PERUN_KIND_VIEW, .version = "1.0",
	.summary = "export call stacks as Chrome Trace Event JSON (Perfetto, chrome://tracing)",
	.options = chrome_options, .ops = &chrome_ops);
