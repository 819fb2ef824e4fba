/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Configuration levels and the YAML <-> JSON mapping behind them.  YAML is
 * parsed and emitted by libyaml; plain scalars are typed the way YAML 1.1
 * (PyYAML's safe_load) does, so files written by Python Perun read back with
 * the same values.
 */
#define _GNU_SOURCE /* asprintf */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <yaml.h>

#include "config.h"

/* Deeper documents are refused rather than overflowing the stack. */
#define YAML_MAX_DEPTH 512

/* ---- scalar typing ------------------------------------------------------ */

enum scalar_kind {
	SCALAR_NULL,
	SCALAR_BOOL,
	SCALAR_INT,
	SCALAR_FLOAT,
	SCALAR_STRING,
};

/* PyYAML's implicit resolvers (resolver.py), as POSIX extended regexes. */
static const char *const int_patterns =
	"^([-+]?0b[01_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
	"|[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+)$";
static const char *const float_patterns =
	"^([-+]?[0-9][0-9_]*\\.[0-9_]*([eE][-+][0-9]+)?|\\.[0-9_]+([eE][-+][0-9]+)?"
	"|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\\.[0-9_]*|[-+]?\\.(inf|Inf|INF)"
	"|\\.(nan|NaN|NAN))$";

static int matches(const char *pattern, regex_t *re, int *ready, const char *s)
{
	if (!*ready) {
		if (regcomp(re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
			return 0;
		*ready = 1;
	}
	return regexec(re, s, 0, NULL, 0) == 0;
}

static int one_of(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(s, *words))
			return 1;
	return 0;
}

static const char *const null_words[] = {"~", "null", "Null", "NULL", "", NULL};
static const char *const true_words[] = {"yes", "Yes", "YES", "true", "True",
					 "TRUE", "on", "On", "ON", NULL};
static const char *const false_words[] = {"no", "No", "NO", "false", "False",
					  "FALSE", "off", "Off", "OFF", NULL};

static enum scalar_kind classify(const char *s, size_t len)
{
	static regex_t int_re, float_re;
	static int int_ready, float_ready;
	if (strlen(s) != len)
		return SCALAR_STRING; /* embedded NUL: never a number */
	if (one_of(s, null_words))
		return SCALAR_NULL;
	if (one_of(s, true_words) || one_of(s, false_words))
		return SCALAR_BOOL;
	if (matches(int_patterns, &int_re, &int_ready, s))
		return SCALAR_INT;
	if (matches(float_patterns, &float_re, &float_ready, s))
		return SCALAR_FLOAT;
	return SCALAR_STRING;
}

/*
 * Does s, written plain, read back as this string?  Python Perun reads with
 * ruamel's YAML 1.2 rules, which also take 1e3 and 0o17 as numbers, so
 * those are quoted too.
 */
static int plain_reads_as_string(const char *s, size_t len)
{
	static regex_t re;
	static int ready;
	static const char *const yaml12_numbers =
		"^([-+]?(\\.[0-9_]+|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?"
		"|[-+]?0o[0-7_]+)$";
	return len && classify(s, len) == SCALAR_STRING &&
	       !matches(yaml12_numbers, &re, &ready, s);
}

/* Copy s without '_' and split off the sign; returns the sign. */
static int strip_number(const char *s, char *out, size_t size)
{
	int sign = 1;
	size_t n = 0;
	if (*s == '-' || *s == '+')
		sign = *s++ == '-' ? -1 : 1;
	for (; *s && n + 1 < size; s++)
		if (*s != '_')
			out[n++] = *s;
	out[n] = '\0';
	return sign;
}

/* Base-60 "1:30:05" as a double (integral or with a fraction). */
static double sexagesimal(const char *digits)
{
	double value = 0;
	char *end;
	const char *p = digits;
	for (;;) {
		double part = strtod(p, &end);
		value = value * 60 + part;
		if (*end != ':')
			break;
		p = end + 1;
	}
	return value;
}

static json_t *make_int(const char *s)
{
	char digits[128];
	int sign = strip_number(s, digits, sizeof(digits));
	if (strchr(digits, ':')) {
		double v = sexagesimal(digits);
		if (v > (double)LLONG_MAX)
			return NULL;
		return json_integer(sign * (json_int_t)v);
	}
	int base = 10;
	const char *p = digits;
	if (p[0] == '0' && p[1] == 'b') {
		base = 2;
		p += 2;
	} else if (p[0] == '0' && p[1] == 'x') {
		base = 16;
		p += 2;
	} else if (p[0] == '0' && p[1]) {
		base = 8;
		p += 1;
	}
	errno = 0;
	unsigned long long u = strtoull(p, NULL, base);
	if (errno == ERANGE || u > (unsigned long long)LLONG_MAX + (sign < 0))
		return NULL; /* JSON integers are 64-bit: keep the text */
	if (sign < 0)
		return json_integer(u == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN
							    : -(json_int_t)u);
	return json_integer((json_int_t)u);
}

static json_t *make_float(const char *s)
{
	char digits[128];
	int sign = strip_number(s, digits, sizeof(digits));
	double v;
	/* .inf and .nan have no JSON form: they stay text. */
	if (strpbrk(digits, "iInN"))
		return NULL;
	if (strchr(digits, ':'))
		v = sexagesimal(digits);
	else
		v = strtod(digits, NULL);
	return isfinite(v) ? json_real(sign * v) : NULL;
}

/* A plain scalar typed like YAML 1.1; strings for anything else. */
static json_t *resolve_plain(const char *s, size_t len)
{
	json_t *value = NULL;
	switch (classify(s, len)) {
	case SCALAR_NULL:
		return json_null();
	case SCALAR_BOOL:
		return json_boolean(one_of(s, true_words));
	case SCALAR_INT:
		value = make_int(s);
		break;
	case SCALAR_FLOAT:
		value = make_float(s);
		break;
	case SCALAR_STRING:
		break;
	}
	return value ? value : json_stringn(s, len);
}

json_t *perun_config_parse_scalar(const char *text)
{
	return resolve_plain(text, strlen(text));
}

/* ---- YAML loading ----------------------------------------------------- */

struct loader {
	yaml_parser_t parser;
	json_t *anchors; /* anchor name -> value, for aliases */
};

static int parser_error(struct loader *ld, struct perun_error *err)
{
	const yaml_parser_t *p = &ld->parser;
	const yaml_mark_t *mark = p->problem ? &p->problem_mark : &p->context_mark;
	return perun_error_set(err, PERUN_EINVAL, "line %zu: %s", mark->line + 1,
			       p->problem ? p->problem : "malformed document");
}

static int next_event(struct loader *ld, yaml_event_t *ev, struct perun_error *err)
{
	if (!yaml_parser_parse(&ld->parser, ev))
		return parser_error(ld, err);
	return 0;
}

static void remember_anchor(struct loader *ld, const yaml_char_t *anchor,
			    json_t *value)
{
	if (anchor)
		json_object_set(ld->anchors, (const char *)anchor, value);
}

static int load_scalar(yaml_event_t *ev, json_t **out, struct perun_error *err)
{
	const char *text = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	const char *tag = (const char *)ev->data.scalar.tag;
	int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	json_t *value;
	if (tag && !strcmp(tag, YAML_STR_TAG)) {
		value = json_stringn(text, len);
	} else if (tag && (!strcmp(tag, YAML_INT_TAG) || !strcmp(tag, YAML_FLOAT_TAG) ||
			   !strcmp(tag, YAML_BOOL_TAG) || !strcmp(tag, YAML_NULL_TAG))) {
		/* An explicit core tag must agree with what the text is. */
		value = resolve_plain(text, len);
		const char *want = tag + strlen("tag:yaml.org,2002:");
		int ok = (!strcmp(want, "int") && json_is_integer(value)) ||
			 (!strcmp(want, "float") && json_is_number(value)) ||
			 (!strcmp(want, "bool") && json_is_boolean(value)) ||
			 (!strcmp(want, "null") && json_is_null(value));
		if (ok && !strcmp(want, "float") && json_is_integer(value)) {
			json_t *real = json_real((double)json_integer_value(value));
			json_decref(value);
			value = real;
		}
		if (!ok) {
			json_decref(value);
			return perun_error_set(err, PERUN_EINVAL,
					       "line %zu: '%.*s' is not a valid !!%s",
					       ev->start_mark.line + 1, (int)len, text, want);
		}
	} else if (plain) {
		value = resolve_plain(text, len);
	} else {
		value = json_stringn(text, len);
	}
	if (!value)
		return perun_error_set(err, PERUN_EINVAL, "line %zu: invalid text",
				       ev->start_mark.line + 1);
	*out = value;
	return 0;
}

static int load_node(struct loader *ld, yaml_event_t *ev, int depth, json_t **out,
		     struct perun_error *err);

/* The next event inside a collection: 1 with an item in *ev, 0 at its end. */
static int next_item(struct loader *ld, yaml_event_type_t end, yaml_event_t *ev,
		     struct perun_error *err)
{
	int rc = next_event(ld, ev, err);
	if (rc)
		return rc;
	if (ev->type == end) {
		yaml_event_delete(ev);
		return 0;
	}
	return 1;
}

static int load_sequence(struct loader *ld, int depth, json_t *seq,
			 struct perun_error *err)
{
	yaml_event_t ev;
	int rc;
	while ((rc = next_item(ld, YAML_SEQUENCE_END_EVENT, &ev, err)) > 0) {
		json_t *item = NULL;
		rc = load_node(ld, &ev, depth + 1, &item, err);
		yaml_event_delete(&ev);
		if (rc)
			return rc;
		json_array_append_new(seq, item);
	}
	return rc;
}

static int load_mapping(struct loader *ld, int depth, json_t *map,
			struct perun_error *err)
{
	yaml_event_t ev;
	int rc;
	while ((rc = next_item(ld, YAML_MAPPING_END_EVENT, &ev, err)) > 0) {
		size_t line = ev.start_mark.line + 1;
		if (ev.type != YAML_SCALAR_EVENT) {
			yaml_event_delete(&ev);
			return perun_error_set(err, PERUN_EINVAL,
					       "line %zu: keys must be plain scalars", line);
		}
		char *key = strndup((const char *)ev.data.scalar.value,
				    ev.data.scalar.length);
		json_t *key_value = json_string(key);
		remember_anchor(ld, ev.data.scalar.anchor, key_value);
		json_decref(key_value);
		yaml_event_delete(&ev);
		json_t *value = NULL;
		if (json_object_get(map, key))
			rc = perun_error_set(err, PERUN_EINVAL, "line %zu: duplicate key '%s'",
					     line, key);
		else
			rc = next_event(ld, &ev, err);
		if (!rc) {
			rc = load_node(ld, &ev, depth + 1, &value, err);
			yaml_event_delete(&ev);
		}
		if (!rc)
			json_object_set_new(map, key, value);
		free(key);
		if (rc)
			return rc;
	}
	return rc;
}

static int load_node(struct loader *ld, yaml_event_t *ev, int depth, json_t **out,
		     struct perun_error *err)
{
	int rc = 0;
	json_t *value = NULL;
	if (depth > YAML_MAX_DEPTH)
		return perun_error_set(err, PERUN_EINVAL, "line %zu: nested too deeply",
				       ev->start_mark.line + 1);
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		rc = load_scalar(ev, &value, err);
		if (!rc)
			remember_anchor(ld, ev->data.scalar.anchor, value);
		break;
	case YAML_ALIAS_EVENT:
		value = json_incref(json_object_get(ld->anchors,
						    (const char *)ev->data.alias.anchor));
		if (!value)
			rc = perun_error_set(err, PERUN_EINVAL,
					     "line %zu: found undefined alias '%s'",
					     ev->start_mark.line + 1,
					     (const char *)ev->data.alias.anchor);
		break;
	case YAML_SEQUENCE_START_EVENT:
		value = json_array();
		rc = load_sequence(ld, depth, value, err);
		if (!rc)
			remember_anchor(ld, ev->data.sequence_start.anchor, value);
		break;
	case YAML_MAPPING_START_EVENT:
		value = json_object();
		rc = load_mapping(ld, depth, value, err);
		if (!rc)
			remember_anchor(ld, ev->data.mapping_start.anchor, value);
		break;
	default:
		rc = perun_error_set(err, PERUN_EINVAL, "line %zu: unexpected event",
				     ev->start_mark.line + 1);
		break;
	}
	if (rc) {
		json_decref(value);
		return rc;
	}
	*out = value;
	return 0;
}

/* Errors are "line N: problem"; callers name the file. */
static int yaml_load(const char *buf, size_t len, json_t **out,
		     struct perun_error *err)
{
	struct loader ld;
	yaml_event_t ev;
	json_t *root = NULL;
	int rc, started = 0;
	*out = NULL;
	if (!yaml_parser_initialize(&ld.parser))
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	yaml_parser_set_input_string(&ld.parser, (const unsigned char *)buf, len);
	ld.anchors = json_object();
	for (;;) {
		rc = next_event(&ld, &ev, err);
		if (rc)
			goto out;
		yaml_event_type_t type = ev.type;
		if (type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (type == YAML_DOCUMENT_START_EVENT && started) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "line %zu: expected a single document in the stream",
					     ev.start_mark.line + 1);
			yaml_event_delete(&ev);
			goto out;
		}
		if (type == YAML_DOCUMENT_START_EVENT)
			started = 1;
		if (type != YAML_STREAM_START_EVENT && type != YAML_DOCUMENT_START_EVENT &&
		    type != YAML_DOCUMENT_END_EVENT)
			rc = load_node(&ld, &ev, 0, &root, err);
		yaml_event_delete(&ev);
		if (rc)
			goto out;
	}
	*out = root ? root : json_null();
	root = NULL;
out:
	json_decref(root);
	json_decref(ld.anchors);
	yaml_parser_delete(&ld.parser);
	return rc;
}

int perun_yaml_load_buffer(const char *buf, size_t len, const char *name,
			   json_t **out, struct perun_error *err)
{
	int rc = yaml_load(buf, len, out, err);
	if (rc)
		perun_error_prefix(err, "cannot parse '%s'", name);
	return rc;
}

int perun_yaml_load_file(const char *path, json_t **out, struct perun_error *err)
{
	char *buf;
	size_t len;
	int rc = perun_file_read(path, &buf, &len, err);
	if (rc)
		return rc;
	rc = perun_yaml_load_buffer(buf, len, path, out, err);
	free(buf);
	return rc;
}

/* ---- YAML emitting ---------------------------------------------------- */

/*
 * Like Python's repr(): the shortest digits that read back as the same
 * double, positional for exponents -4..15, and always float-looking
 * ("1.0", "1.0e+16") so YAML reads a float back.
 */
static void format_real(double v, char *out, size_t size)
{
	int prec, exponent;
	for (prec = 1; prec < 17; prec++) {
		snprintf(out, size, "%.*e", prec - 1, v);
		if (strtod(out, NULL) == v)
			break;
	}
	snprintf(out, size, "%.*e", prec - 1, v);
	exponent = atoi(strchr(out, 'e') + 1);
	if (exponent >= -4 && exponent < 16) {
		int decimals = prec - 1 - exponent;
		snprintf(out, size, "%.*f", decimals > 0 ? decimals : 0, v);
	} else {
		snprintf(out, size, "%.*g", prec, v);
	}
	if (strchr(out, '.'))
		return;
	char *e = strchr(out, 'e');
	if (e) {
		char tail[16];
		snprintf(tail, sizeof(tail), "%s", e);
		snprintf(e, size - (size_t)(e - out), ".0%s", tail);
	} else {
		size_t n = strlen(out);
		snprintf(out + n, size - n, ".0");
	}
}

static int emit_scalar(yaml_emitter_t *em, const char *text, size_t len,
		       int as_string)
{
	yaml_event_t ev;
	/* A string that would read back as another type must be quoted. */
	int plain_ok = !as_string || plain_reads_as_string(text, len);
	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)text, (int)len,
				     plain_ok, 1,
				     plain_ok ? YAML_ANY_SCALAR_STYLE
					      : YAML_SINGLE_QUOTED_SCALAR_STYLE);
	return yaml_emitter_emit(em, &ev);
}

static int emit_value(yaml_emitter_t *em, const json_t *value, int flow)
{
	yaml_event_t ev;
	char num[64];
	switch (json_typeof(value)) {
	case JSON_OBJECT: {
		const char *key;
		const json_t *item;
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
						    flow ? YAML_FLOW_MAPPING_STYLE
							 : YAML_BLOCK_MAPPING_STYLE);
		if (!yaml_emitter_emit(em, &ev))
			return 0;
		json_object_foreach((json_t *)value, key, item)
			if (!emit_scalar(em, key, strlen(key), 1) ||
			    !emit_value(em, item, flow))
				return 0;
		yaml_mapping_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev);
	}
	case JSON_ARRAY: {
		size_t i;
		const json_t *item;
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
						     flow ? YAML_FLOW_SEQUENCE_STYLE
							  : YAML_BLOCK_SEQUENCE_STYLE);
		if (!yaml_emitter_emit(em, &ev))
			return 0;
		json_array_foreach(value, i, item)
			if (!emit_value(em, item, flow))
				return 0;
		yaml_sequence_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev);
	}
	case JSON_STRING:
		return emit_scalar(em, json_string_value(value), json_string_length(value), 1);
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(value));
		return emit_scalar(em, num, strlen(num), 0);
	case JSON_REAL:
		format_real(json_real_value(value), num, sizeof(num));
		return emit_scalar(em, num, strlen(num), 0);
	case JSON_TRUE:
		return emit_scalar(em, "true", 4, 0);
	case JSON_FALSE:
		return emit_scalar(em, "false", 5, 0);
	case JSON_NULL:
		return emit_scalar(em, "null", 4, 0);
	}
	return 0;
}

static int yaml_write_handler(void *data, unsigned char *buffer, size_t size)
{
	return fwrite(buffer, 1, size, data) == size;
}

/* Render value as a block- or flow-style YAML document, malloc'd. */
static int yaml_dump(const json_t *value, int flow, char **out, size_t *len,
		     struct perun_error *err)
{
	yaml_emitter_t em;
	yaml_event_t ev;
	int ok;
	FILE *mem = open_memstream(out, len);
	if (!mem)
		return perun_error_set_errno(err, PERUN_EGENERIC, errno, "out of memory");
	if (!yaml_emitter_initialize(&em)) {
		fclose(mem);
		free(*out);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	yaml_emitter_set_output(&em, yaml_write_handler, mem);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_indent(&em, 2);
	yaml_emitter_set_width(&em, -1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	ok = yaml_emitter_emit(&em, &ev);
	if (ok) {
		yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
		ok = yaml_emitter_emit(&em, &ev);
	}
	ok = ok && emit_value(&em, value, flow);
	if (ok) {
		yaml_document_end_event_initialize(&ev, 1);
		ok = yaml_emitter_emit(&em, &ev);
	}
	if (ok) {
		yaml_stream_end_event_initialize(&ev);
		ok = yaml_emitter_emit(&em, &ev) && yaml_emitter_flush(&em);
	}
	int rc = 0;
	if (!ok)
		rc = perun_error_set(err, PERUN_EGENERIC, "cannot write YAML: %s",
				     em.problem ? em.problem : "emitter error");
	yaml_emitter_delete(&em);
	if (fclose(mem) != 0 && !rc)
		rc = perun_error_set_errno(err, PERUN_EGENERIC, errno, "out of memory");
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

int perun_yaml_save_file(const char *path, const json_t *value,
			 struct perun_error *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc = yaml_dump(value, 0, &text, &len, err);
	if (rc)
		return rc;
	rc = perun_file_write_atomic(path, text, len, err);
	free(text);
	return rc;
}

char *perun_yaml_format_inline(const json_t *value)
{
	char num[64];
	switch (json_typeof(value)) {
	case JSON_OBJECT:
	case JSON_ARRAY: {
		char *text = NULL;
		size_t len = 0;
		if (yaml_dump(value, 1, &text, &len, NULL))
			return NULL;
		while (len && text[len - 1] == '\n')
			text[--len] = '\0';
		return text;
	}
	case JSON_STRING:
		return strdup(json_string_value(value));
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(value));
		return strdup(num);
	case JSON_REAL:
		format_real(json_real_value(value), num, sizeof(num));
		return strdup(num);
	case JSON_TRUE:
		return strdup("true");
	case JSON_FALSE:
		return strdup("false");
	case JSON_NULL:
		return strdup("null");
	}
	return NULL;
}

/* ---- levels ----------------------------------------------------------- */

/* Perun's shared defaults (logic/config.py: init_shared_config_at). */
static const char shared_defaults[] =
	"general:\n"
	"  editor: vim\n"
	"  paging: only-log\n"
	"format:\n"
	"  status: \"\u2503 %type% \u2503 %collector%  \u2503 (%time%) \u2503 %source% \u2503\"\n"
	"  shortlog: \"%checksum:6% (%stats%) %desc% %changes%\"\n"
	"  output_profile_template: \"%collector%-%cmd%-%workload%-%date%\"\n"
	"  output_show_template: \"%collector%-%cmd%-%workload%-%date%\"\n"
	"  sort_profiles_by: time\n"
	"degradation:\n"
	"  apply: all\n"
	"  strategies:\n"
	"    - method: average_amount_threshold\n"
	"generators:\n"
	"  workload:\n"
	"    - {id: basic_strings, type: string, min_len: 8, max_len: 128, step: 8}\n"
	"    - {id: basic_integers, type: integer, min_range: 100, max_range: 10000,"
	" step: 200}\n"
	"    - {id: basic_files, type: textfile, min_lines: 10, max_lines: 10000,"
	" step: 1000}\n";

/* $PERUN_CONFIG_DIR/shared.yml, else the XDG or ~/.config location. */
static char *shared_config_path(struct perun_error *err)
{
	const char *dir = getenv("PERUN_CONFIG_DIR");
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char *path = NULL;
	int n;
	if (dir && *dir)
		n = asprintf(&path, "%s/shared.yml", dir);
	else if (xdg && *xdg)
		n = asprintf(&path, "%s/perun/shared.yml", xdg);
	else if (home && *home)
		n = asprintf(&path, "%s/.config/perun/shared.yml", home);
	else {
		perun_error_set(err, PERUN_EINVAL,
				"cannot locate the shared configuration: "
				"set PERUN_CONFIG_DIR or HOME");
		return NULL;
	}
	if (n < 0) {
		perun_error_set(err, PERUN_EGENERIC, "out of memory");
		return NULL;
	}
	return path;
}

/* Write the shared defaults to path; also used by 'config reset'. */
int perun_config_reset_shared(const char *path, struct perun_error *err)
{
	json_t *defaults = NULL;
	char *dir = strdup(path);
	char *slash = strrchr(dir, '/');
	int rc = 0;
	if (slash && slash != dir) {
		*slash = '\0';
		rc = perun_mkdirs(dir, 0755, err);
	}
	free(dir);
	if (!rc)
		rc = yaml_load(shared_defaults, sizeof(shared_defaults) - 1, &defaults, err);
	if (!rc)
		rc = perun_yaml_save_file(path, defaults, err);
	json_decref(defaults);
	return rc;
}

/* Read one level's file; a missing file reads as an empty mapping. */
static int load_level(const char *path, json_t **out, struct perun_error *err)
{
	char *buf;
	size_t len;
	int rc = perun_file_read(path, &buf, &len, err);
	if (rc == -PERUN_ENOTFOUND) {
		perun_error_clear(err);
		*out = json_object();
		return 0;
	}
	if (rc)
		return rc;
	rc = yaml_load(buf, len, out, err);
	free(buf);
	if (!rc && json_is_null(*out)) {
		json_decref(*out);
		*out = json_object();
	} else if (!rc && !json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		rc = perun_error_set(err, PERUN_EINVAL, "line 1: expected a mapping of keys");
	}
	if (rc)
		perun_error_prefix(err, "corrupted configuration file '%s'", path);
	return rc;
}

int perun_config_init(struct perun_config *cfg, const char *local_path,
		      struct perun_error *err)
{
	int rc;
	memset(cfg, 0, sizeof(*cfg));
	cfg->level[PERUN_CONFIG_RUNTIME] = json_object();
	cfg->path[PERUN_CONFIG_SHARED] = shared_config_path(err);
	if (!cfg->path[PERUN_CONFIG_SHARED]) {
		rc = -err->code;
		goto out;
	}
	/*
	 * A missing shared file is created with the defaults; where it cannot
	 * be (a read-only home), the defaults serve from memory and only
	 * saving to it fails.
	 */
	if (access(cfg->path[PERUN_CONFIG_SHARED], F_OK) != 0 &&
	    perun_config_reset_shared(cfg->path[PERUN_CONFIG_SHARED], err) != 0) {
		perun_error_clear(err);
		rc = yaml_load(shared_defaults, sizeof(shared_defaults) - 1,
			       &cfg->level[PERUN_CONFIG_SHARED], err);
	} else {
		rc = load_level(cfg->path[PERUN_CONFIG_SHARED],
				&cfg->level[PERUN_CONFIG_SHARED], err);
	}
	if (rc || !local_path)
		goto out;
	cfg->path[PERUN_CONFIG_LOCAL] = strdup(local_path);
	rc = load_level(local_path, &cfg->level[PERUN_CONFIG_LOCAL], err);
out:
	if (rc)
		perun_config_release(cfg);
	return rc;
}

void perun_config_release(struct perun_config *cfg)
{
	for (int i = 0; i < 3; i++) {
		json_decref(cfg->level[i]);
		free(cfg->path[i]);
		cfg->level[i] = NULL;
		cfg->path[i] = NULL;
	}
}

int perun_config_key_valid(const char *key)
{
	static regex_t re;
	static int ready;
	return key && matches("^[a-zA-Z0-9_]+(\\.[a-zA-Z0-9_]+)*$", &re, &ready, key);
}

json_t *perun_config_get(const struct perun_config *cfg,
			 enum perun_config_level level, const char *key)
{
	json_t *node = cfg->level[level];
	if (!node || !perun_config_key_valid(key))
		return NULL;
	const char *p = key;
	while (node && *p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (!json_is_object(node))
			return NULL;
		node = json_object_getn(node, p, n);
		p += n + (dot ? 1 : 0);
	}
	return node;
}

json_t *perun_config_lookup(const struct perun_config *cfg, const char *key)
{
	for (int level = PERUN_CONFIG_RUNTIME; level <= PERUN_CONFIG_SHARED; level++) {
		json_t *value = perun_config_get(cfg, (enum perun_config_level)level, key);
		if (value)
			return value;
	}
	return NULL;
}

const char *perun_config_lookup_string(const struct perun_config *cfg,
				       const char *key, const char *fallback)
{
	const char *s = json_string_value(perun_config_lookup(cfg, key));
	return s ? s : fallback;
}

json_t *perun_config_gather(const struct perun_config *cfg, const char *key)
{
	json_t *all = json_array();
	for (int level = PERUN_CONFIG_RUNTIME; level <= PERUN_CONFIG_SHARED; level++) {
		json_t *value = perun_config_get(cfg, (enum perun_config_level)level, key);
		if (json_is_array(value))
			json_array_extend(all, value);
		else if (value)
			json_array_append(all, value);
	}
	return all;
}

int perun_config_set(struct perun_config *cfg, enum perun_config_level level,
		     const char *key, json_t *value, struct perun_error *err)
{
	int rc = 0;
	if (!perun_config_key_valid(key)) {
		rc = perun_error_set(err, PERUN_EINVAL, "invalid configuration key '%s'", key);
		goto out;
	}
	if (!cfg->level[level]) {
		rc = perun_error_set(err, PERUN_ENOTFOUND,
				     "no %s configuration to set '%s' in",
				     level == PERUN_CONFIG_LOCAL ? "local" : "shared", key);
		goto out;
	}
	/* Work on a copy so a failed save leaves memory like the file. */
	json_t *root = json_deep_copy(cfg->level[level]);
	json_t *node = root;
	const char *p = key;
	for (;;) {
		const char *dot = strchr(p, '.');
		if (!dot)
			break;
		json_t *child = json_object_getn(node, p, (size_t)(dot - p));
		if (!child) {
			child = json_object();
			json_object_setn_new(node, p, (size_t)(dot - p), child);
		} else if (!json_is_object(child)) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "cannot set '%s': '%.*s' is not a section", key,
					     (int)(dot - key), key);
			json_decref(root);
			goto out;
		}
		node = child;
		p = dot + 1;
	}
	json_object_set(node, p, value);
	if (cfg->path[level] && level != PERUN_CONFIG_RUNTIME)
		rc = perun_yaml_save_file(cfg->path[level], root, err);
	if (rc) {
		json_decref(root);
		goto out;
	}
	json_decref(cfg->level[level]);
	cfg->level[level] = root;
out:
	json_decref(value);
	return rc;
}

/* ---- local templates (logic/config_templates.py) ----------------------- */

/* Names that pass through YAML as the same plain string, else quoted. */
static void put_scalar(FILE *out, const char *s)
{
	int plain = plain_reads_as_string(s, strlen(s)) &&
		    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			      "0123456789_./+-") == strlen(s) && s[0] != '-';
	if (plain) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		if ((unsigned char)*s < 0x20)
			fprintf(out, "\\x%02x", (unsigned char)*s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

struct name_list {
	char **items;
	size_t count;
};

static void name_list_add(struct name_list *list, const char *name)
{
	char **grown = realloc(list->items, (list->count + 1) * sizeof(char *));
	if (!grown)
		return;
	list->items = grown;
	list->items[list->count++] = strdup(name);
}

static void name_list_release(struct name_list *list)
{
	for (size_t i = 0; i < list->count; i++)
		free(list->items[i]);
	free(list->items);
	list->items = NULL;
	list->count = 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Like os.walk from ".": hidden directories are skipped; the files directly
 * inside a directory whose name is in folders are collected (executables
 * only when want_exec).  Sorted for a stable result.
 */
static void collect_candidates(const char *dir, const char *const *folders,
			       int want_exec, struct name_list *found, int depth)
{
	DIR *d = opendir(dir);
	if (!d || depth > 64) {
		if (d)
			closedir(d);
		return;
	}
	struct name_list entries = {0};
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			name_list_add(&entries, de->d_name);
	closedir(d);
	qsort(entries.items, entries.count, sizeof(char *), compare_names);
	const char *base = strrchr(dir, '/');
	base = base ? base + 1 : dir;
	int collect = one_of(base, folders);
	for (size_t i = 0; i < entries.count; i++) {
		char *path;
		struct stat st, lst;
		if (!strcmp(dir, "."))
			path = strdup(entries.items[i]);
		else if (asprintf(&path, "%s/%s", dir, entries.items[i]) < 0)
			path = NULL;
		if (!path)
			continue;
		int is_dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
		if (is_dir && lstat(path, &lst) == 0 && S_ISDIR(lst.st_mode))
			collect_candidates(path, folders, want_exec, found, depth + 1);
		else if (!is_dir && collect &&
			 (!want_exec || (S_ISREG(st.st_mode) && access(path, X_OK) == 0)))
			name_list_add(found, path);
		free(path);
	}
	name_list_release(&entries);
}

/* Perun runs 'make' before looking for executables; a failure is fine. */
static void run_make_quietly(void)
{
	static const char *const makefiles[] = {"GNUmakefile", "makefile", "Makefile"};
	int any = 0;
	for (size_t i = 0; i < sizeof(makefiles) / sizeof(*makefiles); i++)
		any |= access(makefiles[i], F_OK) == 0;
	if (!any)
		return;
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
	char *argv[] = {"make", NULL};
	extern char **environ;
	pid_t pid;
	if (posix_spawnp(&pid, "make", &actions, NULL, argv, environ) == 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	posix_spawn_file_actions_destroy(&actions);
}

static void put_list(FILE *out, const char *key, const struct name_list *list,
		     const char *extend_note, const char *example)
{
	if (list->count) {
		fprintf(out, "## %s\n%s:\n", extend_note, key);
		for (size_t i = 0; i < list->count; i++) {
			fputs("  - ", out);
			put_scalar(out, list->items[i]);
			fputc('\n', out);
		}
	} else {
		fprintf(out, "## Uncomment and edit the following region:\n%s", example);
	}
}

char *perun_config_template_dup(const char *name, const char *vcs_type,
				const char *vcs_url)
{
	static const char *const exec_folders[] = {"build", "_build", "dist", NULL};
	static const char *const workload_folders[] = {
		"workload", "workloads", "_workload", "_workloads", "examples",
		"payload", "payloads", "_payloads", "_payload", "_examples", NULL};
	int developer, user;
	if (!strcmp(name, "master"))
		developer = user = 0;
	else if (!strcmp(name, "developer"))
		developer = 1, user = 0;
	else if (!strcmp(name, "user"))
		developer = user = 1;
	else
		return NULL;
	struct name_list cmds = {0}, workloads = {0};
	if (user) {
		run_make_quietly();
		collect_candidates(".", exec_folders, 1, &cmds, 0);
		collect_candidates(".", workload_folders, 0, &workloads, 0);
	}
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		goto out;
	fputs("\nvcs:\n  type: ", out);
	put_scalar(out, vcs_type);
	fputs("\n  url: ", out);
	put_scalar(out, vcs_url);
	fputs("\n\n## The following sets the executables (binaries / scripts).\n"
	      "## These will be profiled by selected collectors.\n", out);
	put_list(out, "cmds", &cmds,
		 "Extend the following region with more executable commands to be profiled:",
		 "# cmds:\n#   - echo\n");
	fputs("\n## The following sets the profiling workload for given commands\n", out);
	put_list(out, "workloads", &workloads,
		 "Extend the following region to profile more different workloads:",
		 "# workloads:\n#   - hello\n#   - world\n");
	fputs("\n## The following contains the set of collectors (profilers) that will "
	      "collect performance data.\n", out);
	if (user)
		fputs("## Extend the following region to use more profilers:\n"
		      "collectors:\n"
		      "    - name: time\n"
		      "      params:\n"
		      "        warmup: 3\n"
		      "        repeat: 10\n", out);
	else
		fputs("## Uncomment and edit the following region:\n"
		      "# collectors:\n"
		      "#   - name: time\n", out);
	fputs("## Try '$ perun collect --help' to obtain list of supported collectors!\n"
	      "\n"
	      "## The following contains the ordered list of postprocess phases that are "
	      "executed after collection.\n"
	      "## Uncomment and edit the following region (!order matters!):\n"
	      "# postprocessors:\n"
	      "#   - name: regression_analysis\n"
	      "#     params:\n"
	      "#       method: full\n"
	      "#   - name: filter\n"
	      "## Try '$ perun postprocessby --help' to obtain list of supported collectors!\n"
	      "\n"
	      "## The following option automatically registers newly collected profiles "
	      "for current minor version\n", out);
	if (user)
		fputs("profiles:\n    register_after_run: true\n", out);
	else
		fputs("## Uncomment the following to enable this behaviour:\n"
		      "# profiles:\n"
		      "#   register_after_run: true\n", out);
	fputs("\n## Be default, we sort the profiles by time\n"
	      "format:\n"
	      "  sort_profiles_by: time\n", out);
	if (user)
		fputs("## The following changes the automatically generated name of the "
		      "profiles\n"
		      "  output_profile_template: \"%collector%-of-%cmd%-%workload%-%date%\"\n",
		      out);
	/* Developer and user uncomment the degradation and execute sections. */
	const char *c = developer ? "" : "# ";
	fprintf(out,
		"\n## The following options control the degradation checks in repository\n"
		"%sdegradation:\n"
		"## Setting the following combination of option to true will make Perun "
		"collect new profiles,\n"
		"## before checking for degradations and store them in logs at directory "
		".perun/logs/\n"
		"%s  collect_before_check: true\n"
		"%s  log_collect: true\n"
		"## Setting this to first (resp. all) will apply the first (resp. all) "
		"found check methods\n"
		"## for corresponding configurations\n"
		"#   apply: first\n"
		"## Specification of list of rules for applying degradation checks\n"
		"%s  strategy:\n"
		"%s    - method: average_amount_threshold\n"
		"\n"
		"## To run your custom steps before any collection (un)comment the "
		"following region:\n"
		"%sexecute:\n"
		"%s  pre_run:\n"
		"%s    - make\n",
		c, c, c, c, c, c, c, c);
	if (fclose(out) != 0) {
		free(text);
		text = NULL;
	}
out:
	name_list_release(&cmds);
	name_list_release(&workloads);
	return text;
}

/* ---- editing ---------------------------------------------------------- */

int perun_config_run_editor(const struct perun_config *cfg, const char *path,
			    struct perun_error *err)
{
	const char *editor = getenv("EDITOR");
	if (!editor || !*editor)
		editor = perun_config_lookup_string(cfg, "general.editor", "vi");
	/* Through the shell, like git, so "code --wait" works. */
	char *script;
	if (asprintf(&script, "%s \"$@\"", editor) < 0)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	char *argv[] = {"sh", "-c", script, "sh", (char *)path, NULL};
	extern char **environ;
	pid_t pid;
	int status = 0, rc = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
	if (rc) {
		rc = perun_error_set_errno(err, PERUN_ETOOL, rc, "cannot run editor '%s'", editor);
		goto out;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			rc = perun_error_set_errno(err, PERUN_ETOOL, errno,
						   "cannot wait for editor '%s'", editor);
			goto out;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		rc = perun_error_set(err, PERUN_ETOOL, "editor '%s' failed on '%s' (%s %d)",
				     editor, path,
				     WIFEXITED(status) ? "exit status" : "signal",
				     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
out:
	free(script);
	return rc;
}

/* The file of a level after an edit must still read as configuration. */
int perun_config_check_file(const char *path, struct perun_error *err)
{
	json_t *value = NULL;
	int rc = load_level(path, &value, err);
	json_decref(value);
	return rc;
}
