/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Running the check methods: resolving the methods that
 * degradation.strategies names (by plugin name or the long name a plugin
 * declares), the pairs and series they compare, and the verdicts they emit.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crash.h"
#include "profiles.h"
#include "runner.h"

void perun_check_change_release(struct perun_check_change *c)
{
	free(c->type);
	free(c->location);
	free(c->from);
	free(c->to);
	free(c->confidence_type);
	free(c->version);
	free(c->method);
	free(c->cmdstr);
	free(c->source);
	free(c->unreliable);
}

void perun_check_report_release(struct perun_check_report *report)
{
	for (size_t i = 0; i < report->nchanges; i++)
		perun_check_change_release(&report->changes[i]);
	for (size_t i = 0; i < report->npairs; i++) {
		struct perun_check_pair *p = &report->pairs[i];
		free(p->baseline);
		free(p->target);
		free(p->target_minor);
		free(p->cmdstr);
		free(p->method);
	}
	free(report->changes);
	free(report->pairs);
	memset(report, 0, sizeof(*report));
}

int perun_check_is_change(const struct perun_check_change *c)
{
	return c->result != PERUN_CHANGE_NO_CHANGE && !c->unreliable;
}

const char *perun_check_method_name(const struct perun_loaded_plugin *p)
{
	const struct perun_check_ops *ops = p->desc->ops;
	return PERUN_ABI_HAS(ops, struct perun_check_ops, method) ? ops->method : NULL;
}

const char *perun_check_method_title(const struct perun_loaded_plugin *p)
{
	const struct perun_check_ops *ops = p->desc->ops;
	return PERUN_ABI_HAS(ops, struct perun_check_ops, title) && ops->title ? ops->title
									       : p->name;
}

/* A method is named by its plugin or by Perun's long name. */
static int plugin_is_method(const struct perun_loaded_plugin *p, const char *method)
{
	const char *long_name = perun_check_method_name(p);
	return !strcmp(p->name, method) || (long_name && !strcmp(long_name, method));
}

const struct perun_loaded_plugin *perun_check_method_find(const char *method,
							  struct perun_error *err)
{
	const struct perun_loaded_plugin *p = perun_plugin_load(PERUN_KIND_CHECK, method, err);
	if (p || err->code != PERUN_ENOTFOUND)
		return p;
	const struct perun_loaded_plugin **all;
	size_t n = perun_plugins_load_all(PERUN_KIND_CHECK, &all);
	for (size_t i = 0; i < n && !p; i++)
		if (plugin_is_method(all[i], method))
			p = all[i];
	free(all);
	return p;
}

/*
 * The parameters of a method: --models-type and degradation.<option> of
 * the configuration (e.g. degradation.cutoff) for the options it declares.
 */
static int method_params(const struct perun_check_ctx *ctx, const struct perun_loaded_plugin *p,
			 const json_t *rule_options, struct perun_params **out,
			 struct perun_error *err)
{
	json_t *yaml = json_object();
	const char *given;
	json_t *value;
	/* A rule's options (either spelling, - or _) override the config's. */
	json_object_foreach((json_t *)rule_options, given, value)
	{
		char name[160];
		snprintf(name, sizeof(name), "%s", given);
		for (char *c = name; *c; c++)
			if (*c == '_')
				*c = '-';
		const struct perun_option *o = p->desc->options;
		while (o && o->name && strcmp(o->name, name))
			o++;
		if (!o || !o->name) {
			json_decref(yaml);
			return perun_error_set(err, PERUN_EINVAL,
					       "degradation.strategies: %s has no option '%s'",
					       p->name, given);
		}
		json_object_set(yaml, o->name, value);
	}
	for (const struct perun_option *o = p->desc->options; o && o->name; o++) {
		if (json_object_get(yaml, o->name))
			continue;
		char key[160];
		snprintf(key, sizeof(key), "degradation.%s", o->name);
		for (char *c = key; *c; c++)
			if (*c == '-')
				*c = '_';
		json_t *v = perun_config_lookup(ctx->config, key);
		if (!strcmp(o->name, "models-type") && ctx->models_type)
			json_object_set_new(yaml, o->name, json_string(ctx->models_type));
		else if (v)
			json_object_set(yaml, o->name, v);
	}
	int rc = perun_runner_unit_params(p, 0, NULL, yaml, out, NULL, NULL, err);
	json_decref(yaml);
	return rc;
}

/*
 * Load the method of rule: the shared instance of its plugin, or for a
 * rule with options or a subtype an instance of its own.
 */
static int load_method(struct perun_check_ctx *ctx, const json_t *rule, const char *method,
		       struct perun_error *err)
{
	const json_t *options = json_object_get(rule, "options");
	const json_t *subtype = json_object_get(rule, "subtype");
	int own = options || subtype;
	if (options && !json_is_object(options))
		return perun_error_set(err, PERUN_EINVAL,
				       "degradation.strategies: the options of %s are no mapping",
				       method);
	if (subtype && !json_is_string(subtype))
		return perun_error_set(err, PERUN_EINVAL,
				       "degradation.strategies: the subtype of %s is no name",
				       method);
	for (size_t i = 0; !own && i < ctx->nmethods; i++)
		if (!ctx->methods[i].rule && plugin_is_method(ctx->methods[i].plugin, method))
			return 0;
	struct perun_error lerr = { 0 };
	const struct perun_loaded_plugin *p = perun_check_method_find(method, &lerr);
	if (!p) {
		if (lerr.code == PERUN_ENOTFOUND)
			return perun_error_set(err, PERUN_EINVAL,
					       "degradation.strategies: unknown check method '%s'",
					       method);
		*err = lerr;
		return -lerr.code;
	}
	struct perun_params *params;
	int rc = method_params(ctx, p, options, &params, err);
	if (rc)
		return rc;
	struct perun_check_method *m =
		realloc(ctx->methods, (ctx->nmethods + 1) * sizeof(*ctx->methods));
	if (!m) {
		perun_params_free(params);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	ctx->methods = m;
	ctx->methods[ctx->nmethods].plugin = p;
	ctx->methods[ctx->nmethods].params = params;
	ctx->methods[ctx->nmethods].rule = own ? rule : NULL;
	ctx->methods[ctx->nmethods].subtype = subtype ? json_string_value(subtype) : NULL;
	ctx->nmethods++;
	return 0;
}

int perun_check_init(struct perun_check_ctx *ctx, const struct perun_config *config,
		     const char *models_type, struct perun_error *err)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->config = config;
	ctx->models_type = models_type;
	json_t *apply = perun_config_lookup(config, "degradation.apply");
	if (apply && !(json_is_string(apply) && (!strcmp(json_string_value(apply), "all") ||
						 !strcmp(json_string_value(apply), "first")))) {
		char *text = perun_yaml_format_inline(apply);
		int rc = perun_error_set(err, PERUN_EINVAL,
					 "degradation.apply: '%s' is neither 'first' nor 'all'",
					 text ? text : "?");
		free(text);
		return rc;
	}
	ctx->apply_first = apply && !strcmp(json_string_value(apply), "first");
	if (perun_noise_policy_read(config, &ctx->noise, err))
		return -err->code;
	ctx->strategies = perun_config_gather(config, "degradation.strategies");
	if (!ctx->strategies)
		ctx->strategies = json_array();
	size_t i;
	json_t *rule;
	json_array_foreach(ctx->strategies, i, rule)
	{
		json_t *method = json_object_get(rule, "method");
		int rc = 0;
		if (!json_is_object(rule))
			rc = perun_error_set(err, PERUN_EINVAL,
					     "degradation.strategies: rule %zu is not a mapping",
					     i + 1);
		else if (method && !json_is_string(method))
			rc = perun_error_set(
				err, PERUN_EINVAL,
				"degradation.strategies: rule %zu: method is not a name", i + 1);
		else if (method && strcmp(json_string_value(method), PERUN_CHECK_NO_METHOD))
			rc = load_method(ctx, rule, json_string_value(method), err);
		if (rc) {
			perun_check_release(ctx);
			return rc;
		}
	}
	ctx->report.methods = ctx->methods;
	ctx->report.nmethods = ctx->nmethods;
	return 0;
}

void perun_check_release(struct perun_check_ctx *ctx)
{
	for (size_t i = 0; i < ctx->nmethods; i++)
		perun_params_free(ctx->methods[i].params);
	free(ctx->methods);
	json_decref(ctx->strategies);
	perun_check_report_release(&ctx->report);
	for (size_t i = 0; i < ctx->nsampled; i++)
		perun_check_samples_free(ctx->samples[i]);
	free(ctx->sampled);
	free(ctx->samples);
	memset(ctx, 0, sizeof(*ctx));
}

static int rule_applies(const json_t *rule, const struct perun_profile *profile)
{
	const json_t *header = perun_profile_get(profile, "header");
	const json_t *collector = perun_profile_get(profile, "collector_info");
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)rule, key, value)
	{
		/* what the method does, not which profiles it applies to */
		if (!strcmp(key, "method") || !strcmp(key, "options") || !strcmp(key, "subtype"))
			continue;
		if (!strcmp(key, "postprocessor")) {
			size_t i;
			json_t *post;
			int found = 0;
			json_array_foreach(perun_profile_get(profile, "postprocessors"), i,
					   post) if (json_equal(json_object_get(post, "name"),
								value)) found = 1;
			if (!found)
				return 0;
		} else if (!strcmp(key, "collector")) {
			if (!json_equal(json_object_get(collector, "name"), value))
				return 0;
		} else if (!strcmp(key, "interleaved")) {
			/* collected by perun run --rounds (header interleaved_run) */
			const char *run =
				json_string_value(json_object_get(header, "interleaved_run"));
			if ((run && *run) != json_is_true(value))
				return 0;
		} else if (!json_equal(json_object_get(header, key), value)) {
			return 0;
		}
	}
	return 1;
}

static const struct perun_check_method *find_method(const struct perun_check_ctx *ctx,
						    const json_t *rule, const char *method)
{
	for (size_t i = 0; i < ctx->nmethods; i++)
		if (ctx->methods[i].rule == rule)
			return &ctx->methods[i];
	for (size_t i = 0; i < ctx->nmethods; i++)
		if (!ctx->methods[i].rule && plugin_is_method(ctx->methods[i].plugin, method))
			return &ctx->methods[i];
	return NULL;
}

int perun_check_methods_for(struct perun_check_ctx *ctx, const struct perun_profile *profile,
			    const struct perun_check_method **out, size_t *n)
{
	size_t i;
	json_t *rule;
	*n = 0;
	json_array_foreach(ctx->strategies, i, rule)
	{
		if (ctx->apply_first && *n)
			break;
		const char *method = json_string_value(json_object_get(rule, "method"));
		if (!method || !rule_applies(rule, profile))
			continue;
		if (!strcmp(method, PERUN_CHECK_NO_METHOD))
			break;
		const struct perun_check_method *m = find_method(ctx, rule, method);
		int seen = 0;
		for (size_t k = 0; k < *n; k++)
			seen |= out[k] == m;
		if (m && !seen)
			out[(*n)++] = m;
	}
	return 0;
}

char *perun_check_cmdstr_dup(const struct perun_profile *profile)
{
	const char *cmd = perun_profile_header(profile, "cmd");
	const char *workload = perun_profile_header(profile, "workload");
	size_t len = strlen(cmd) + strlen(workload) + 2;
	char *s = malloc(len);
	if (s)
		snprintf(s, len, "%s%s%s", cmd, *cmd && *workload ? " " : "", workload);
	return s;
}

int perun_check_same_config(const struct perun_profile *a, const struct perun_profile *b)
{
	char *pa = perun_profile_postprocessors_dup(a), *pb = perun_profile_postprocessors_dup(b);
	int same =
		pa && pb && !strcmp(pa, pb) &&
		!strcmp(perun_profile_collector(a), perun_profile_collector(b)) &&
		!strcmp(perun_profile_header(a, "cmd"), perun_profile_header(b, "cmd")) &&
		!strcmp(perun_profile_header(a, "workload"), perun_profile_header(b, "workload"));
	free(pa);
	free(pb);
	return same;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct emit_state {
	struct perun_check_ctx *ctx;
	const char *method, *cmdstr, *source;
	size_t pair;
	int failed;
	/* the instance, and the others applying with it: a subtype claimed
	 * by an instance of the same plugin is judged by that one only */
	const struct perun_check_method *instance, *const *applying;
	size_t napplying;
};

/* Does a verdict speak of subtype: its type, or its series' suffix? */
static int of_subtype(const struct perun_degradation *d, const char *subtype)
{
	size_t ll = d->location ? strlen(d->location) : 0, sl = strlen(subtype);
	return (d->type && !strcmp(d->type, subtype)) ||
	       (ll > sl && d->location[ll - sl - 1] == ':' &&
		!strcmp(d->location + ll - sl, subtype));
}

static int judged_here(const struct emit_state *st, const struct perun_degradation *d)
{
	if (st->instance->subtype)
		return of_subtype(d, st->instance->subtype);
	for (size_t i = 0; i < st->napplying; i++) {
		const struct perun_check_method *m = st->applying[i];
		if (m != st->instance && m->plugin == st->instance->plugin && m->subtype &&
		    of_subtype(d, m->subtype))
			return 0;
	}
	return 1;
}

/* The state of method i of the n applying, emitting into the report's
 * newest pair. */
static struct emit_state emitting(struct perun_check_ctx *ctx,
				  const struct perun_check_method *const *methods, size_t n,
				  size_t i, const char *cmdstr, const char *source)
{
	struct emit_state st = { .ctx = ctx,
				 .method = methods[i]->plugin->name,
				 .cmdstr = cmdstr,
				 .source = source,
				 .pair = ctx->report.npairs - 1,
				 .instance = methods[i],
				 .applying = methods,
				 .napplying = n };
	return st;
}

static int emit_change(const struct perun_degradation *d, void *data)
{
	struct emit_state *st = data;
	struct perun_check_report *r = &st->ctx->report;
	if (!judged_here(st, d))
		return 0;
	struct perun_check_change *list = realloc(r->changes, (r->nchanges + 1) * sizeof(*list));
	if (!list) {
		st->failed = 1;
		return 1;
	}
	r->changes = list;
	struct perun_check_change *c = &list[r->nchanges++];
	memset(c, 0, sizeof(*c));
	c->result = d->result;
	c->type = strdup(d->type ? d->type : "-");
	c->location = strdup(d->location ? d->location : "");
	c->from = strdup(d->from_baseline ? d->from_baseline : "");
	c->to = strdup(d->to_target ? d->to_target : "");
	c->confidence_type = strdup(d->confidence_type ? d->confidence_type : "no");
	c->rate = d->rate_degradation;
	c->confidence_rate = d->confidence_rate;
	c->rate_relative = d->rate_degradation_relative;
	c->effect_size = c->noise = NAN;
	/* Fields of ABI 1.1: read only from plugins whose struct has them. */
	if (PERUN_ABI_HAS(d, struct perun_degradation, version)) {
		c->effect_size = d->effect_size;
		c->noise = d->noise;
		c->version = dup_or_null(d->version);
	}
	c->method = strdup(st->method);
	c->cmdstr = strdup(st->cmdstr);
	c->source = dup_or_null(st->source);
	c->pair = st->pair;
	c->count_baseline = c->count_target = -1;
	c->p_value = c->measured_change = NAN;
	if (!c->type || !c->location || !c->from || !c->to || !c->confidence_type || !c->method ||
	    !c->cmdstr) {
		st->failed = 1;
		return 1;
	}
	return 0;
}

static int add_pair(struct perun_check_report *r, const char *baseline, const char *target,
		    const char *target_minor, const char *cmdstr, const char *method,
		    struct perun_error *err)
{
	struct perun_check_pair *p = realloc(r->pairs, (r->npairs + 1) * sizeof(*p));
	if (!p)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	r->pairs = p;
	p = &p[r->npairs++];
	p->baseline = dup_or_null(baseline);
	p->target = dup_or_null(target);
	p->target_minor = dup_or_null(target_minor);
	p->cmdstr = dup_or_null(cmdstr);
	p->method = dup_or_null(method);
	return 0;
}

/* Run one method's phase; turn a failure into "check method 'x': ...". */
static int finish_call(const struct perun_check_method *m, int rc, const struct emit_state *st,
		       struct perun_error *err)
{
	if (st->failed)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (rc) {
		if (!err->code)
			err->code = -rc;
		perun_error_prefix(err, "check method '%s'", m->plugin->name);
		return -err->code;
	}
	return 0;
}

void perun_check_forget_profile(struct perun_check_ctx *ctx, const struct perun_profile *profile)
{
	for (size_t i = 0; i < ctx->nsampled; i++)
		if (ctx->sampled[i] == profile) {
			perun_check_samples_free(ctx->samples[i]);
			ctx->sampled[i] = ctx->sampled[--ctx->nsampled];
			ctx->samples[i] = ctx->samples[ctx->nsampled];
			return;
		}
}

static const struct perun_check_samples *sampled(const struct perun_check_ctx *ctx,
						 const struct perun_profile *profile)
{
	for (size_t i = 0; i < ctx->nsampled; i++)
		if (ctx->sampled[i] == profile)
			return ctx->samples[i];
	return NULL;
}

/* s kept as profile's samples while it lives: 0, or -1 (s freed). */
static int keep_samples(struct perun_check_ctx *ctx, const struct perun_profile *profile,
			struct perun_check_samples *s, struct perun_error *err)
{
	const struct perun_profile **keys =
		realloc(ctx->sampled, (ctx->nsampled + 1) * sizeof(*keys));
	if (keys)
		ctx->sampled = keys;
	struct perun_check_samples **vals =
		keys ? realloc(ctx->samples, (ctx->nsampled + 1) * sizeof(*vals)) : NULL;
	if (!vals) {
		perun_check_samples_free(s);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	ctx->samples = vals;
	ctx->sampled[ctx->nsampled] = profile;
	ctx->samples[ctx->nsampled++] = s;
	return 0;
}

/* The samples of profile, loaded once while it lives. */
static int samples_of(struct perun_check_ctx *ctx, const struct perun_profile *profile,
		      const struct perun_check_samples **out, struct perun_error *err)
{
	if ((*out = sampled(ctx, profile)))
		return 0;
	struct perun_check_samples *s;
	int rc = perun_check_samples_load(profile, &s, err);
	if (!rc && !(rc = keep_samples(ctx, profile, s, err)))
		*out = s;
	return rc;
}

/*
 * Weigh the changes from first on (all of one pair, or the one change at
 * first of a history when !whole_pair) against the samples of baseline
 * and target.
 */
static int weigh_changes(struct perun_check_ctx *ctx, size_t first,
			 const struct perun_profile *baseline, const struct perun_profile *target,
			 int whole_pair, struct perun_error *err)
{
	const struct perun_check_samples *a = NULL, *b = NULL;
	size_t to = whole_pair ? ctx->report.nchanges : first + 1;
	if (first >= to)
		return 0;
	int rc = samples_of(ctx, baseline, &a, err);
	if (!rc)
		rc = samples_of(ctx, target, &b, err);
	for (size_t k = first; k < to && !rc; k++)
		if (perun_check_weigh(&ctx->report.changes[k], a, b, &ctx->noise, whole_pair))
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	return rc;
}

int perun_check_pair(struct perun_check_ctx *ctx, const struct perun_profile *baseline,
		     const struct perun_profile *target, const char *baseline_label,
		     const char *target_label, const char *target_minor, const char *source,
		     struct perun_error *err)
{
	const struct perun_check_method *methods[ctx->nmethods + 1];
	size_t n;
	perun_check_methods_for(ctx, baseline, methods, &n);
	char *cmdstr = perun_check_cmdstr_dup(baseline);
	if (!cmdstr)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = add_pair(&ctx->report, baseline_label, target_label, target_minor, cmdstr, NULL,
			  err);
	size_t first = ctx->report.nchanges;
	/* The evidence's samples are read in the methods' walk of each
	 * profile when they walk it (aat does): a streamed profile's map is
	 * then read, or inflated, once instead of twice.  The tests compare
	 * the verdicts with walks of its own (PERUN_TEST_UNSHARED_WALKS, in
	 * the manner of git's GIT_TEST_*). */
	const struct perun_profile *pair[2] = { baseline, target };
	struct perun_check_samples *shared[2] = { NULL, NULL };
	int share = !getenv("PERUN_TEST_UNSHARED_WALKS");
	for (int k = 0; k < 2 && !rc && share; k++)
		if ((!k || target != baseline) && !sampled(ctx, pair[k]))
			shared[k] = perun_check_samples_share(pair[k]);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct perun_check_ops *ops = methods[i]->plugin->desc->ops;
		if (!ops->compare)
			continue;
		struct emit_state st = emitting(ctx, methods, n, i, cmdstr, source);
		perun_error_clear(err);
		perun_crash_enter("check", methods[i]->plugin->name, "compare");
		rc = ops->compare(baseline, target, methods[i]->params, emit_change, &st, err);
		perun_crash_leave();
		rc = finish_call(methods[i], rc, &st, err);
	}
	for (int k = 0; k < 2; k++)
		if (shared[k] && perun_check_samples_shared(pair[k], &shared[k]) && !rc)
			rc = keep_samples(ctx, pair[k], shared[k], err);
		else
			perun_check_samples_free(shared[k]);
	free(cmdstr);
	if (!rc)
		rc = weigh_changes(ctx, first, baseline, target, 1, err);
	/* A streamed profile's malformed map fails as its load would. */
	if (rc && !perun_profile_load_error(baseline, err))
		perun_profile_load_error(target, err);
	return rc;
}

int perun_check_series(struct perun_check_ctx *ctx, const struct perun_check_series_entry *series,
		       size_t count, struct perun_error *err)
{
	if (!count)
		return 0;
	const struct perun_profile *newest = series[count - 1].profile;
	const struct perun_check_method *methods[ctx->nmethods + 1];
	size_t n;
	perun_check_methods_for(ctx, newest, methods, &n);
	char *cmdstr = perun_check_cmdstr_dup(newest);
	if (!cmdstr)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct perun_check_ops *ops = methods[i]->plugin->desc->ops;
		if (!PERUN_ABI_HAS(ops, struct perun_check_ops, compare_series) ||
		    !ops->compare_series)
			continue;
		rc = add_pair(&ctx->report, series[0].version, series[count - 1].version,
			      series[count - 1].version, cmdstr, methods[i]->plugin->name, err);
		if (rc)
			break;
		struct emit_state st = emitting(ctx, methods, n, i, cmdstr, NULL);
		perun_error_clear(err);
		size_t first = ctx->report.nchanges;
		perun_crash_enter("check", methods[i]->plugin->name, "compare_series");
		rc = ops->compare_series(series, count, methods[i]->params, emit_change, &st, err);
		perun_crash_leave();
		rc = finish_call(methods[i], rc, &st, err);
		/* A change belongs to the version it started at (the newest when
		 * the method does not say); its source is the version before. */
		for (size_t k = first; k < ctx->report.nchanges && !rc; k++) {
			struct perun_check_change *c = &ctx->report.changes[k];
			size_t at = count - 1;
			for (size_t e = 0; c->version && e < count; e++)
				if (!strcmp(series[e].version, c->version))
					at = e;
			free(c->source);
			c->source = strdup(series[at ? at - 1 : 0].version);
			if (!c->version)
				c->version = strdup(series[at].version);
			if (!c->source || !c->version)
				rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			else if (ctx->noise.enabled && c->result != PERUN_CHANGE_NO_CHANGE)
				rc = weigh_changes(ctx, k, series[at ? at - 1 : 0].profile,
						   series[at].profile, 0, err);
		}
	}
	free(cmdstr);
	for (size_t e = 0; rc && e < count; e++)
		if (perun_profile_load_error(series[e].profile, err))
			break;
	return rc;
}
