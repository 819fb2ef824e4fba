/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests of the time collector, driven through its descriptor the way
 * the core drives it: params parsed against the declared options, then
 * before, collect and teardown on one context.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perun/perun.h>

#include "../../../../tests/tap.h"

const struct perun_plugin *perun_plugin_time_describe(void);

static const struct perun_plugin *plugin;
static const struct perun_collect_ops *ops;
static char tmpdir[] = "/tmp/perun-time-test.XXXXXX";

struct run {
	struct perun_params *params;
	struct perun_profile *profile;
	struct perun_collect_ctx ctx;
	struct perun_error err;
	int rc;
	const char *phase; /* the phase that failed, or NULL */
};

static struct run *current; /* for the SIGALRM handler */

static void on_alarm(int sig)
{
	(void)sig;
	if (current)
		current->ctx.interrupted = 1;
}

/* opts: NULL-terminated "name", "value" pairs of the plugin's options. */
static void collect(struct run *r, const char *cmd, const char *args, const char *workload,
		    const char *const *opts)
{
	memset(r, 0, sizeof(*r));
	r->params = perun_params_new();
	r->profile = perun_profile_new(ops->profile_type);
	for (; opts && opts[0]; opts += 2) {
		const struct perun_option *decl = perun_option_find(plugin->options, opts[0], 0);
		if (!decl || perun_params_set_text(r->params, decl, opts[1], &r->err)) {
			r->rc = -PERUN_EINVAL;
			r->phase = "options";
			return;
		}
	}
	if (perun_params_finish(r->params, plugin->options, "time", &r->err)) {
		r->rc = -PERUN_EINVAL;
		r->phase = "options";
		return;
	}
	r->ctx.size = sizeof(r->ctx);
	r->ctx.cmd = cmd;
	r->ctx.args = args ? args : "";
	r->ctx.workload = workload ? workload : "";
	r->ctx.params = r->params;
	r->ctx.profile = r->profile;
	current = r;
	r->rc = ops->before(&r->ctx, &r->err);
	if (r->rc)
		r->phase = "before";
	if (!r->rc) {
		r->rc = ops->collect(&r->ctx, &r->err);
		if (r->rc)
			r->phase = "collect";
	}
	if (!r->rc && ops->after) {
		r->rc = ops->after(&r->ctx, &r->err);
		if (r->rc)
			r->phase = "after";
	}
	ops->teardown(&r->ctx);
	current = NULL;
}

static void release(struct run *r)
{
	perun_params_free(r->params);
	perun_profile_free(r->profile);
}

/* Tallies over the expanded rows of a profile. */
struct tally {
	const char *uid;   /* expected uid of time rows */
	char rss_uid[512]; /* expected uid of max-rss rows */
	int rows, real, user, sys, rss, bad_keys, bad_uid;
	int order_seen[4][64]; /* per subtype, per order */
	double min_real, min_user, min_amount;
	long long min_rss;
	int exit_code_max, time_keys_ok;
};

static int subtype_index(const char *s)
{
	static const char *const names[] = { "real", "user", "sys", "max-rss" };
	for (int i = 0; i < 4; i++)
		if (s && !strcmp(s, names[i]))
			return i;
	return -1;
}

static int tally_row(const json_t *row, void *data)
{
	struct tally *t = data;
	const char *subtype = json_string_value(json_object_get(row, "subtype"));
	const char *uid = json_string_value(json_object_get(row, "uid"));
	json_t *amount = json_object_get(row, "amount");
	json_int_t order = json_integer_value(json_object_get(row, "order"));
	int k = subtype_index(subtype);
	t->rows++;
	if (k < 0 || !json_is_integer(json_object_get(row, "order")) || order < 1 || order > 63 ||
	    !json_is_string(json_object_get(row, "time"))) {
		t->bad_keys++;
		return 0;
	}
	t->order_seen[k][order]++;
	if (k < 3) {
		/* Exactly Python Perun's keys, plus the persistent "time". */
		if (json_object_size(row) != 6 || !json_is_real(amount) ||
		    strcmp(json_string_value(json_object_get(row, "type")), "time"))
			t->bad_keys++;
		if (!uid || strcmp(uid, t->uid))
			t->bad_uid++;
		double v = json_real_value(amount);
		if (v < t->min_amount)
			t->min_amount = v;
		if (k == 0 && v < t->min_real)
			t->min_real = v;
		if (k == 1 && v < t->min_user)
			t->min_user = v;
		(*(k == 0 ? &t->real : k == 1 ? &t->user : &t->sys))++;
	} else {
		if (json_object_size(row) != 7 || !json_is_integer(amount) ||
		    strcmp(json_string_value(json_object_get(row, "type")), "memory") ||
		    !json_is_integer(json_object_get(row, "exit-code")))
			t->bad_keys++;
		if (!uid || strcmp(uid, t->rss_uid))
			t->bad_uid++;
		if (json_integer_value(amount) < t->min_rss)
			t->min_rss = json_integer_value(amount);
		int code = (int)json_integer_value(json_object_get(row, "exit-code"));
		if (code > t->exit_code_max)
			t->exit_code_max = code;
		t->rss++;
	}
	return 0;
}

static void tally_profile(struct tally *t, const struct perun_profile *p, const char *uid)
{
	memset(t, 0, sizeof(*t));
	t->uid = uid;
	snprintf(t->rss_uid, sizeof(t->rss_uid), "%s:max-rss", uid);
	t->min_real = t->min_user = t->min_amount = 1e300;
	t->min_rss = (long long)1 << 62;
	t->exit_code_max = -1000;
	perun_profile_foreach_resource(p, tally_row, t);
}

/* Each of the four subtypes has orders 1..n exactly once. */
static int orders_exact(const struct tally *t, int n)
{
	for (int k = 0; k < 4; k++)
		for (int o = 0; o < 64; o++)
			if (t->order_seen[k][o] != (o >= 1 && o <= n))
				return 0;
	return 1;
}

static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;
	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	if (perun_file_read(path, &buf, NULL, NULL))
		return NULL;
	return buf;
}

static void test_descriptor(void)
{
	tap_is_str(plugin->name, "time", "descriptor is named time");
	tap_ok(plugin->kind == PERUN_KIND_COLLECT, "descriptor is a collector");
	tap_is_str(ops->profile_type, "time", "profile type is time");
	json_t *units = json_loads(ops->default_units, 0, NULL);
	tap_ok(units && json_object_size(units) == 2 &&
		       !strcmp(json_string_value(json_object_get(units, "time")), "s") &&
		       !strcmp(json_string_value(json_object_get(units, "memory")), "B"),
	       "default units are time: s and memory: B");
	json_decref(units);
	const struct perun_option *w = perun_option_find(plugin->options, "w", 1);
	const struct perun_option *r = perun_option_find(plugin->options, "r", 1);
	tap_ok(w && !strcmp(w->name, "warmup") && w->type == PERUN_OPTION_INT &&
		       !strcmp(w->default_value, "3"),
	       "-w is --warmup, an int defaulting to 3");
	tap_ok(r && !strcmp(r->name, "repeat") && r->type == PERUN_OPTION_INT &&
		       !strcmp(r->default_value, "10"),
	       "-r is --repeat, an int defaulting to 10");
}

static void test_true(void)
{
	static const char *const opts[] = { "repeat", "5", "warmup", "2", NULL };
	struct run r;
	struct tally t;
	collect(&r, "/bin/true", "", "", opts);
	tap_ok(r.rc == 0, "/bin/true -r 5 -w 2 succeeds%s%s", r.rc ? ": " : "",
	       r.rc ? r.err.message : "");
	tap_ok(perun_profile_resource_count(r.profile) == 20,
	       "20 resources: 5 repetitions of real, user, sys and max-rss (got %zu)",
	       perun_profile_resource_count(r.profile));
	tally_profile(&t, r.profile, "/bin/true");
	tap_ok(t.real == 5 && t.user == 5 && t.sys == 5 && t.rss == 5 && !t.bad_keys,
	       "each subtype 5 times with exactly the expected keys");
	tap_ok(orders_exact(&t, 5), "orders are 1..5 for every subtype");
	tap_ok(!t.bad_uid, "uid is the command, and '<cmd>:max-rss' for max-rss");
	tap_ok(t.min_amount >= 0 && t.min_real > 0, "times are non-negative, real positive");
	tap_ok(t.min_rss > 0 && t.min_rss % 1024 == 0, "max-rss is positive bytes");
	tap_ok(t.exit_code_max == 0, "exit codes recorded as 0");
	json_t *map = json_object_get(perun_profile_json(r.profile), "resource_type_map");
	tap_ok(json_object_size(map) == 4 && json_object_get(map, "/bin/true#0") &&
		       json_object_get(map, "/bin/true#2") &&
		       json_object_get(map, "/bin/true:max-rss#0"),
	       "four resource types: three for the times, one for max-rss");
	release(&r);

	collect(&r, "true", "", "", NULL);
	tally_profile(&t, r.profile, "true");
	tap_ok(r.rc == 0 && t.real == 10 && orders_exact(&t, 10),
	       "defaults: 10 repetitions, command found through PATH");
	release(&r);
}

static void test_run_count_and_words(const char *helper)
{
	char record[512], args[1200], line[1200];
	snprintf(record, sizeof(record), "%s/record", tmpdir);
	snprintf(args, sizeof(args), "record %s out 'two words' out \"dq $HOME\"", record);
	static const char *const opts[] = { "repeat", "5", "warmup", "2", NULL };
	struct run r;
	collect(&r, helper, args, "exit\t0", opts);
	tap_ok(r.rc == 0, "helper with quoted arguments succeeds%s%s", r.rc ? ": " : "",
	       r.rc ? r.err.message : "");
	tap_ok(count_lines(record) == 7, "2 warm-up runs + 5 repetitions ran (%d)",
	       count_lines(record));
	FILE *f = fopen(record, "r");
	char *got = f && fgets(line, sizeof(line), f) ? line : NULL;
	if (f)
		fclose(f);
	char want[1200];
	snprintf(want, sizeof(want), "[record] [%s] [out] [two words] [out] [dq %s] [exit] [0]\n",
		 record, getenv("HOME") ? getenv("HOME") : "");
	tap_is_str(got, want, "arguments and workload split like a shell, no shell run");
	release(&r);
}

static void test_plausible(const char *helper)
{
	static const char *const opts[] = { "repeat", "3", "warmup", "0", NULL };
	struct run r;
	struct tally t;
	collect(&r, helper, "sleep 50 cpu 30 touch 20480", "", opts);
	tap_ok(r.rc == 0, "sleeping, spinning, allocating helper succeeds");
	tally_profile(&t, r.profile, helper);
	tap_ok(t.real == 3 && orders_exact(&t, 3), "3 repetitions recorded");
	tap_ok(t.min_real >= 0.080, "real covers the 50 ms sleep and 30 ms cpu (min %g)",
	       t.min_real);
	tap_ok(t.min_user >= 0.030, "user covers the 30 ms of cpu (min %g)", t.min_user);
	tap_ok(t.min_rss >= 20480LL * 1024, "max-rss covers the 20 MiB touched (min %lld)",
	       t.min_rss);
	release(&r);
}

static void expect_failure(struct run *r, int code, const char *phase, const char *message,
			   const char *what)
{
	tap_ok(r->rc == -code && r->err.code == code && r->phase && !strcmp(r->phase, phase),
	       "%s fails in %s with code %d (rc %d, phase %s)", what, phase, code, r->rc,
	       r->phase ? r->phase : "none");
	tap_is_str(r->err.message, message, "%s: message", what);
	tap_ok(perun_profile_resource_count(r->profile) == 0, "%s: nothing recorded", what);
}

/* One expected failure; "@" in cmd, args and message stands for the helper. */
struct failure_case {
	const char *what;
	const char *cmd, *args, *workload;
	const char *const *opts;
	int code;
	const char *phase;
	const char *message;
};

static char *with_helper(const char *text, const char *helper)
{
	static char buf[4][1200];
	static int next;
	char *out = buf[next++ % 4];
	const char *at = strchr(text, '@');
	if (at)
		snprintf(out, 1200, "%.*s%s%s", (int)(at - text), text, helper, at + 1);
	else
		snprintf(out, 1200, "%s", text);
	return out;
}

static void check_failures(const struct failure_case *cases, size_t n, const char *helper)
{
	for (size_t i = 0; i < n; i++) {
		const struct failure_case *c = &cases[i];
		struct run r;
		collect(&r, with_helper(c->cmd, helper), with_helper(c->args, helper), c->workload,
			c->opts);
		expect_failure(&r, c->code, c->phase, with_helper(c->message, helper), c->what);
		release(&r);
	}
}

static const char *const w0[] = { "warmup", "0", NULL };
static const char *const w1[] = { "warmup", "1", NULL };
static const char *const neg_warmup[] = { "warmup", "-1", NULL };
static const char *const zero_repeat[] = { "repeat", "0", NULL };
static const char *const text_repeat[] = { "repeat", "ten", NULL };
static const char *const bad_output[] = { "output", "file", NULL };

static const struct failure_case failures[] = {
	{ "exit 3", "@", "exit 3", "", w0, PERUN_ETOOL, "collect",
	  "command '@' exited with status 3 in repetition 1" },
	{ "exit 3 during warm-up", "@", "exit 3", "", w1, PERUN_ETOOL, "collect",
	  "command '@' exited with status 3 in warm-up run 1" },
	{ "killed command", "@", "kill 15", "", w0, PERUN_ETOOL, "collect",
	  "command '@' was killed by signal 15 (Terminated) in repetition 1" },
	{ "missing command", "perun-no-such-command", "", "", NULL, PERUN_ETOOL, "before",
	  "command 'perun-no-such-command' not found" },
	{ "missing command with a path", "./nope", "-x", "", NULL, PERUN_ETOOL, "before",
	  "command './nope' not found" },
	{ "non-executable command", "/etc/passwd", "", "", NULL, PERUN_ETOOL, "before",
	  "cannot run command '/etc/passwd': Permission denied" },
	{ "a directory as command", "/", "", "", NULL, PERUN_ETOOL, "before",
	  "cannot run command '/': Permission denied" },
	{ "--warmup -1", "@", "", "", neg_warmup, PERUN_EINVAL, "before",
	  "option '--warmup' must be 0 or more, not -1" },
	{ "--repeat 0", "@", "", "", zero_repeat, PERUN_EINVAL, "before",
	  "option '--repeat' must be 1 or more, not 0" },
	{ "--repeat ten", "@", "", "", text_repeat, PERUN_EINVAL, "options",
	  "option '--repeat' takes a whole number, not 'ten'" },
	{ "--output file", "@", "", "", bad_output, PERUN_EINVAL, "options",
	  "option '--output' takes one of discard|stderr, not 'file'" },
	{ "empty command", "", "", "", NULL, PERUN_EINVAL, "before",
	  "no command to time (give one with --cmd)" },
	{ "a pipe in the arguments", "@", "out x | cat", "", NULL, PERUN_EINVAL, "before",
	  "cannot split arguments 'out x | cat': unquoted |, &, ;, <, >, (, ), { or } "
	  "(pipes and redirections need an explicit shell, e.g. -c sh -a '-c \"...\"')" },
	{ "an open quote in the workload", "@", "", "out 'open", NULL, PERUN_EINVAL, "before",
	  "cannot split workload 'out 'open': unbalanced quotes" },
	{ "command substitution", "@", "out $(touch pwned)", "", NULL, PERUN_EINVAL, "before",
	  "cannot split arguments 'out $(touch pwned)': command substitution is not allowed" },
};

static void test_failures(const char *helper)
{
	char args[600], fake[600], counter[512];
	struct run r;

	check_failures(failures, sizeof(failures) / sizeof(failures[0]), helper);
	tap_ok(access("pwned", F_OK) != 0, "the substitution was not run");

	snprintf(counter, sizeof(counter), "%s/counter", tmpdir);
	snprintf(args, sizeof(args), "nth %s 2 3", counter);
	const struct failure_case second = { "failure in the second repetition",
					     "@",
					     args,
					     "",
					     w0,
					     PERUN_ETOOL,
					     "collect",
					     "command '@' exited with status 3 in repetition 2" };
	check_failures(&second, 1, helper);
	tap_ok(count_lines(counter) == 2, "no repetition runs after a failure");

	/* Found in $PATH but not executable: execvp's EACCES, not "not found". */
	char *old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	snprintf(fake, sizeof(fake), "%s/perun-fake", tmpdir);
	FILE *f = fopen(fake, "w");
	if (f)
		fclose(f);
	setenv("PATH", tmpdir, 1);
	const struct failure_case in_path = {
		"a non-executable file in $PATH",
		"perun-fake",
		"",
		"",
		NULL,
		PERUN_ETOOL,
		"before",
		"cannot run command 'perun-fake': Permission denied"
	};
	check_failures(&in_path, 1, helper);
	if (old_path)
		setenv("PATH", old_path, 1);
	free(old_path);

	/* --ignore-failure records the runs and their exit codes. */
	static const char *const ignore[] = { "warmup",		"1",	"repeat", "2",
					      "ignore-failure", "true", NULL };
	struct tally t;
	collect(&r, helper, "exit 3", "", ignore);
	tally_profile(&t, r.profile, helper);
	tap_ok(r.rc == 0 && t.rss == 2 && t.exit_code_max == 3 && orders_exact(&t, 2),
	       "--ignore-failure records runs with exit-code 3");
	release(&r);
}

/* Run collect with stdin from a pipe and stdout/stderr into files. */
static void collect_redirected(struct run *r, const char *helper, const char *args,
			       const char *const *opts, char **out, char **err)
{
	char out_path[512], err_path[512];
	snprintf(out_path, sizeof(out_path), "%s/stdout", tmpdir);
	snprintf(err_path, sizeof(err_path), "%s/stderr", tmpdir);
	int saved[3] = { dup(0), dup(1), dup(2) };
	int pipefd[2];
	fflush(stdout);
	if (pipe(pipefd) == 0) {
		if (write(pipefd[1], "secret\n", 7) != 7)
			tap_diag("short write to the stdin pipe");
		close(pipefd[1]);
		dup2(pipefd[0], 0);
		close(pipefd[0]);
	}
	int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fo, 1);
	dup2(fe, 2);
	close(fo);
	close(fe);
	collect(r, helper, args, "", opts);
	for (int i = 0; i < 3; i++) {
		dup2(saved[i], i);
		close(saved[i]);
	}
	*out = slurp(out_path);
	*err = slurp(err_path);
}

static void test_output(const char *helper)
{
	struct run r;
	char *out, *err;
	static const char *const discard[] = { "repeat", "2", "warmup", "1", NULL };
	static const char *const to_stderr[] = { "repeat", "2",	     "warmup", "1",
						 "output", "stderr", NULL };

	collect_redirected(&r, helper, "out OUT err ERR stdin", discard, &out, &err);
	tap_ok(r.rc == 0, "chatty command succeeds");
	tap_is_str(out, "", "by default the command's stdout is discarded");
	tap_is_str(err, "", "by default the command's stderr is discarded");
	release(&r);
	free(out);
	free(err);

	collect_redirected(&r, helper, "out OUT err ERR stdin", to_stderr, &out, &err);
	tap_ok(r.rc == 0, "chatty command with --output stderr succeeds");
	tap_is_str(out, "", "--output stderr keeps perun's stdout clean");
	tap_is_str(err, "OUTERROUTERROUTERR",
		   "--output stderr shows stdout and stderr of every run, no stdin");
	release(&r);
	free(out);
	free(err);
}

static void test_interrupt(const char *helper)
{
	struct run r;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 0 }, { 0, 200000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	static const char *const opts[] = { "warmup", "0", NULL };
	collect(&r, helper, "sleep 60000", "", opts);
	char msg[600];
	snprintf(msg, sizeof(msg), "interrupted while running '%s' (repetition 1)", helper);
	expect_failure(&r, PERUN_EINTR, "collect", msg, "interrupted collection");
	tap_ok(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD,
	       "the interrupted command was killed and reaped");
	release(&r);
}

int main(void)
{
	const char *helper = TIME_HELPER;
	plugin = perun_plugin_time_describe();
	ops = plugin->ops;
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_descriptor();
	test_true();
	test_run_count_and_words(helper);
	test_plausible(helper);
	test_failures(helper);
	test_output(helper);
	test_interrupt(helper);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		tap_diag("could not remove %s", tmpdir);
	return tap_done();
}
