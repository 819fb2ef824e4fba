/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * pprof - call stacks as a gzip-compressed pprof profile (profile.proto),
 * for `go tool pprof`, Pyroscope, Speedscope, Perfetto and IDEs.
 *
 *   perun show <profile> pprof [-o profile.pb.gz] [--max-trace n]
 *
 * Each call path with a weight of its own is a sample (locations leaf
 * first), each frame one function with one location.  Perun frames
 * "function()~source~line" become the function's name, file and line.
 * Values must be integers: times are written in nanoseconds ("wall"),
 * memory in bytes ("space"), kperf samples as a count ("samples"); other
 * units are rounded to integers and say so in a comment.  Encoding is
 * protobuf-c's, from profile.proto compiled by protoc-c at build time;
 * compression is zlib's gzip.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <perun/perun.h>

#include "output.h"
#include "profile.pb-c.h"
#include "stacks.h"

static const struct perun_option pprof_options[] = {
	{ "output-file", "o", PERUN_OPTION_STRING, "profile.pb.gz", NULL, "<path>",
	  "where to write (- is standard output, unless it is a terminal)", 0 },
	VIEWLIB_STACKS_MAX_TRACE_OPTION,
	VIEWLIB_STACKS_OF_OPTION,
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

/* What the samples measure and how a weight becomes an integer value. */
struct value_kind {
	const char *type, *unit;
	double factor;
	int exact; /* the conversion keeps every weight */
};

static void value_kind_of(const struct viewlib_stacks *s, const char *profile_type,
			  struct value_kind *k)
{
	static const struct {
		const char *unit;
		double ns;
	} times[] = {
		{ "ns", 1 },   { "us", 1e3 }, { "\xc2\xb5s", 1e3 },
		{ "ms", 1e6 }, { "s", 1e9 },  { "seconds", 1e9 },
	};
	*k = (struct value_kind){ profile_type, s->unit, 1, 1 };
	if (!strcmp(s->unit, "B") || !strcmp(s->unit, "bytes"))
		*k = (struct value_kind){ "space", "bytes", 1, 1 };
	else if (!strcmp(s->unit, "sample") || !strcmp(s->unit, "samples"))
		*k = (struct value_kind){ "samples", "count", 1, 1 };
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (!strcmp(s->unit, times[i].unit))
			*k = (struct value_kind){ "wall", "nanoseconds", times[i].ns, 1 };
	for (uint32_t i = 0; i < s->nnodes; i++) {
		double v = s->nodes[i].self * k->factor;
		if (v != floor(v))
			k->exact = 0;
	}
}

struct sample_job {
	Perftools__Profiles__Sample *samples, **sample_ptrs;
	uint64_t *ids; /* location ids of every sample, leaf first */
	int64_t *values;
	size_t n, nids;
	double factor;
};

static int add_sample(const struct viewlib_stacks *s, uint32_t node, const uint32_t *path,
		      uint32_t depth, double offset, void *data)
{
	struct sample_job *j = data;
	(void)offset;
	if (!depth || s->nodes[node].self == 0)
		return 0;
	Perftools__Profiles__Sample *sample = &j->samples[j->n];
	perftools__profiles__sample__init(sample);
	sample->n_location_id = depth;
	sample->location_id = j->ids + j->nids;
	for (uint32_t i = 0; i < depth; i++)
		j->ids[j->nids++] = (uint64_t)s->nodes[path[depth - 1 - i]].frame + 1;
	j->values[j->n] = llround(s->nodes[node].self * j->factor);
	sample->n_value = 1;
	sample->value = &j->values[j->n];
	j->sample_ptrs[j->n] = sample;
	j->n++;
	return 0;
}

/* The string table is a second name table: index 0 must be "". */
static int64_t str_index(struct viewlib_stacks *strings, const char *s, size_t len)
{
	uint32_t id = viewlib_stacks_intern(strings, s, len);
	return id == VIEWLIB_STACKS_NONE ? -1 : (int64_t)id;
}

/* "function()~source~line" into its parts; others are a name only. */
static int set_function(struct viewlib_stacks *strings, const char *frame,
			Perftools__Profiles__Function *fn, int64_t *line)
{
	const char *paren = strstr(frame, "()~");
	const char *tilde = strrchr(frame, '~');
	char *end = NULL;
	*line = 0;
	if (paren && tilde > paren + 2) {
		long long l = strtoll(tilde + 1, &end, 10);
		if (end != tilde + 1 && !*end) {
			*line = l;
			fn->name = str_index(strings, frame, (size_t)(paren - frame));
			fn->filename = str_index(strings, paren + 3, (size_t)(tilde - paren - 3));
			fn->system_name = fn->name;
			return fn->name < 0 || fn->filename < 0 ? -1 : 0;
		}
	}
	fn->name = fn->system_name = str_index(strings, frame, strlen(frame));
	return fn->name < 0 ? -1 : 0;
}

static int gzip_buffer(const uint8_t *in, size_t len, unsigned char **out, size_t *out_len)
{
	z_stream z = { 0 };
	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	size_t cap = deflateBound(&z, (uLong)len);
	*out = malloc(cap);
	if (!*out) {
		deflateEnd(&z);
		return -1;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = *out;
	z.avail_out = (uInt)cap;
	int rc = deflate(&z, Z_FINISH);
	*out_len = z.total_out;
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -1;
}

static int pprof_show(struct perun_view_ctx *ctx, struct perun_error *err)
{
	struct viewlib_stacks s, strings;
	struct sample_job j = { 0 };
	struct value_kind kind;
	Perftools__Profiles__Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType vt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT, *vtp = &vt;
	Perftools__Profiles__Function *fns = NULL, **fn_ptrs = NULL;
	Perftools__Profiles__Location *locs = NULL, **loc_ptrs = NULL;
	Perftools__Profiles__Line *lines = NULL, **line_ptrs = NULL;
	uint8_t *packed = NULL;
	unsigned char *gz = NULL;
	char **table = NULL;
	int64_t comment = 0;
	size_t gz_len = 0;
	const char *path = perun_params_string(ctx->params, "output-file", "profile.pb.gz");
	int rc;
	viewlib_stacks_init(&strings, 0);
	if ((rc = viewlib_stacks_from_view(&s, ctx->profile, ctx->params, err)))
		goto out;
	if (ctx->argc > 0) {
		rc = perun_error_set(err, PERUN_EINVAL, "unexpected argument '%s'", ctx->argv[0]);
		goto out;
	}
	if (!strcmp(path, "-") && isatty(fileno(ctx->out ? (FILE *)ctx->out : stdout))) {
		rc = perun_error_set(
			err, PERUN_EINVAL,
			"not writing a gzip-compressed profile to a terminal; use -o <file>");
		goto out;
	}
	value_kind_of(&s, perun_profile_type(ctx->profile), &kind);
	uint32_t n = s.nnames;
	fns = calloc(n + 1, sizeof(*fns));
	fn_ptrs = calloc(n + 1, sizeof(*fn_ptrs));
	locs = calloc(n + 1, sizeof(*locs));
	loc_ptrs = calloc(n + 1, sizeof(*loc_ptrs));
	lines = calloc(n + 1, sizeof(*lines));
	line_ptrs = calloc(n + 1, sizeof(*line_ptrs));
	j.samples = calloc(s.nnodes, sizeof(*j.samples));
	j.sample_ptrs = calloc(s.nnodes, sizeof(*j.sample_ptrs));
	j.values = calloc(s.nnodes, sizeof(*j.values));
	size_t nids = 0;
	for (uint32_t i = 1; i < s.nnodes; i++)
		if (s.nodes[i].self != 0)
			nids += s.nodes[i].depth;
	j.ids = malloc((nids + 1) * sizeof(*j.ids));
	j.factor = kind.factor;
	if (!fns || !fn_ptrs || !locs || !loc_ptrs || !lines || !line_ptrs || !j.samples ||
	    !j.sample_ptrs || !j.values || !j.ids || str_index(&strings, "", 0) != 0)
		goto oom;
	for (uint32_t i = 0; i < n; i++) {
		int64_t line;
		perftools__profiles__function__init(&fns[i]);
		fns[i].id = i + 1;
		if (set_function(&strings, s.names[i], &fns[i], &line))
			goto oom;
		fn_ptrs[i] = &fns[i];
		perftools__profiles__line__init(&lines[i]);
		lines[i].function_id = i + 1;
		lines[i].line = line;
		line_ptrs[i] = &lines[i];
		perftools__profiles__location__init(&locs[i]);
		locs[i].id = i + 1;
		locs[i].n_line = 1;
		locs[i].line = &line_ptrs[i];
		loc_ptrs[i] = &locs[i];
	}
	if (viewlib_stacks_walk(&s, add_sample, &j))
		goto oom;
	vt.type = str_index(&strings, kind.type, strlen(kind.type));
	vt.unit = str_index(&strings, kind.unit, strlen(kind.unit));
	char note[512];
	snprintf(note, sizeof(note), "perun %s profile of %s %s%s",
		 perun_profile_type(ctx->profile), perun_profile_header(ctx->profile, "cmd"),
		 perun_profile_header(ctx->profile, "workload"),
		 kind.exact ? "" : " (values rounded to integers)");
	comment = str_index(&strings, note, strlen(note));
	if (vt.type < 0 || vt.unit < 0 || comment < 0 ||
	    !(table = malloc(strings.nnames * sizeof(*table))))
		goto oom;
	for (uint32_t i = 0; i < strings.nnames; i++)
		table[i] = strings.names[i];
	prof.n_sample_type = 1;
	prof.sample_type = &vtp;
	prof.period_type = &vt;
	prof.period = 1;
	prof.n_sample = j.n;
	prof.sample = j.sample_ptrs;
	prof.n_location = n;
	prof.location = loc_ptrs;
	prof.n_function = n;
	prof.function = fn_ptrs;
	prof.n_string_table = strings.nnames;
	prof.string_table = table;
	prof.n_comment = 1;
	prof.comment = &comment;
	size_t len = perftools__profiles__profile__get_packed_size(&prof);
	if (!(packed = malloc(len ? len : 1)))
		goto oom;
	perftools__profiles__profile__pack(&prof, packed);
	if (gzip_buffer(packed, len, &gz, &gz_len))
		goto oom;
	rc = viewlib_write(path, ctx->out, gz, gz_len, err);
	goto out;
oom:
	rc = perun_error_set(err, PERUN_EGENERIC, "out of memory encoding the pprof profile");
out:
	free(fns);
	free(fn_ptrs);
	free(locs);
	free(loc_ptrs);
	free(lines);
	free(line_ptrs);
	free(j.samples);
	free(j.sample_ptrs);
	free(j.values);
	free(j.ids);
	free(table);
	free(packed);
	free(gz);
	viewlib_stacks_release(&s);
	viewlib_stacks_release(&strings);
	return rc;
}

static const struct perun_view_ops pprof_ops = {
	.size = sizeof(struct perun_view_ops),
	.show = pprof_show,
	/* Its stacks are read with one walk of the types. */
	.flags = PERUN_VIEW_WALKS_TYPES,
};

PERUN_PLUGIN_DEFINE(
	pprof, PERUN_KIND_VIEW, .version = "1.0",
	.summary = "export call stacks as a gzip-compressed pprof profile (profile.proto)",
	.options = pprof_options, .ops = &pprof_ops);
