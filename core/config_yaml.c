/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * YAML <-> JSON for the configuration and job files.  YAML is parsed and
 * emitted by libyaml; plain scalars are typed the way YAML 1.1 (PyYAML's
 * safe_load) does, so files written by Python Perun read back with the same
 * values.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <math.h>
#include <regex.h>

#include <yaml.h>

#include "config_yaml.h"

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

static const char *const null_words[] = { "~", "null", "Null", "NULL", "", NULL };
static const char *const true_words[] = { "yes",  "Yes", "YES", "true", "True",
					  "TRUE", "on",	 "On",	"ON",	NULL };
static const char *const false_words[] = { "no",    "No",  "NO",  "false", "False",
					   "FALSE", "off", "Off", "OFF",   NULL };

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
int perun_yaml_plain_is_string(const char *s, size_t len)
{
	static regex_t re;
	static int ready;
	static const char *const yaml12_numbers =
		"^([-+]?(\\.[0-9_]+|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?"
		"|[-+]?0o[0-7_]+)$";
	return len && classify(s, len) == SCALAR_STRING && !matches(yaml12_numbers, &re, &ready, s);
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

/* What make_int and make_float give when the number could not be made
 * for want of memory (NULL means: not representable, keep the text). */
static json_t number_out_of_memory;
#define NUMBER_OUT_OF_MEMORY (&number_out_of_memory)

static json_t *made(json_t *number)
{
	return number ? number : NUMBER_OUT_OF_MEMORY;
}

static json_t *make_int(const char *s)
{
	char digits[128];
	int sign = strip_number(s, digits, sizeof(digits));
	if (strchr(digits, ':')) {
		double v = sexagesimal(digits);
		if (v > (double)LLONG_MAX)
			return NULL;
		return made(json_integer(sign * (json_int_t)v));
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
		return made(json_integer(u == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN
										: -(json_int_t)u));
	return made(json_integer((json_int_t)u));
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
	return isfinite(v) ? made(json_real(sign * v)) : NULL;
}

/* A plain scalar typed like YAML 1.1; strings for anything else. */
static json_t *resolve_plain(const char *s, size_t len)
{
	json_t *value = NULL;
	switch (classify(s, len)) {
	case SCALAR_NULL: return json_null();
	case SCALAR_BOOL: return json_boolean(one_of(s, true_words));
	case SCALAR_INT: value = make_int(s); break;
	case SCALAR_FLOAT: value = make_float(s); break;
	case SCALAR_STRING: break;
	}
	if (value == NUMBER_OUT_OF_MEMORY)
		return NULL; /* not a reason to read the number as text */
	return value ? value : json_stringn(s, len);
}

json_t *perun_config_parse_scalar(const char *text)
{
	return resolve_plain(text, strlen(text));
}

/* ---- YAML loading ----------------------------------------------------- */

struct loader {
	yaml_parser_t parser;
	json_t *anchors;      /* anchor name -> value, for aliases */
	json_t *anchor_sizes; /* anchor name -> its values counted expanded */
};

static int parser_error(struct loader *ld, struct perun_error *err)
{
	const yaml_parser_t *p = &ld->parser;
	/* Not the file's fault: a failure of the machine (exit 3). */
	if (p->error == YAML_MEMORY_ERROR)
		return perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM, "cannot parse");
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

static void remember_anchor(struct loader *ld, const yaml_char_t *anchor, json_t *value,
			    size_t size)
{
	if (anchor) {
		json_object_set(ld->anchors, (const char *)anchor, value);
		json_object_set_new(ld->anchor_sizes, (const char *)anchor,
				    json_integer((json_int_t)size));
	}
}

/* Aliases share their anchor's value, but saving or copying the document
 * writes it out each time: a few lines of anchors of aliases (an alias
 * bomb) would grow without bound.  Documents are refused past this many
 * values counted with every alias expanded. */
#define YAML_MAX_EXPANDED 1000000

static int add_size(size_t *total, size_t size, size_t line, struct perun_error *err)
{
	*total += size;
	if (*total > YAML_MAX_EXPANDED)
		return perun_error_set(err, PERUN_EINVAL,
				       "line %zu: aliases expand the document past %d values", line,
				       YAML_MAX_EXPANDED);
	return 0;
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
		if (!value)
			return perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM, "line %zu",
						     ev->start_mark.line + 1);
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
	/* libyaml checked the UTF-8 already: no value is no memory. */
	if (!value)
		return perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM, "line %zu",
					     ev->start_mark.line + 1);
	*out = value;
	return 0;
}

static int load_node(struct loader *ld, yaml_event_t *ev, int depth, json_t **out, size_t *size,
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

static int load_sequence(struct loader *ld, int depth, json_t *seq, size_t *size,
			 struct perun_error *err)
{
	yaml_event_t ev;
	int rc;
	while ((rc = next_item(ld, YAML_SEQUENCE_END_EVENT, &ev, err)) > 0) {
		json_t *item = NULL;
		size_t item_size = 0;
		size_t line = ev.start_mark.line + 1;
		rc = load_node(ld, &ev, depth + 1, &item, &item_size, err);
		yaml_event_delete(&ev);
		if (!rc && (rc = add_size(size, item_size, line, err)))
			json_decref(item);
		if (rc)
			return rc;
		/* a value lost to a failed allocation would be saved as absent */
		if (json_array_append_new(seq, item))
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	return rc;
}

static int load_mapping(struct loader *ld, int depth, json_t *map, size_t *size,
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
		char *key = strndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
		if (!key) {
			yaml_event_delete(&ev);
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		}
		json_t *key_value = json_string(key);
		remember_anchor(ld, ev.data.scalar.anchor, key_value, 1);
		json_decref(key_value);
		yaml_event_delete(&ev);
		json_t *value = NULL;
		if (json_object_get(map, key))
			rc = perun_error_set(err, PERUN_EINVAL, "line %zu: duplicate key '%s'",
					     line, key);
		else
			rc = next_event(ld, &ev, err);
		size_t value_size = 0;
		if (!rc) {
			rc = load_node(ld, &ev, depth + 1, &value, &value_size, err);
			yaml_event_delete(&ev);
		}
		if (!rc && (rc = add_size(size, 1 + value_size, line, err)))
			json_decref(value);
		else if (!rc && json_object_set_new(map, key, value))
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		free(key);
		if (rc)
			return rc;
	}
	return rc;
}

/* One value into *out; *size counts its values with aliases expanded. */
static int load_node(struct loader *ld, yaml_event_t *ev, int depth, json_t **out, size_t *size,
		     struct perun_error *err)
{
	int rc = 0;
	json_t *value = NULL;
	*size = 1;
	if (depth > YAML_MAX_DEPTH)
		return perun_error_set(err, PERUN_EINVAL, "line %zu: nested too deeply",
				       ev->start_mark.line + 1);
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		rc = load_scalar(ev, &value, err);
		if (!rc)
			remember_anchor(ld, ev->data.scalar.anchor, value, 1);
		break;
	case YAML_ALIAS_EVENT:
		value = json_incref(
			json_object_get(ld->anchors, (const char *)ev->data.alias.anchor));
		*size = (size_t)json_integer_value(
			json_object_get(ld->anchor_sizes, (const char *)ev->data.alias.anchor));
		if (!value)
			rc = perun_error_set(
				err, PERUN_EINVAL, "line %zu: found undefined alias '%s'",
				ev->start_mark.line + 1, (const char *)ev->data.alias.anchor);
		break;
	case YAML_SEQUENCE_START_EVENT:
		value = json_array();
		rc = load_sequence(ld, depth, value, size, err);
		if (!rc)
			remember_anchor(ld, ev->data.sequence_start.anchor, value, *size);
		break;
	case YAML_MAPPING_START_EVENT:
		value = json_object();
		rc = load_mapping(ld, depth, value, size, err);
		if (!rc)
			remember_anchor(ld, ev->data.mapping_start.anchor, value, *size);
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
int perun_yaml_load(const char *buf, size_t len, json_t **out, struct perun_error *err)
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
	ld.anchor_sizes = json_object();
	size_t size = 0;
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
			rc = load_node(&ld, &ev, 0, &root, &size, err);
		yaml_event_delete(&ev);
		if (rc)
			goto out;
	}
	*out = root ? root : json_null();
	root = NULL;
out:
	json_decref(root);
	json_decref(ld.anchors);
	json_decref(ld.anchor_sizes);
	yaml_parser_delete(&ld.parser);
	return rc;
}

int perun_yaml_load_buffer(const char *buf, size_t len, const char *name, json_t **out,
			   struct perun_error *err)
{
	int rc = perun_yaml_load(buf, len, out, err);
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

/* Emit ev, made by an initializer that returned made: libyaml's
 * initializers allocate, and a failed one leaves an event the emitter
 * refuses as a misplaced one rather than as lack of memory. */
static int emit_made(yaml_emitter_t *em, int made, yaml_event_t *ev)
{
	if (!made) {
		em->error = YAML_MEMORY_ERROR;
		return 0;
	}
	return yaml_emitter_emit(em, ev);
}

static int emit_scalar(yaml_emitter_t *em, const char *text, size_t len, int as_string)
{
	yaml_event_t ev;
	/* A string that would read back as another type must be quoted. */
	int plain_ok = !as_string || perun_yaml_plain_is_string(text, len);
	int made = yaml_scalar_event_initialize(
		&ev, NULL, NULL, (yaml_char_t *)text, (int)len, plain_ok, 1,
		plain_ok ? YAML_ANY_SCALAR_STYLE : YAML_SINGLE_QUOTED_SCALAR_STYLE);
	return emit_made(em, made, &ev);
}

static int emit_value(yaml_emitter_t *em, const json_t *value, int flow)
{
	yaml_event_t ev;
	char num[64];
	if (!value) {
		/* A value that could not be made (out of memory) upstream. */
		em->error = YAML_MEMORY_ERROR;
		return 0;
	}
	switch (json_typeof(value)) {
	case JSON_OBJECT: {
		const char *key;
		const json_t *item;
		if (!emit_made(em,
			       yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
								   flow ? YAML_FLOW_MAPPING_STYLE
									: YAML_BLOCK_MAPPING_STYLE),
			       &ev))
			return 0;
		json_object_foreach((json_t *)value, key,
				    item) if (!emit_scalar(em, key, strlen(key), 1) ||
					      !emit_value(em, item, flow)) return 0;
		return emit_made(em, yaml_mapping_end_event_initialize(&ev), &ev);
	}
	case JSON_ARRAY: {
		size_t i;
		const json_t *item;
		if (!emit_made(em,
			       yaml_sequence_start_event_initialize(
				       &ev, NULL, NULL, 1,
				       flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE),
			       &ev))
			return 0;
		json_array_foreach(value, i, item) if (!emit_value(em, item, flow)) return 0;
		return emit_made(em, yaml_sequence_end_event_initialize(&ev), &ev);
	}
	case JSON_STRING:
		return emit_scalar(em, json_string_value(value), json_string_length(value), 1);
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(value));
		return emit_scalar(em, num, strlen(num), 0);
	case JSON_REAL:
		format_real(json_real_value(value), num, sizeof(num));
		return emit_scalar(em, num, strlen(num), 0);
	case JSON_TRUE: return emit_scalar(em, "true", 4, 0);
	case JSON_FALSE: return emit_scalar(em, "false", 5, 0);
	case JSON_NULL: return emit_scalar(em, "null", 4, 0);
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
	ok = emit_made(&em, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING), &ev) &&
	     emit_made(&em, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1), &ev) &&
	     emit_value(&em, value, flow) &&
	     emit_made(&em, yaml_document_end_event_initialize(&ev, 1), &ev) &&
	     emit_made(&em, yaml_stream_end_event_initialize(&ev), &ev) && yaml_emitter_flush(&em);
	int rc = 0;
	if (!ok)
		rc = perun_error_set(err, PERUN_EGENERIC, "cannot write YAML: %s",
				     em.error == YAML_MEMORY_ERROR ? "out of memory"
				     : em.problem		   ? em.problem
								   : "emitter error");
	yaml_emitter_delete(&em);
	/* Flushed first: glibc's fclose of a memstream reports no failure
	 * of its last realloc, and *out and *len are only set by a flush
	 * (without it, a config set wrote an empty local.yml). */
	if (fflush(mem) != 0 && !rc)
		rc = perun_error_set_errno(err, PERUN_EGENERIC, errno, "out of memory");
	if (fclose(mem) != 0 && !rc)
		rc = perun_error_set_errno(err, PERUN_EGENERIC, errno, "out of memory");
	if (!rc && !*out)
		rc = perun_error_set_errno(err, PERUN_EGENERIC, ENOMEM, "cannot write YAML");
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

int perun_yaml_save_file(const char *path, const json_t *value, struct perun_error *err)
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
	case JSON_STRING: return strdup(json_string_value(value));
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(value));
		return strdup(num);
	case JSON_REAL: format_real(json_real_value(value), num, sizeof(num)); return strdup(num);
	case JSON_TRUE: return strdup("true");
	case JSON_FALSE: return strdup("false");
	case JSON_NULL: return strdup("null");
	}
	return NULL;
}
