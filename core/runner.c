/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Running collector and postprocessor units and filing their profiles
 * (see runner.h).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "command.h"
#include "index.h"
#include "worktree.h"
#include "profiles.h"
#include "runner.h"
#include "crash.h"
#include "durable.h"
#include "store.h"

volatile int perun_runner_interrupted;
static volatile int *interrupt_target;
static volatile sig_atomic_t timed_out;

/* What a collector that ignores its timeout was given, for the message;
 * written before the alarm is set. */
static char stuck_text[96];
static unsigned stop_grace;

/* A unit past its timeout is told as on SIGINT, but only it stops.  One
 * that is still running after as long again (at most 10 s) ignores the
 * request: perun ends, naming it, rather than hang with it. */
static void on_timeout(int sig)
{
	(void)sig;
	if (timed_out)
		perun_crash_stuck(stuck_text);
	timed_out = 1;
	if (interrupt_target)
		*interrupt_target = 1;
	alarm(stop_grace);
}

static void on_signal(int sig)
{
	perun_runner_interrupted = sig;
	perun_note_interrupt(sig);
	if (interrupt_target)
		*interrupt_target = 1;
}

int perun_runner_unit_params(const struct perun_loaded_plugin *unit, int argc, char **argv,
			     const json_t *yaml_params, struct perun_params **out, char ***words,
			     int *nwords, struct perun_error *err)
{
	struct perun_params *params = perun_params_new();
	char **rest;
	int nrest;
	int rc =
		perun_options_parse(unit->desc->options, argc, argv, 0, params, &rest, &nrest, err);
	if (rc)
		perun_error_prefix(err, "%s '%s'", perun_plugin_kind_name(unit->kind), unit->name);
	if (!rc && words) {
		*words = rest;
		*nwords = nrest;
	} else if (!rc && nrest)
		rc = perun_error_set(err, PERUN_EINVAL, "%s '%s': unexpected argument '%s'",
				     perun_plugin_kind_name(unit->kind), unit->name, rest[0]);
	const char *key;
	json_t *value;
	json_object_foreach((json_t *)yaml_params, key, value)
	{
		if (rc)
			break;
		char name[128];
		snprintf(name, sizeof(name), "%s", key);
		for (char *p = name; *p; p++)
			if (*p == '_')
				*p = '-';
		const struct perun_option *decl = perun_option_find(unit->desc->options, name, 0);
		if (!decl)
			rc = perun_error_set(err, PERUN_EINVAL, "%s '%s' has no parameter '%s'",
					     perun_plugin_kind_name(unit->kind), unit->name, key);
		else if (!perun_params_has(params, decl->name))
			rc = perun_params_set_json(params, decl, value, err);
	}
	if (!rc) {
		char owner[300];
		snprintf(owner, sizeof(owner), "%s '%s'", perun_plugin_kind_name(unit->kind),
			 unit->name);
		rc = perun_params_finish(params, unit->desc->options, owner, err);
	}
	if (rc) {
		perun_params_free(params);
		return rc;
	}
	*out = params;
	return 0;
}

/* Unit params as Perun stores them: underscores in names; collectors
 * also record their workload. */
static json_t *stored_params(const struct perun_params *params, const char *workload)
{
	json_t *copy = json_object();
	const char *key;
	json_t *value;
	json_object_foreach(perun_params_json(params), key, value)
	{
		char name[128];
		snprintf(name, sizeof(name), "%s", key);
		for (char *p = name; *p; p++)
			if (*p == '-')
				*p = '_';
		json_object_set(copy, name, value);
	}
	if (workload)
		json_object_set_new(copy, "workload", json_string(workload));
	return copy;
}

json_t *perun_runner_machine_info(void)
{
	struct utsname u;
	struct sysinfo si;
	char ram[32] = "?", swap[32] = "?";
	uname(&u);
	if (sysinfo(&si) == 0) {
		snprintf(ram, sizeof(ram), "%.1f GiB",
			 (double)si.totalram * si.mem_unit / (1024.0 * 1024 * 1024));
		snprintf(swap, sizeof(swap), "%.1f GiB",
			 (double)si.totalswap * si.mem_unit / (1024.0 * 1024 * 1024));
	}
	long total = sysconf(_SC_NPROCESSORS_ONLN);
	return json_pack("{s:s,s:s,s:s,s:s,s:{s:I,s:I},s:{s:s,s:s}}", "architecture", u.machine,
			 "system", u.sysname, "release", u.release, "host", u.nodename, "cpu",
			 "physical", (json_int_t)total, "total", (json_int_t)total, "memory",
			 "total_ram", ram, "swap", swap);
}

int perun_runner_collect(const struct perun_loaded_plugin *collector,
			 const struct perun_params *params, const struct perun_job *job,
			 const char *origin, struct perun_profile **out, struct perun_error *err)
{
	const struct perun_collect_ops *ops = collector->desc->ops;
	const char *type = ops->profile_type ? ops->profile_type : "time";
	struct perun_profile *profile = perun_profile_new(type);
	struct perun_collect_ctx ctx = {
		.size = sizeof(ctx),
		.cmd = job->cmd,
		.args = job->args ? job->args : "",
		.workload = job->workload ? job->workload : "",
		.params = params,
		.profile = profile,
	};
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	perun_runner_interrupted = 0;
	interrupt_target = &ctx.interrupted;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	struct sigaction alarm_sa = { .sa_handler = on_timeout }, old_alarm;
	sigemptyset(&alarm_sa.sa_mask);
	timed_out = 0;
	if (job->timeout) {
		stop_grace = job->timeout < 10 ? job->timeout : 10;
		snprintf(stuck_text, sizeof(stuck_text), "its %u s timeout and %u s more",
			 job->timeout, stop_grace);
		sigaction(SIGALRM, &alarm_sa, &old_alarm);
		alarm(job->timeout);
	}

	int rc = 0;
	const char *name = collector->name;
	perun_crash_enter("collect", name, "before");
	if (ops->before)
		rc = ops->before(&ctx, err);
	perun_crash_enter("collect", name, "collect");
	if (!rc && !perun_runner_interrupted)
		rc = ops->collect(&ctx, err);
	perun_crash_enter("collect", name, "after");
	if (!rc && ops->after && !perun_runner_interrupted && !ctx.no_profile)
		rc = ops->after(&ctx, err);
	perun_crash_enter("collect", name, "teardown");
	if (ops->teardown)
		ops->teardown(&ctx);
	perun_crash_leave();

	if (job->timeout) {
		alarm(0);
		sigaction(SIGALRM, &old_alarm, NULL);
	}
	interrupt_target = NULL;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (timed_out && !perun_runner_interrupted) {
		perun_profile_free(profile);
		return perun_error_set(err, PERUN_ETOOL,
				       "collector '%s' timed out after %u s running '%s' (stopped)",
				       collector->name, job->timeout, job->cmd);
	}
	if (!rc && perun_runner_interrupted)
		rc = perun_error_set(err, PERUN_EINTR, "collector '%s' was interrupted",
				     collector->name);
	if (rc) {
		perun_error_prefix(err, "collector '%s'", collector->name);
		perun_profile_free(profile);
		return rc;
	}
	if (ctx.no_profile) {
		perun_profile_free(profile);
		*out = NULL;
		return 0;
	}
	perun_profile_set_header(profile, "type", type);
	perun_profile_set_header(profile, "cmd", ctx.cmd);
	perun_profile_set_header(profile, "workload", ctx.workload);
	if (ctx.args[0])
		perun_profile_set_header(profile, "args", ctx.args);
	if (ops->default_units &&
	    (rc = perun_profile_set_units(profile, ops->default_units, err))) {
		perun_profile_free(profile);
		return rc;
	}
	json_t *stored = stored_params(params, ctx.workload);
	perun_profile_set_collector(profile, collector->name, stored);
	json_decref(stored);
	perun_profile_set_new(profile, "machine", perun_runner_machine_info());
	perun_profile_set_origin(profile, origin);
	*out = profile;
	return 0;
}

int perun_runner_postprocess(const struct perun_loaded_plugin *postprocessor,
			     const struct perun_params *params, struct perun_profile *profile,
			     char *warning, size_t warning_len, struct perun_error *err)
{
	const struct perun_postprocess_ops *ops = postprocessor->desc->ops;
	struct perun_postprocess_ctx ctx = {
		.size = sizeof(ctx),
		.params = params,
		.profile = profile,
	};
	int (*const phases[])(struct perun_postprocess_ctx *,
			      struct perun_error *) = { ops->before, ops->postprocess, ops->after };
	int rc = 0;
	size_t used = 0;
	if (warning_len)
		warning[0] = '\0';
	for (size_t i = 0; i < sizeof(phases) / sizeof(*phases) && !rc; i++) {
		if (!phases[i])
			continue;
		perun_error_clear(err);
		static const char *const phase_names[] = { "before", "postprocess", "after" };
		perun_crash_enter("postprocess", postprocessor->name, phase_names[i]);
		rc = phases[i](&ctx, err);
		perun_crash_leave();
		/* A phase that succeeds may leave a one-line warning in err. */
		if (!rc && err->message[0] && used + 3 < warning_len)
			used += (size_t)snprintf(warning + used, warning_len - used, "%s%s",
						 used ? "; " : "", err->message);
	}
	if (rc) {
		perun_error_prefix(err, "postprocessor '%s'", postprocessor->name);
		return rc;
	}
	perun_error_clear(err);
	json_t *stored = stored_params(params, NULL);
	rc = perun_profile_add_postprocessor(profile, postprocessor->name, stored);
	json_decref(stored);
	if (rc)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	return 0;
}

/* Perun's sanitize_filepart: these characters become '_'. */
static void sanitize_into(const char *s, char *out, size_t len)
{
	const char *base = strrchr(s, '/');
	base = base ? base + 1 : s;
	if (!*base)
		base = "_";
	size_t i = 0;
	for (; *base && i + 1 < len; base++, i++)
		out[i] = strchr("# %&{}\\<>*?/ $!'\":@", *base) ? '_' : *base;
	out[i] = '\0';
}

static int counter;

/* Append s to *buf; out of memory, *buf is freed and NULL, and stays so
 * (*len SIZE_MAX) for the appends after it. */
static void append_str(char **buf, size_t *len, const char *s)
{
	if (*len == SIZE_MAX)
		return;
	size_t n = strlen(s);
	char *grown = realloc(*buf, *len + n + 1);
	if (!grown) {
		free(*buf);
		*buf = NULL;
		*len = SIZE_MAX;
		return;
	}
	*buf = grown;
	memcpy(*buf + *len, s, n + 1);
	*len += n;
}

static const char *param_of(const struct perun_profile *p, const char *unit, const char *param,
			    char *buf, size_t len)
{
	json_t *params = NULL;
	json_t *info = perun_profile_get(p, "collector_info");
	if (!strcmp(json_string_value(json_object_get(info, "name")) ?: "", unit))
		params = json_object_get(info, "params");
	size_t i;
	json_t *post;
	json_array_foreach(perun_profile_get(p, "postprocessors"), i,
			   post) if (!params &&
				     !strcmp(json_string_value(json_object_get(post, "name")) ?: "",
					     unit)) params = json_object_get(post, "params");
	json_t *v = json_object_get(params, param);
	if (!v)
		return "_";
	char *flat = perun_value_flatten_dup(v);
	sanitize_into(flat, buf, len);
	free(flat);
	return buf;
}

/* The profile in its pending form, as a perun_write_fn. */
static int write_pending_profile(int fd, void *profile)
{
	return perun_profile_write(profile, PERUN_DUMP_PENDING, 1, fd);
}

char *perun_profile_name_dup(const struct perun_profile *p, const char *tmpl,
			     struct perun_error *err)
{
	char *out = NULL, buf[1024];
	size_t len = 0;
	append_str(&out, &len, "");
	for (const char *s = tmpl; *s;) {
		if (*s != '%') {
			const char *next = strchr(s, '%');
			size_t n = next ? (size_t)(next - s) : strlen(s);
			snprintf(buf, sizeof(buf), "%.*s", (int)n, s);
			append_str(&out, &len, buf);
			s += n;
			continue;
		}
		const char *end = strchr(s + 1, '%');
		if (!end) {
			free(out);
			perun_error_set(err, PERUN_EINVAL,
					"profile name template '%s': unterminated '%%' tag", tmpl);
			return NULL;
		}
		char tag[256];
		snprintf(tag, sizeof(tag), "%.*s", (int)(end - s - 1), s + 1);
		s = end + 1;
		if (!tag[0]) {
			append_str(&out, &len, "%");
		} else if (!strcmp(tag, "collector")) {
			const char *c = perun_profile_collector(p);
			append_str(&out, &len, *c ? c : "_");
		} else if (!strcmp(tag, "postprocessors")) {
			char *names = perun_profile_postprocessors_dup(p);
			if (!*names) {
				append_str(&out, &len, "_");
			} else {
				append_str(&out, &len, "after-");
				for (char *w = strtok(names, " "), *first = w; w;
				     w = strtok(NULL, " ")) {
					if (w != first)
						append_str(&out, &len, "-and-");
					append_str(&out, &len, w);
				}
			}
			free(names);
		} else if (!strcmp(tag, "cmd") || !strcmp(tag, "workload")) {
			char part[512];
			sanitize_into(perun_profile_header(p, tag), part, sizeof(part));
			snprintf(buf, sizeof(buf), "[%s]", part);
			append_str(&out, &len, buf);
		} else if (!strcmp(tag, "type")) {
			append_str(&out, &len, perun_profile_type(p));
		} else if (!strcmp(tag, "date")) {
			time_t now = time(NULL);
			struct tm tm;
			gmtime_r(&now, &tm);
			strftime(buf, sizeof(buf), "%Y-%m-%d-%H-%M-%S", &tm);
			append_str(&out, &len, buf);
		} else if (!strcmp(tag, "origin")) {
			const char *o = perun_profile_origin(p);
			append_str(&out, &len, o ? o : "_");
		} else if (!strcmp(tag, "counter")) {
			snprintf(buf, sizeof(buf), "%d", counter);
			append_str(&out, &len, buf);
		} else if (strchr(tag, '.')) {
			char *dot = strchr(tag, '.');
			*dot = '\0';
			append_str(&out, &len, param_of(p, tag, dot + 1, buf, sizeof(buf)));
		} else {
			free(out);
			perun_error_set(err, PERUN_EINVAL,
					"profile name template '%s': unknown tag '%%%s%%'", tmpl,
					tag);
			return NULL;
		}
	}
	if (!out) {
		perun_error_set(err, PERUN_EGENERIC, "out of memory");
		return NULL;
	}
	counter++;
	return out;
}

int perun_runner_store(struct perun_instance *inst, struct perun_profile *profile, const char *name,
		       const char *template, unsigned flags, char *path_out,
		       struct perun_error *err)
{
	char *base =
		name ? strdup(name)
		     : perun_profile_name_dup(
			       profile,
			       template ? template
					: perun_config_lookup_string(
						  &inst->config, "format.output_profile_template",
						  "%collector%-%cmd%-%workload%-%date%"),
			       err);
	if (!base)
		return err->code ? -err->code
				 : perun_error_set(err, PERUN_EGENERIC, "out of memory");
	size_t blen = strlen(base);
	if (blen > 5 && !strcmp(base + blen - 5, ".perf"))
		base[blen - 5] = '\0';
	/* A profile of uncommitted work says so in its name, for status. */
	const char *dirty = name ? NULL : perun_worktree_of(profile);
	if (dirty) {
		char mark[32];
		perun_worktree_name_mark(dirty, mark, sizeof(mark));
		char *marked = malloc(strlen(base) + sizeof(mark));
		if (!marked) {
			free(base);
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		}
		sprintf(marked, "%s%s", base, mark);
		free(base);
		base = marked;
	}
	if (strchr(base, '/')) {
		int rc = perun_error_set(err, PERUN_EINVAL, "profile name '%s' contains '/'", base);
		free(base);
		return rc;
	}
	char *jobs = perun_instance_path(inst, "jobs");
	char path[PATH_MAX * 2], file[PATH_MAX];
	int rc = perun_mkdirs(jobs, 0755, err), batched = 0;
	/* Never overwrite an earlier profile: name(1).perf, name(2).perf, ... */
	for (int copy = 0; !rc; copy++) {
		if (copy)
			snprintf(file, sizeof(file), "%s(%d).perf", base, copy);
		else
			snprintf(file, sizeof(file), "%s.perf", base);
		snprintf(path, sizeof(path), "%s/%s", jobs, file);
		if (access(path, F_OK) != 0)
			break;
	}
	free(base);
	if (!rc)
		rc = perun_instance_lock(inst, err);
	if (rc)
		goto out;
	/* The profile, its index entry (and object): one durable commit. */
	perun_durable_begin();
	batched = 1;
	/* Written as it is made: a million calls' profile is never held
	 * whole as text. */
	rc = perun_durable_write_with(path, write_pending_profile, profile, err);
	if (rc)
		goto out;
	if (path_out)
		memcpy(path_out, path, strnlen(path, PATH_MAX - 1) + 1),
			path_out[PATH_MAX - 1] = '\0';

	json_t *reg = perun_config_lookup(&inst->config, "profiles.register_after_run");
	const char *origin = perun_profile_origin(profile);
	struct stat st;
	stat(perun_durable_current(path), &st);
	if (json_is_true(reg) && origin && !(flags & PERUN_STORE_PENDING)) {
		struct perun_index idx;
		/* Registered at once: the pending file is not made unless the
		 * registration fails. */
		char created[PERUN_SHA1_HEX] = "";
		perun_durable_forget(path);
		rc = perun_minor_index_read(inst, origin, &idx, err);
		if (!rc) {
			rc = perun_minor_index_add(inst, &idx, profile, file,
						   perun_index_mtime(&st), created, err);
			if (rc >= 0)
				rc = perun_minor_index_write(inst, origin, &idx, err);
			perun_index_release(&idx);
		}
		batched = 0;
		if (rc >= 0) {
			rc = perun_durable_commit(err);
		} else {
			struct perun_error ignored = { 0 };
			perun_durable_abort();
			/* Kept pending, as a failed registration always left
			 * it. */
			perun_profile_save_file(profile, path, &ignored);
		}
		if (rc < 0) {
			char *objects = perun_instance_path(inst, "objects");
			perun_store_remove_object(objects, created);
			free(objects);
		}
		if (!rc && path_out)
			path_out[0] = '\0';
		goto out;
	}
	/* Keep the pending index in step, so status need not read the file. */
	char *index_path = perun_instance_path(inst, "jobs/.index");
	struct perun_index idx;
	if (perun_index_read(index_path, &idx, err) == 0) {
		char sha[PERUN_SHA1_HEX];
		perun_sha1_hex(path, strlen(path), sha);
		struct perun_index_entry e;
		/* Without memory the cache is left behind: status rebuilds it. */
		if (!perun_index_entry_fill(&e, perun_index_mtime(&st), sha, file, profile) &&
		    perun_index_insert(&idx, &e) >= 0)
			perun_index_write(index_path, &idx, err);
		perun_index_release(&idx);
	}
	perun_error_clear(err);
	free(index_path);
out:
	if (batched && rc) {
		perun_durable_abort();
	} else if (batched) {
		rc = perun_durable_commit(err);
		if (rc && path_out)
			path_out[0] = '\0'; /* nothing was kept */
	}
	free(jobs);
	return rc;
}

int perun_runner_timeout(const struct perun_params *params, const struct perun_config *config,
			 unsigned *timeout, struct perun_error *err)
{
	json_t *cfg = perun_config_lookup(config, "execute.timeout");
	long long t = cfg && json_is_integer(cfg) ? json_integer_value(cfg) : 0;
	if (cfg && !json_is_integer(cfg))
		return perun_error_set(err, PERUN_EINVAL,
				       "execute.timeout: not a number of seconds");
	if (params && perun_params_count(params, "timeout"))
		t = perun_params_int(params, "timeout", 0);
	if (t < 0 || t > 1000000000LL)
		return perun_error_set(err, PERUN_EINVAL,
				       "a timeout of %lld s is not a number of seconds", t);
	*timeout = (unsigned)t;
	return 0;
}
