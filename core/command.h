/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The command table: one description per command drives parsing, --help,
 * the man pages and bash completion, so they cannot drift apart.
 */
#ifndef PERUN_CORE_COMMAND_H
#define PERUN_CORE_COMMAND_H

#include <perun/perun.h>

/* Exit codes (DESIGN.md section 4). */
enum perun_exit {
	PERUN_EXIT_OK = 0,
	PERUN_EXIT_DEGRADED = 1,
	PERUN_EXIT_USAGE = 2,
	PERUN_EXIT_FAILURE = 3,
	/* A gate (check --fail-on) that had nothing to compare. */
	PERUN_EXIT_NOTHING_COMPARED = 4,
};

enum perun_output_format {
	PERUN_FORMAT_TEXT = 0,
	PERUN_FORMAT_JSON = 1,
};

/* Global state of one perun invocation, owned by main. */
struct perun_cli {
	int verbose;
	int color;   /* ANSI colours on stdout */
	int say_yes; /* answer every prompt with yes */
	int no_pager;
	const char *plugin_path; /* --plugin-path, overrides $PERUN_PLUGIN_PATH */
	const char *argv0;
	/* Options of the enclosing group (e.g. "config --local"), or NULL. */
	const struct perun_params *group_params;
	/* Options of the group enclosing that one ("import -c x perf script"). */
	const struct perun_params *outer_params;
};

struct perun_command;

/*
 * A command gets its parsed options and the positional words after them.
 * It returns an exit code (enum perun_exit) and prints its own errors
 * through perun_die_error/perun_error_print.
 */
typedef int (*perun_command_fn)(const struct perun_command *cmd, struct perun_cli *cli,
				const struct perun_params *params, int argc, char **argv);

enum perun_command_flags {
	/* Words after the first positional are passed on unparsed (e.g. the
	 * plugin's own options after "collect <collector>"). */
	PERUN_COMMAND_STOP_AT_POSITIONAL = 1u << 0,
	/* Left out of --help, the man pages and bash completion (internal
	 * commands such as "__docs" that the build runs). */
	PERUN_COMMAND_HIDDEN = 1u << 1,
};

struct perun_command {
	const char *name;
	perun_command_fn fn; /* NULL for a group of subcommands */
	const struct perun_option *options;
	const char *args;	 /* usage of positionals, e.g. "<profile>..." */
	const char *summary;	 /* one line */
	const char *description; /* paragraphs for --help and the man page */
	uint32_t flags;
	const struct perun_command *const *subcommands; /* NULL terminated */
	const char *see_also;
	/* The positional word plugin_arg (counted from 0) names a plugin of
	 * plugin_kind ("collect <collector>"): --help after it shows that
	 * plugin's usage.  0: the command takes no plugin. */
	enum perun_plugin_kind plugin_kind;
	int plugin_arg;
};

/*
 * The root command: global options and the top-level table
 * (core/commands.c).  Each command is defined, with its options, in its
 * own cmd_<name>.c as "const struct perun_command perun_cmd_<name>".
 */
extern const struct perun_command perun_root_command;

/* Find a subcommand of group by name; NULL when there is none. */
const struct perun_command *perun_command_find(const struct perun_command *group, const char *name);

/*
 * Parse options of decls from argv[0..argc) into params.  Stops at "--",
 * and at the first positional word when stop_at_positional, else collects
 * positionals.  On return *rest points to the positional words (reordered
 * to the end of argv) and *nrest to their count.
 */
int perun_options_parse(const struct perun_option *decls, int argc, char **argv,
			int stop_at_positional, struct perun_params *params, char ***rest,
			int *nrest, struct perun_error *err);

/*
 * "-f, --format {text|json}" and " (default: text) (required)"; the help
 * text, "plugins inspect" and the man pages share them.  key_prefix NULL
 * spells an option for the command line; else it is a configuration key
 * "<key_prefix><name>" (check methods: "degradation.cutoff <number>").
 */
void perun_option_synopsis(const struct perun_option *o, const char *key_prefix, char *buf,
			   size_t len);
void perun_option_notes(const struct perun_option *o, char *buf, size_t len);
/* One line per option of decls: synopsis, help and notes, in columns. */
void perun_options_print(const struct perun_option *decls, const char *key_prefix, FILE *out);
/* "perun config get [options] <key>" */
void perun_command_synopsis(const struct perun_command *cmd, const char *path, char *buf,
			    size_t len);

/* Help text of a command (path like "perun config get") to out. */
void perun_command_help(const struct perun_command *cmd, const char *path, FILE *out);

/* Print "perun: <message>" to stderr. */
void perun_error_print(const struct perun_error *err);
/* printf-style error line "perun: ..." to stderr; returns code. */
int perun_fail(int code, const char *fmt, ...) PERUN_PRINTF(2, 3);
/* Warning line "perun: warning: ..." to stderr. */
void perun_warn(const char *fmt, ...) PERUN_PRINTF(1, 2);

/* Map a libperun error code to an exit code (PERUN_EINTR: see below). */
int perun_exit_for(int error_code);
/* Note, from a signal handler, that signal sig interrupted the run. */
void perun_note_interrupt(int sig);
/* The exit status of an interrupted run: 128 + the signal (130 for
 * SIGINT, also when none was noted). */
int perun_interrupt_exit(void);

/* Ask a yes/no question on the terminal; honours --say-yes. */
int perun_confirm(struct perun_cli *cli, const char *question);

#endif
