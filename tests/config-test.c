/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests of core/config.c: YAML 1.1 scalar typing, the YAML round trip,
 * the runtime -> local -> shared levels, gather, set and the templates.
 * Everything is written below a fresh temporary directory.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "tap.h"

static char tmpdir[] = "/tmp/perun-config-test-XXXXXX";

static char *path_in_tmp(const char *name)
{
	char *path;
	if (asprintf(&path, "%s/%s", tmpdir, name) < 0)
		abort();
	return path;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
}

/* The JSON text of a value, compact, for comparisons. */
static char *dump(const json_t *value)
{
	return value ? json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT) : strdup("(none)");
}

static void check_scalar(const char *text, const char *want_json)
{
	json_t *value = perun_config_parse_scalar(text);
	char *got = dump(value);
	tap_is_str(got, want_json, "scalar '%s' types as %s", text, want_json);
	free(got);
	json_decref(value);
}

static void test_scalars(void)
{
	/* What PyYAML's safe_load makes of each plain scalar. */
	static const char *const table[][2] = {
		{ "~", "null" },
		{ "null", "null" },
		{ "Null", "null" },
		{ "NULL", "null" },
		{ "", "null" },
		{ "nul", "\"nul\"" },
		{ "yes", "true" },
		{ "Yes", "true" },
		{ "YES", "true" },
		{ "on", "true" },
		{ "true", "true" },
		{ "True", "true" },
		{ "no", "false" },
		{ "OFF", "false" },
		{ "False", "false" },
		{ "yEs", "\"yEs\"" },
		{ "y", "\"y\"" },
		{ "0", "0" },
		{ "42", "42" },
		{ "-17", "-17" },
		{ "+12", "12" },
		{ "1_000", "1000" },
		{ "017", "15" },
		{ "0x1F", "31" },
		{ "0b101", "5" },
		{ "1:30", "90" },
		{ "-1:00:00", "-3600" },
		{ "08", "\"08\"" },
		{ "0o17", "\"0o17\"" },
		{ "9223372036854775807", "9223372036854775807" },
		{ "-9223372036854775808", "-9223372036854775808" },
		{ "9223372036854775808", "\"9223372036854775808\"" },
		{ "3.5", "3.5" },
		{ "-2.5e+3", "-2500.0" },
		{ ".5", "0.5" },
		{ "1.", "1.0" },
		{ "1_0.2_5", "10.25" },
		{ "1:30.5", "90.5" },
		{ "1e3", "\"1e3\"" },
		{ "1.0e3", "\"1.0e3\"" },
		{ ".inf", "\".inf\"" },
		{ "-.inf", "\"-.inf\"" },
		{ ".NaN", "\".NaN\"" },
		{ "2001-12-14", "\"2001-12-14\"" },
		{ "hello world", "\"hello world\"" },
		{ "%desc%", "\"%desc%\"" },
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(*table); i++)
		check_scalar(table[i][0], table[i][1]);
}

static void test_round_trip(void)
{
	struct perun_error err = { 0 };
	const char *doc =
		"{\"s\": \"text\", \"looks_int\": \"42\", \"looks_bool\": \"no\",\n"
		" \"empty\": \"\", \"colon\": \"a: b\", \"dash\": \"- x\", \"hash\": \"# c\",\n"
		" \"quote\": \"it's \\\"q\\\"\", \"nl\": \"two\\nlines\", \"nul\": \"a\\u0000b\",\n"
		" \"utf\": \"\\u2503 \\u017e\", \"i\": -7, \"big\": 9223372036854775807,\n"
		" \"r\": 0.1, \"r2\": 1e+16, \"r3\": 1e-05, \"r4\": 1000.0, \"t\": true,\n"
		" \"f\": false, \"n\": null, \"list\": [1, [2, []], {}], \"yes\": 1,\n"
		" \"nested\": {\"a\": {\"b\": [\"x\", {\"c\": null}]}},\n"
		" \"e12\": \"1e3\", \"o12\": \"0o17\", \"z12\": \"08\"}";
	json_t *value = json_loads(doc, JSON_ALLOW_NUL, NULL), *back = NULL;
	char *path = path_in_tmp("round.yml");
	if (!tap_ok(value != NULL, "round-trip fixture parses"))
		abort();
	int rc = perun_yaml_save_file(path, value, &err);
	tap_ok(rc == 0, "save a tree as YAML (%s)", err.message);
	rc = perun_yaml_load_file(path, &back, &err);
	tap_ok(rc == 0, "load it back (%s)", err.message);
	tap_ok(back && json_equal(value, back), "the tree survives YAML unchanged");
	char *text = NULL;
	perun_file_read(path, &text, NULL, &err);
	tap_ok(text && strstr(text, "looks_int: '42'\n") && strstr(text, "nested:\n  a:\n    b:\n"),
	       "strings looking like other types are quoted; block style");
	tap_ok(text && strstr(text, "e12: '1e3'\n") && strstr(text, "o12: '0o17'\n") &&
		       strstr(text, "z12: '08'\n"),
	       "strings YAML 1.2 takes for numbers are quoted");
	/* Key order is the order of the file. */
	const char *first = NULL;
	void *iter = back ? json_object_iter(back) : NULL;
	if (iter)
		first = json_object_iter_key(iter);
	tap_is_str(first, "s", "mapping order is kept");
	free(text);
	free(path);
	json_decref(value);
	json_decref(back);
}

static void check_load_error(const char *yaml, const char *want)
{
	struct perun_error err = { 0 };
	json_t *value = NULL;
	int rc = perun_yaml_load_buffer(yaml, strlen(yaml), "doc", &value, &err);
	tap_ok(rc < 0 && value == NULL, "malformed YAML is refused: %s", want);
	tap_is_str(err.message, want, "its message");
}

static void test_load_errors(void)
{
	check_load_error(
		"a: b: c\n",
		"cannot parse 'doc': line 1: mapping values are not allowed in this context");
	check_load_error("a: 1\na: 2\n", "cannot parse 'doc': line 2: duplicate key 'a'");
	check_load_error("? [a]\n: 1\n", "cannot parse 'doc': line 1: keys must be plain scalars");
	check_load_error("a: !!float abc\n",
			 "cannot parse 'doc': line 1: 'abc' is not a valid !!float");
	/* Very deep nesting is an error, not a stack overflow. */
	size_t depth = 100000;
	char *deep = malloc(2 * depth + 1);
	memset(deep, '[', depth);
	memset(deep + depth, ']', depth);
	deep[2 * depth] = '\0';
	struct perun_error err = { 0 };
	json_t *value = NULL;
	int rc = perun_yaml_load_buffer(deep, 2 * depth, "deep", &value, &err);
	tap_ok(rc < 0 && strstr(err.message, "nested too deeply"), "deep nesting is refused (%s)",
	       err.message);
	free(deep);
	/* Aliases share; a document they would expand past a million values
	 * (a "billion laughs", which saving or formatting writes out) is
	 * refused, one below that loads. */
	const char *laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
			     "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
			     "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
			     "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
			     "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n";
	rc = perun_yaml_load_buffer(laughs, strlen(laughs), "laughs", &value, &err);
	tap_ok(rc == 0 && json_array_size(json_object_get(value, "e")) == 10,
	       "aliases load as shared values");
	json_decref(value);
	const char *bomb_tail = "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n";
	char bomb[1024];
	snprintf(bomb, sizeof(bomb), "%s%s", laughs, bomb_tail);
	rc = perun_yaml_load_buffer(bomb, strlen(bomb), "bomb", &value, &err);
	tap_ok(rc < 0 && strstr(err.message, "line 6: aliases expand the document past"),
	       "an alias bomb is refused (%s)", err.message);
	rc = perun_yaml_load_buffer("", 0, "empty", &value, &err);
	tap_ok(rc == 0 && json_is_null(value), "an empty document is null");
	json_decref(value);
}

static void test_levels(void)
{
	struct perun_error err = { 0 };
	struct perun_config cfg;
	char *local = path_in_tmp("local.yml");
	char *shared = path_in_tmp("shared.yml");
	write_file(local, "format:\n  shortlog: local\ndegradation:\n  strategies: {method: loc}\n"
			  "only_local: 1\n");
	int rc = perun_config_init(&cfg, local, &err);
	tap_ok(rc == 0, "init with a local file (%s)", err.message);
	tap_ok(access(shared, F_OK) == 0, "the shared file is created");
	tap_is_str(cfg.path[PERUN_CONFIG_SHARED], shared, "it lives in $PERUN_CONFIG_DIR");
	tap_is_str(perun_config_lookup_string(&cfg, "format.shortlog", NULL), "local",
		   "local overrides shared");
	tap_is_str(
		json_string_value(perun_config_get(&cfg, PERUN_CONFIG_SHARED, "format.shortlog")),
		"%checksum:6% (%stats%) %desc% %changes%", "the shared default stays");
	tap_is_str(perun_config_lookup_string(&cfg, "general.editor", NULL), "vim",
		   "shared answers what local does not set");
	tap_is_str(perun_config_lookup_string(&cfg, "only_local", "fallback"), "fallback",
		   "lookup_string falls back for a non-string");
	tap_ok(perun_config_lookup(&cfg, "general.editor.deeper") == NULL,
	       "a path through a scalar is absent");
	tap_ok(perun_config_lookup(&cfg, "bad key") == NULL, "an invalid key is absent");

	json_t *value = perun_config_parse_scalar("runtime");
	rc = perun_config_set(&cfg, PERUN_CONFIG_RUNTIME, "format.shortlog", value, &err);
	tap_ok(rc == 0, "set at the runtime level");
	tap_is_str(perun_config_lookup_string(&cfg, "format.shortlog", NULL), "runtime",
		   "runtime overrides local");
	char *text = NULL;
	perun_file_read(local, &text, NULL, &err);
	tap_ok(text && !strstr(text, "runtime"), "runtime values are not saved");
	free(text);

	json_t *list = json_pack("[{s:s}]", "method", "run");
	perun_config_set(&cfg, PERUN_CONFIG_RUNTIME, "degradation.strategies", list, &err);
	json_t *all = perun_config_gather(&cfg, "degradation.strategies");
	char *got = dump(all);
	tap_is_str(got,
		   "[{\"method\":\"run\"},{\"method\":\"loc\"},"
		   "{\"collector\":\"instructions\",\"method\":\"average_amount_threshold\","
		   "\"options\":{\"threshold\":1.05}},"
		   "{\"collector\":\"instructions\",\"method\":\"none\"},"
		   "{\"interleaved\":true,\"subtype\":\"user\","
		   "\"method\":\"average_amount_threshold\",\"options\":{\"threshold\":1.05}},"
		   "{\"interleaved\":true,\"method\":\"average_amount_threshold\"},"
		   "{\"interleaved\":true,\"method\":\"none\"},"
		   "{\"method\":\"average_amount_threshold\"}]",
		   "gather concatenates runtime, local and shared");
	free(got);
	json_decref(all);
	all = perun_config_gather(&cfg, "no.such.key");
	tap_ok(json_is_array(all) && json_array_size(all) == 0, "gather of nothing is []");
	json_decref(all);

	rc = perun_config_set(&cfg, PERUN_CONFIG_LOCAL, "new.section.key",
			      perun_config_parse_scalar("0x10"), &err);
	tap_ok(rc == 0, "set a new nested local key");
	struct perun_config again;
	rc = perun_config_init(&again, local, &err);
	tap_ok(rc == 0 && json_integer_value(perun_config_get(&again, PERUN_CONFIG_LOCAL,
							      "new.section.key")) == 16,
	       "it is saved in local.yml");
	tap_ok(perun_config_get(&again, PERUN_CONFIG_LOCAL, "only_local") != NULL,
	       "other local keys are kept");
	perun_config_release(&again);

	rc = perun_config_set(&cfg, PERUN_CONFIG_LOCAL, "only_local.x", json_integer(1), &err);
	tap_is_str(err.message, "cannot set 'only_local.x': 'only_local' is not a section",
		   "set through a scalar fails");
	rc = perun_config_set(&cfg, PERUN_CONFIG_LOCAL, "a..b", json_integer(1), &err);
	tap_ok(rc == -PERUN_EINVAL, "set of an invalid key fails");
	perun_config_release(&cfg);

	rc = perun_config_init(&cfg, NULL, &err);
	rc = perun_config_set(&cfg, PERUN_CONFIG_LOCAL, "a", json_integer(1), &err);
	tap_ok(rc == -PERUN_ENOTFOUND, "no local level without a local file path");
	perun_config_release(&cfg);

	write_file(local, "- not\n- a mapping\n");
	rc = perun_config_init(&cfg, local, &err);
	char *want;
	if (asprintf(&want, "corrupted configuration file '%s': line 1: expected a mapping of keys",
		     local) < 0)
		abort();
	tap_is_str(err.message, want, "a local file that is not a mapping is refused");
	tap_ok(rc < 0 && cfg.level[PERUN_CONFIG_SHARED] == NULL, "nothing stays loaded");
	free(want);
	free(local);
	free(shared);
}

static void test_keys(void)
{
	static const char *const good[] = { "a", "a.b", "A_1.b2.C_3", "0", NULL };
	static const char *const bad[] = { "",	  ".",	 "a.",	".a",	    "a..b",
					   "a b", "a-b", "a/b", "\xc5\xbe", NULL };
	for (const char *const *k = good; *k; k++)
		tap_ok(perun_config_key_valid(*k), "key '%s' is valid", *k);
	for (const char *const *k = bad; *k; k++)
		tap_ok(!perun_config_key_valid(*k), "key '%s' is invalid", *k);
}

static void test_inline(void)
{
	json_t *value = json_loads("{\"a\": [1, \"two\", 0.5, null, true], \"b\": {\"c\": \"yes\"},"
				   " \"e\": []}",
				   0, NULL);
	char *text = perun_yaml_format_inline(value);
	tap_is_str(text, "{a: [1, two, 0.5, null, true], b: {c: 'yes'}, e: []}",
		   "containers print in flow style");
	free(text);
	json_decref(value);
	value = json_string("plain text: kept");
	text = perun_yaml_format_inline(value);
	tap_is_str(text, "plain text: kept", "a top-level string prints as it is");
	free(text);
	json_decref(value);
	value = json_real(1e16);
	text = perun_yaml_format_inline(value);
	tap_is_str(text, "1.0e+16", "floats print like Python, float-looking");
	free(text);
	json_decref(value);
}

static void test_templates(void)
{
	struct perun_error err = { 0 };
	tap_ok(perun_config_template_dup("nosuch", "git", "../") == NULL,
	       "an unknown template is NULL");
	const char *const names[] = { "master", "developer", "user" };
	for (size_t i = 0; i < 3; i++) {
		/* A vcs url that needs quoting must come back the same. */
		char *text = perun_config_template_dup(names[i], "git", "../a: 'b' \"c\" #d");
		json_t *value = NULL;
		int rc = text ? perun_yaml_load_buffer(text, strlen(text), names[i], &value, &err)
			      : -1;
		tap_ok(rc == 0, "the %s template is valid YAML (%s)", names[i], err.message);
		tap_is_str(json_string_value(json_object_get(json_object_get(value, "vcs"), "url")),
			   "../a: 'b' \"c\" #d", "its vcs.url reads back");
		tap_ok((json_object_get(value, "execute") != NULL) == (i > 0),
		       "execute.pre_run only outside master");
		tap_ok((json_object_get(value, "collectors") != NULL) == (i == 2),
		       "collectors only in user");
		json_decref(value);
		free(text);
	}
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 99;
	setenv("PERUN_CONFIG_DIR", tmpdir, 1);
	/* The user template scans the current directory: an empty one. */
	if (chdir(tmpdir) < 0)
		return 99;
	test_scalars();
	test_round_trip();
	test_load_errors();
	test_keys();
	test_inline();
	test_levels();
	test_templates();
	char *cmd;
	if (asprintf(&cmd, "rm -rf '%s'", tmpdir) >= 0) {
		if (system(cmd) != 0)
			tap_diag("could not remove %s", tmpdir);
		free(cmd);
	}
	return tap_done();
}
