/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Degradation checks (perun check): choosing the methods for a profile from
 * degradation.strategies, running the check plugins on baseline/target
 * pairs and on the history of a configuration, collecting their verdicts,
 * and the .changes file of a minor version that keeps them.
 */
#ifndef PERUN_CORE_CHECK_H
#define PERUN_CORE_CHECK_H

#include <stdio.h>

#include "check_evidence.h"
#include "instance.h"
#include "plugin_loader.h"

/* One verdict of a method, with everything the reports and .changes need. */
struct perun_check_change {
	enum perun_change result;
	char *type, *location, *from, *to, *confidence_type;
	double rate, confidence_rate, rate_relative;
	double effect_size, noise; /* NaN when the method has none */
	char *version;		   /* compare_series: where it started, or NULL */
	char *method;		   /* plugin name; NULL when read from .changes */
	char *cmdstr;		   /* "<cmd> <workload>" of the configuration */
	char *source;		   /* minor version recorded with the change */
	size_t pair;		   /* index in the report's pairs, or SIZE_MAX */
	/* Weighed by the core (check_evidence.c): the samples behind the
	 * location on both sides, -1 when unknown, and their unit ("runs",
	 * "calls", ...); a test's p-value or NaN; why the verdict is within
	 * the noise, or NULL when it is not (or was not weighed). */
	long long count_baseline, count_target;
	const char *count_unit;
	int counts_changed;
	double measured_change; /* relative change of the samples, or NaN */
	double p_value;
	char *unreliable;
};

/* One compared pair of profiles (or one series of a configuration). */
struct perun_check_pair {
	char *baseline, *target; /* how the profiles were named */
	char *target_minor;	 /* minor version of the target, or NULL */
	char *cmdstr;
	char *method; /* set for series; NULL for pairs (all methods) */
};

struct perun_check_method;

struct perun_check_report {
	struct perun_check_pair *pairs;
	size_t npairs;
	struct perun_check_change *changes;
	size_t nchanges;
	/* The methods the strategies name, in their order (borrowed from the
	 * check context): the rules of SARIF output. */
	const struct perun_check_method *methods;
	size_t nmethods;
};

void perun_check_report_release(struct perun_check_report *report);
void perun_check_change_release(struct perun_check_change *c);

/* A loaded check method and its parameters: one shared by the rules that
 * name it plainly, and one per rule with options or a subtype. */
struct perun_check_method {
	const struct perun_loaded_plugin *plugin;
	struct perun_params *params;
	const json_t *rule;  /* the rule of its own, or NULL when shared */
	const char *subtype; /* the rule's subtype: the only one it judges */
};

struct perun_check_ctx {
	const struct perun_config *config;
	const char *models_type;	    /* --models-type, for methods declaring it */
	json_t *strategies;		    /* gathered degradation.strategies */
	int apply_first;		    /* degradation.apply: first */
	struct perun_check_method *methods; /* loaded so far, by name */
	size_t nmethods;
	struct perun_check_report report;
	struct perun_noise_policy noise; /* degradation.noise */
	/* The samples of each profile weighed so far, by its address (a
	 * profile freed before the context must be forgotten first): in a
	 * history each is a target and then a baseline, and a history method
	 * weighs a change at a time. */
	const struct perun_profile **sampled;
	struct perun_check_samples **samples;
	size_t nsampled;
};

/*
 * Read and check degradation.strategies and degradation.apply and load
 * every method they name, so a bad configuration fails before anything is
 * compared.  Release with perun_check_release.
 */
int perun_check_init(struct perun_check_ctx *ctx, const struct perun_config *config,
		     const char *models_type, struct perun_error *err);
void perun_check_release(struct perun_check_ctx *ctx);

/* Perun's long name of a check plugin's method (e.g.
 * "average_amount_threshold"), or NULL when its plugin gives none; its
 * title for reports, else the plugin's name (both ABI 1.4). */
const char *perun_check_method_name(const struct perun_loaded_plugin *p);
const char *perun_check_method_title(const struct perun_loaded_plugin *p);

/*
 * The check plugin named method: by its file name first, else the first
 * installed plugin whose descriptor gives method as its long name.
 * Borrowed as from perun_plugin_load; NULL with err filled.
 */
const struct perun_loaded_plugin *perun_check_method_find(const char *method,
							  struct perun_error *err);

/*
 * A rule whose method is this ends the rules for the profiles it applies
 * to: local.yml can keep the shared configuration's rules (gathered after
 * its own) from its profiles, e.g. "- {collector: trace, method: none}".
 */
#define PERUN_CHECK_NO_METHOD "none"

/*
 * The methods applying to profile, as Perun's get_strategies_for: rules in
 * order, a rule applies when its collector, postprocessor and header keys
 * match; with apply=first only the first applicable rule; an applicable
 * rule of method "none" ends the list.  *out (at most ctx->nmethods
 * entries, borrowed from ctx) gets them in order.
 */
int perun_check_methods_for(struct perun_check_ctx *ctx, const struct perun_profile *profile,
			    const struct perun_check_method **out, size_t *n);

/* Perun's config string of a profile: its cmd and workload joined by ' '. */
char *perun_check_cmdstr_dup(const struct perun_profile *profile);
/* Do two profiles share collector, cmd, workload and postprocessors? */
int perun_check_same_config(const struct perun_profile *a, const struct perun_profile *b);

/* Drop what ctx keeps of profile (its samples), before it is freed: a
 * profile allocated later at its address must not find them. */
void perun_check_forget_profile(struct perun_check_ctx *ctx, const struct perun_profile *profile);

/*
 * Compare baseline with target by every method applying to the baseline
 * that has compare; every verdict (NoChange too) goes to ctx->report with
 * source recorded for .changes.  Labels name the profiles in reports.
 * Either profile may be streamed: a map found malformed fails the check
 * with the whole load's message (perun_profile_load_error).
 */
int perun_check_pair(struct perun_check_ctx *ctx, const struct perun_profile *baseline,
		     const struct perun_profile *target, const char *baseline_label,
		     const char *target_label, const char *target_minor, const char *source,
		     struct perun_error *err);

/*
 * Give the series of one configuration (oldest first, one entry per
 * version) to compare_series of every method applying to its newest
 * profile that has it.
 */
int perun_check_series(struct perun_check_ctx *ctx, const struct perun_check_series_entry *series,
		       size_t count, struct perun_error *err);

/* Is the change reported: anything but NoChange that the noise does not
 * explain?  Unreliable verdicts are only shown on request (-v). */
int perun_check_is_change(const struct perun_check_change *c);

/* ---- .changes ---------------------------------------------------------- */

/*
 * Read the .changes of minor sha (missing: none).  Lines Perun could not
 * parse are skipped with one warning, as Perun does.  Appends to *list.
 */
int perun_changes_load(const struct perun_instance *inst, const char *sha,
		       struct perun_check_change **list, size_t *n, struct perun_error *err);
/*
 * Merge the reported changes of list into the .changes of sha: one line per
 * (location, type, cmdstr), the newest winning, sorted, written
 * atomically.  The caller holds the store lock.
 */
int perun_changes_save(const struct perun_instance *inst, const char *sha,
		       const struct perun_check_change *const *list, size_t n,
		       struct perun_error *err);

/*
 * Save the reported changes of r, each to the .changes of its version (the
 * target's version of its pair, or where a series change started), taking
 * the store lock.
 */
int perun_check_save(struct perun_instance *inst, const struct perun_check_report *r,
		     struct perun_error *err);

/* perun status: the summary of the changes of sha and (long form) their
 * list. */
int perun_check_print_status(FILE *out, const struct perun_instance *inst, const char *sha,
			     int short_form, int color, struct perun_error *err);
/* perun status --format json: the changes of sha as a JSON list in *out. */
int perun_check_changes_json(const struct perun_instance *inst, const char *sha, json_t **out,
			     struct perun_error *err);

/* ---- output ----------------------------------------------------------- */

enum perun_check_format {
	PERUN_CHECK_TEXT,
	PERUN_CHECK_JSON,
	PERUN_CHECK_JUNIT,
	PERUN_CHECK_SARIF,
	PERUN_CHECK_MARKDOWN,
};

/* Is c one of the degradations (optimizations), Maybe to Total? */
static inline int perun_change_is_degradation(enum perun_change c)
{
	return c >= PERUN_CHANGE_TOTAL_DEGRADATION && c <= PERUN_CHANGE_MAYBE_DEGRADATION;
}

static inline int perun_change_is_optimization(enum perun_change c)
{
	return c >= PERUN_CHANGE_MAYBE_OPTIMIZATION && c <= PERUN_CHANGE_TOTAL_OPTIMIZATION;
}

/* "Degradation", "Maybe Optimization", ... and the enum name. */
const char *perun_change_string(enum perun_change c);
const char *perun_change_name(enum perun_change c);

/* Perun's list grouped by location (only reported changes), and its
 * summary ("3 changes | ++-" / "2 optimizations(+), 1 degradation(-)"). */
void perun_check_print_list(FILE *out, const struct perun_check_change *const *list, size_t n,
			    int color);
/* The verdicts of list within the noise, with why; with verbose off only
 * a line counting them (nothing when there are none). */
void perun_check_print_unreliable(FILE *out, const struct perun_check_change *const *list, size_t n,
				  int verbose);
void perun_check_print_summary(FILE *out, const struct perun_check_change *const *list, size_t n,
			       int color);
/* "N changes | ++--" without a newline: the short form of check all. */
void perun_check_print_short(FILE *out, const struct perun_check_change *const *list, size_t n,
			     int color);

/* One change as the JSON reports have it (new reference). */
json_t *perun_check_change_json(const struct perun_check_change *c);

/* The whole report in a machine format (JSON, JUnit, SARIF, Markdown). */
int perun_check_write_report(FILE *out, const struct perun_check_report *report,
			     enum perun_check_format format, struct perun_error *err);

#endif
