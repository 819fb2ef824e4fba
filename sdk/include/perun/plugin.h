/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun/plugin.h - the plugin ABI of Perun in C.
 *
 * A plugin is one shared object <name>.so exporting exactly one symbol,
 * perun_plugin_<name>_describe, which returns a descriptor.  The core checks
 * the descriptor (magic, ABI major and minor, size, kind, name, required
 * operations) before it calls anything else in the plugin.
 *
 * This header is self-contained: it includes standard headers only, has no
 * configure-time conditionals and needs no define before inclusion.
 *
 * ABI change log (the ABI version is independent of the perun release):
 *   1.0  2026-11  first version: collect, postprocess, view, vcs, check kinds
 *   1.1  2026-11  view: show_diff and perun_view_ctx.baseline (for showdiff);
 *                 a view needs show or show_diff.  check: compare_series
 *                 over a history of profiles, perun_degradation.effect_size,
 *                 noise and version; a check needs compare or compare_series.
 *   1.2  2026-11  option flag PERUN_OPTION_SUBCOMMAND; long option names
 *                 match with '_' and '-' alike (Perun's --window_width).
 *   1.3  2026-11  view: perun_view_ops.flags, PERUN_VIEW_WALKS_TYPES (the
 *                 core then loads profile files streamed).
 *   1.4  2026-11  check: perun_check_ops.method and .title, the method's
 *                 name in Perun's configuration and its title in reports
 *                 (the core keeps no table of methods).  collect:
 *                 perun_collect_ctx.no_profile (no profile on purpose).
 *   1.5  2026-11  fuzz kind (PERUN_KIND_FUZZ): perun_fuzz_ops.fuzz runs a
 *                 performance fuzzer for "perun fuzz", profiling and
 *                 checking through the core's perun_fuzz_host.
 *
 * Within a major series structures only grow at their end and the minor
 * number is bumped; the "plugin_abi" variable of perun-plugin.pc follows.
 *
 * FIXME next ABI major (collect such items here, nowhere else):
 *   - none yet
 */
#ifndef PERUN_PLUGIN_H
#define PERUN_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a structure that starts with its size (ops tables, contexts,
 * records) was built with member: fields added in a later minor version
 * are read only when this holds. */
#define PERUN_ABI_HAS(ptr, type, member)                                                           \
	((ptr)->size >= offsetof(type, member) + sizeof(((type *)0)->member))

#define PERUN_PLUGIN_MAGIC     0x4e524550u /* "PERN" in memory on little endian */
#define PERUN_PLUGIN_ABI_MAJOR 1
#define PERUN_PLUGIN_ABI_MINOR 5

enum perun_plugin_kind {
	PERUN_KIND_COLLECT = 1,
	PERUN_KIND_POSTPROCESS = 2,
	PERUN_KIND_VIEW = 3,
	PERUN_KIND_VCS = 4,
	PERUN_KIND_CHECK = 5,
	PERUN_KIND_FUZZ = 6, /* since 1.5 */
};

/* Error codes: phases return 0 or one of these, negated. */
enum perun_error_code {
	PERUN_OK = 0,
	PERUN_EGENERIC = 1, /* anything a caller cannot act on */
	PERUN_EINVAL = 2,   /* bad input: option, profile, file */
	PERUN_ENOTFOUND = 3,
	PERUN_ETOOL = 4, /* the profiled program or an external tool failed */
	PERUN_EINTR = 5, /* interrupted by a signal */
};

/*
 * Filled by the callee on failure: a one-line, lowercase message naming the
 * thing and the problem, without the "perun: " prefix.  Owned by the caller.
 */
struct perun_error {
	int code;
	char message[1024];
};

/* Declared options: the core parses the command line and YAML for them. */
enum perun_option_type {
	PERUN_OPTION_BOOL = 1, /* a flag; "--no-<name>" turns it off */
	PERUN_OPTION_INT = 2,
	PERUN_OPTION_FLOAT = 3,
	PERUN_OPTION_STRING = 4,
	PERUN_OPTION_CHOICE = 5, /* one of .choices, separated by '|' */
};

enum perun_option_flags {
	PERUN_OPTION_REQUIRED = 1u << 0,
	PERUN_OPTION_MULTIPLE = 1u << 1, /* may repeat; value is a list */
	PERUN_OPTION_PAIR = 1u << 2,	 /* takes two words: "<key> <value>" */
	PERUN_OPTION_COUNT = 1u << 3,	 /* bool that counts repetitions (-v -v) */
	/* Since 1.2: a CHOICE that may also be given as the first bare word,
	 * as Perun's click subcommands are ("moving-average ema -d com 3"). */
	PERUN_OPTION_SUBCOMMAND = 1u << 4,
};

struct perun_option {
	const char *name;	/* long name without "--", e.g. "repeat" */
	const char *short_name; /* without "-", may be several letters, or NULL */
	enum perun_option_type type;
	const char *default_value; /* as written on the command line, or NULL */
	const char *choices;	   /* for CHOICE: "a|b|c" */
	const char *metavar;	   /* shown in help, e.g. "<int>" */
	const char *help;	   /* one line */
	uint32_t flags;		   /* enum perun_option_flags */
};
/* Option arrays end with an entry whose name is NULL. */

/* Opaque types of libperun (see perun/profile.h and perun/params.h). */
struct perun_profile;
struct perun_params;

/* ---- collect ---------------------------------------------------------- */

/* The context of one collection; owned by the core for the whole unit run. */
struct perun_collect_ctx {
	uint32_t size;			   /* sizeof as built by the core */
	const char *cmd;		   /* program to profile */
	const char *args;		   /* its arguments ("" if none) */
	const char *workload;		   /* the workload argument ("" if none) */
	const struct perun_params *params; /* parsed, checked options */
	struct perun_profile *profile;	   /* to fill; owned by the core */
	void *state;			   /* the plugin's, across phases */
	int interrupted;		   /* set by the core on SIGINT/SIGTERM */
	/* Since 1.4 (check the size): set by a phase that made no profile on
	 * purpose (e.g. trace --no-profile); the core then stores nothing
	 * and counts no failure. */
	int no_profile;
};

struct perun_collect_ops {
	uint32_t size;
	int (*before)(struct perun_collect_ctx *ctx, struct perun_error *err);
	int (*collect)(struct perun_collect_ctx *ctx, struct perun_error *err);
	int (*after)(struct perun_collect_ctx *ctx, struct perun_error *err);
	/* Always called, also after a failure or a signal; frees ctx->state. */
	void (*teardown)(struct perun_collect_ctx *ctx);
	const char *profile_type;  /* "time", "memory" or "mixed" */
	const char *default_units; /* JSON object, e.g. {"time": "s"} */
};

/* ---- postprocess ------------------------------------------------------ */

struct perun_postprocess_ctx {
	uint32_t size;
	const struct perun_params *params;
	struct perun_profile *profile; /* modified in place; owned by the core */
	void *state;
};

/* A phase that succeeds may leave a one-line warning in err->message (with
 * err->code 0); the core shows it, e.g. the uids a model was not fitted for. */
struct perun_postprocess_ops {
	uint32_t size;
	int (*before)(struct perun_postprocess_ctx *ctx, struct perun_error *err);
	int (*postprocess)(struct perun_postprocess_ctx *ctx, struct perun_error *err);
	int (*after)(struct perun_postprocess_ctx *ctx, struct perun_error *err);
};

/* ---- view ------------------------------------------------------------- */

struct perun_view_ctx {
	uint32_t size;
	const struct perun_params *params;
	const struct perun_profile *profile; /* borrowed */
	int argc;			     /* positional words after the options */
	char *const *argv;
	void *out; /* FILE * for terminal output */
	int color; /* non-zero when colours are wanted */
	/* Since 1.1; read only when size covers them. */
	const struct perun_profile *baseline; /* show_diff: the baseline, and
					       * profile is the target */
	const char *profile_label;	      /* how the user named the profile */
	const char *baseline_label;	      /* show_diff: the baseline's */
};

/* What a view tells the core of how it reads profiles. */
enum perun_view_flags {
	/*
	 * It reads the resources only with perun_profile_foreach_type, a walk
	 * or a few per profile, and keeps no value past the call: the core
	 * loads profile files with perun_profile_load_file_streamed, so that
	 * reading a big one overlaps the walk and never holds it all.
	 */
	PERUN_VIEW_WALKS_TYPES = 1u << 0,
};

/* A view provides show, show_diff (perun showdiff) or both. */
struct perun_view_ops {
	uint32_t size;
	int (*show)(struct perun_view_ctx *ctx, struct perun_error *err);
	/* Since 1.1. */
	int (*show_diff)(struct perun_view_ctx *ctx, struct perun_error *err);
	/* Since 1.3. */
	uint32_t flags; /* enum perun_view_flags */
};

/* ---- vcs -------------------------------------------------------------- */

/* One minor version (commit).  Strings are owned by the backend and live
 * until the next call on the same repository or its close. */
struct perun_vcs_commit {
	char checksum[65]; /* full hex id */
	const char *date;  /* "%Y-%m-%d %H:%M:%S" */
	const char *author;
	const char *email;
	const char *desc; /* the whole message */
	size_t parent_count;
	const char *const *parents; /* hex ids */
};

/* Return non-zero from a walk callback to stop the walk. */
typedef int (*perun_vcs_walk_fn)(const struct perun_vcs_commit *commit, void *data);

struct perun_vcs_ops {
	uint32_t size;
	/* Create a repository at path; params are "key=value" words. */
	int (*init)(const char *path, const char *const *params, struct perun_error *err);
	/* Open the repository containing path; *state is the plugin's. */
	int (*open)(const char *path, void **state, struct perun_error *err);
	void (*close)(void *state);
	/* Resolve any revision to a full id; buf holds at least 65 bytes. */
	int (*rev_parse)(void *state, const char *rev, char *buf, struct perun_error *err);
	/* Branch name, or the detached id; buf holds at least 256 bytes. */
	int (*major_head)(void *state, char *buf, struct perun_error *err);
	int (*info)(void *state, const char *rev, struct perun_vcs_commit *commit,
		    struct perun_error *err);
	/* From rev back through history, newest first. */
	int (*walk)(void *state, const char *rev, perun_vcs_walk_fn fn, void *data,
		    struct perun_error *err);
	/* 1 dirty, 0 clean, negative on error. */
	int (*is_dirty)(void *state, struct perun_error *err);
	/* Stash dirty work and remember the branch; restore puts both back. */
	int (*save_state)(void *state, struct perun_error *err);
	int (*restore_state)(void *state, struct perun_error *err);
	int (*checkout)(void *state, const char *rev, struct perun_error *err);
};

/* ---- check ------------------------------------------------------------ */

enum perun_change {
	PERUN_CHANGE_UNKNOWN = -6,
	PERUN_CHANGE_NOT_IN_BASELINE = -5,
	PERUN_CHANGE_TOTAL_DEGRADATION = -4,
	PERUN_CHANGE_SEVERE_DEGRADATION = -3,
	PERUN_CHANGE_DEGRADATION = -2,
	PERUN_CHANGE_MAYBE_DEGRADATION = -1,
	PERUN_CHANGE_NO_CHANGE = 0,
	PERUN_CHANGE_MAYBE_OPTIMIZATION = 1,
	PERUN_CHANGE_OPTIMIZATION = 2,
	PERUN_CHANGE_SEVERE_OPTIMIZATION = 3,
	PERUN_CHANGE_TOTAL_OPTIMIZATION = 4,
	PERUN_CHANGE_NOT_IN_TARGET = 5,
};

/* One detected change; strings are borrowed for the duration of the call. */
struct perun_degradation {
	uint32_t size;
	enum perun_change result;
	const char *type;     /* e.g. "linear", "model", "time" */
	const char *location; /* uid */
	const char *from_baseline;
	const char *to_target;
	double rate_degradation;
	const char *confidence_type;
	double confidence_rate;
	double rate_degradation_relative;
	/* Since 1.1; NaN or NULL when the method has none.  The core reads
	 * them only when size covers them. */
	double effect_size;  /* e.g. Cohen's d or relative shift */
	double noise;	     /* relative spread it was judged against */
	const char *version; /* compare_series: first changed version */
};

typedef int (*perun_check_emit_fn)(const struct perun_degradation *change, void *data);

/* Since 1.1: one profile of a history series. */
struct perun_check_series_entry {
	const char *version; /* minor version (commit id) */
	const struct perun_profile *profile;
};

/* A check provides compare (a baseline/target pair), compare_series (the
 * profiles of one configuration over history, oldest first) or both. */
struct perun_check_ops {
	uint32_t size;
	int (*compare)(const struct perun_profile *baseline, const struct perun_profile *target,
		       const struct perun_params *params, perun_check_emit_fn emit, void *data,
		       struct perun_error *err);
	/* Since 1.1. */
	int (*compare_series)(const struct perun_check_series_entry *series, size_t count,
			      const struct perun_params *params, perun_check_emit_fn emit,
			      void *data, struct perun_error *err);
	/* Since 1.4; NULL in older plugins, which are then known by their
	 * plugin name only.  method: the long name Perun's configuration
	 * uses in degradation.strategies (e.g. "average_amount_threshold");
	 * title: a few words for reports (SARIF rule names). */
	const char *method;
	const char *title;
};

/* ---- fuzz (since 1.5) ------------------------------------------------ */

/*
 * What the core does for a fuzzer: profile the fuzzed command on one
 * workload with the collector and postprocessors given to perun fuzz, and
 * judge a target profile against a baseline with the check methods of
 * degradation.strategies.  Profiles are owned by the fuzzer and freed with
 * release.
 */
struct perun_fuzz_host {
	uint32_t size;
	void *data; /* the first argument of every operation */
	int (*profile)(void *data, const char *workload, struct perun_profile **out,
		       struct perun_error *err);
	/* *degradations of *results verdicts were a degradation (any level). */
	int (*compare)(void *data, const struct perun_profile *baseline,
		       const struct perun_profile *target, size_t *degradations, size_t *results,
		       struct perun_error *err);
	void (*release)(void *data, struct perun_profile *profile);
};

struct perun_fuzz_ctx {
	uint32_t size;
	const struct perun_params *params; /* the options of perun fuzz */
	const struct perun_fuzz_host *host;
	const volatile int *interrupted; /* non-zero after SIGINT/SIGTERM */
	void *progress;			 /* FILE * for a status screen, or NULL */
	void *state;			 /* the plugin's */
};

struct perun_fuzz_ops {
	uint32_t size;
	int (*fuzz)(struct perun_fuzz_ctx *ctx, struct perun_error *err);
};

/* ---- the descriptor --------------------------------------------------- */

struct perun_plugin {
	uint32_t magic;	    /* PERUN_PLUGIN_MAGIC */
	uint16_t abi_major; /* must equal the core's */
	uint16_t abi_minor; /* must not exceed the core's */
	uint32_t size;	    /* sizeof(struct perun_plugin) as built */
	uint32_t kind;	    /* enum perun_plugin_kind */
	const char *name;   /* [a-z0-9_]+, equals the file name */
	const char *version;
	const char *summary;		    /* one line */
	const struct perun_option *options; /* NULL-name terminated, or NULL */
	const void *ops;		    /* per kind; first member is its size */
};

#define PERUN_PLUGIN_DESCRIBE_SYMBOL_PREFIX "perun_plugin_"
#define PERUN_PLUGIN_DESCRIBE_SYMBOL_SUFFIX "_describe"

/*
 * PERUN_PLUGIN_DEFINE(time, PERUN_KIND_COLLECT, .version = "1.0",
 *                     .summary = "...", .options = opts, .ops = &ops);
 * fills in magic, ABI numbers and size and emits the describe function.
 */
#define PERUN_PLUGIN_DEFINE(pname, pkind, ...)                                                     \
	const struct perun_plugin *perun_plugin_##pname##_describe(void);                          \
	const struct perun_plugin *perun_plugin_##pname##_describe(void)                           \
	{                                                                                          \
		static const struct perun_plugin descriptor = {                                    \
			.magic = PERUN_PLUGIN_MAGIC,                                               \
			.abi_major = PERUN_PLUGIN_ABI_MAJOR,                                       \
			.abi_minor = PERUN_PLUGIN_ABI_MINOR,                                       \
			.size = sizeof(struct perun_plugin),                                       \
			.kind = (pkind),                                                           \
			.name = #pname,                                                            \
			__VA_ARGS__                                                                \
		};                                                                                 \
		return &descriptor;                                                                \
	}

#ifdef __cplusplus
}
#endif

#endif /* PERUN_PLUGIN_H */
