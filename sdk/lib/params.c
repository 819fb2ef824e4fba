/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Parameters of plugins: typed values from the command line and the
 * configuration (perun/params.h).
 *
 * Layer 0 of libperun, the base: it uses errors (error.c) only and knows
 * nothing of profiles.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <perun/params.h>

struct perun_params {
	json_t *values; /* name -> value, or list for MULTIPLE options */
};

struct perun_params *perun_params_new(void)
{
	struct perun_params *params = calloc(1, sizeof(*params));
	if (!params)
		return NULL;
	params->values = json_object();
	if (!params->values) {
		free(params);
		return NULL;
	}
	return params;
}

void perun_params_free(struct perun_params *params)
{
	if (!params)
		return;
	json_decref(params->values);
	free(params);
}

json_t *perun_params_json(const struct perun_params *params)
{
	return params->values;
}

int perun_params_has(const struct perun_params *params, const char *name)
{
	return params && json_object_get(params->values, name) != NULL;
}

static json_t *scalar(const struct perun_params *params, const char *name)
{
	if (!params)
		return NULL;
	json_t *v = json_object_get(params->values, name);
	if (json_is_array(v))
		v = json_array_size(v) ? json_array_get(v, json_array_size(v) - 1) : NULL;
	return v;
}

long long perun_params_int(const struct perun_params *params, const char *name, long long fallback)
{
	json_t *v = scalar(params, name);
	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v))
		return (long long)json_real_value(v);
	if (json_is_boolean(v))
		return json_is_true(v);
	return fallback;
}

double perun_params_float(const struct perun_params *params, const char *name, double fallback)
{
	json_t *v = scalar(params, name);
	return json_is_number(v) ? json_number_value(v) : fallback;
}

int perun_params_bool(const struct perun_params *params, const char *name, int fallback)
{
	json_t *v = scalar(params, name);
	if (json_is_boolean(v))
		return json_is_true(v);
	if (json_is_integer(v))
		return json_integer_value(v) != 0;
	return fallback;
}

const char *perun_params_string(const struct perun_params *params, const char *name,
				const char *fallback)
{
	json_t *v = scalar(params, name);
	return json_is_string(v) ? json_string_value(v) : fallback;
}

size_t perun_params_count(const struct perun_params *params, const char *name)
{
	if (!params)
		return 0;
	json_t *v = json_object_get(params->values, name);
	if (!v)
		return 0;
	return json_is_array(v) ? json_array_size(v) : 1;
}

unsigned long perun_params_seed(const struct perun_params *params, const char *name)
{
	unsigned long seed;
	if (perun_params_has(params, name))
		return (unsigned long)perun_params_int(params, name, 0);
	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
	return seed;
}

const char *perun_params_string_at(const struct perun_params *params, const char *name, size_t i)
{
	json_t *v = json_object_get(params->values, name);
	if (json_is_array(v))
		v = json_array_get(v, i);
	else if (i != 0)
		v = NULL;
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Perun spells some long options with '_' (--window_width), most with '-'. */
static int same_long_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '_' || *a == '-') && (*b == '_' || *b == '-')))
			return 0;
	return *a == *b;
}

const struct perun_option *perun_option_find(const struct perun_option *decls, const char *name,
					     int is_short)
{
	for (const struct perun_option *o = decls; o && o->name; o++) {
		const char *candidate = is_short ? o->short_name : o->name;
		if (candidate &&
		    (is_short ? !strcmp(candidate, name) : same_long_name(candidate, name)))
			return o;
	}
	return NULL;
}

static int choice_ok(const char *choices, const char *value)
{
	size_t n = strlen(value);
	for (const char *p = choices; p && *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && !strncmp(p, value, n))
			return 1;
		p = bar ? bar + 1 : p + len;
	}
	return 0;
}

static int store(struct perun_params *params, const struct perun_option *decl, json_t *value)
{
	if (!value)
		return -1;
	if (decl->flags & PERUN_OPTION_MULTIPLE) {
		json_t *list = json_object_get(params->values, decl->name);
		if (!json_is_array(list)) {
			list = json_array();
			json_object_set_new(params->values, decl->name, list);
		}
		return json_array_append_new(list, value);
	}
	return json_object_set_new(params->values, decl->name, value);
}

int perun_params_set_text(struct perun_params *params, const struct perun_option *decl,
			  const char *value, struct perun_error *err)
{
	char *end;
	json_t *v = NULL;
	switch (decl->type) {
	case PERUN_OPTION_BOOL:
		if (decl->flags & PERUN_OPTION_COUNT) {
			long long n = perun_params_int(params, decl->name, 0);
			return json_object_set_new(params->values, decl->name, json_integer(n + 1));
		}
		if (!value || !strcmp(value, "true") || !strcmp(value, "yes") ||
		    !strcmp(value, "1"))
			v = json_true();
		else if (!strcmp(value, "false") || !strcmp(value, "no") || !strcmp(value, "0"))
			v = json_false();
		else
			return perun_error_set(err, PERUN_EINVAL,
					       "option '--%s' takes true or false, not '%s'",
					       decl->name, value);
		break;
	case PERUN_OPTION_INT: {
		errno = 0;
		long long n = strtoll(value, &end, 10);
		if (!*value || *end || errno)
			return perun_error_set(err, PERUN_EINVAL,
					       "option '--%s' takes a whole number, not '%s'",
					       decl->name, value);
		v = json_integer(n);
		break;
	}
	case PERUN_OPTION_FLOAT: {
		errno = 0;
		double d = strtod(value, &end);
		if (!*value || *end || errno || !isfinite(d))
			return perun_error_set(err, PERUN_EINVAL,
					       "option '--%s' takes a number, not '%s'", decl->name,
					       value);
		v = json_real(d);
		break;
	}
	case PERUN_OPTION_CHOICE:
		if (!choice_ok(decl->choices, value))
			return perun_error_set(err, PERUN_EINVAL,
					       "option '--%s' takes one of %s, not '%s'",
					       decl->name, decl->choices, value);
		v = json_string(value);
		break;
	case PERUN_OPTION_STRING:
		v = json_string(value);
		if (!v)
			return perun_error_set(err, PERUN_EINVAL,
					       "option '--%s': value is not valid UTF-8",
					       decl->name);
		break;
	default:
		return perun_error_set(err, PERUN_EINVAL, "option '--%s' has an unknown type %d",
				       decl->name, (int)decl->type);
	}
	if (store(params, decl, v) < 0)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	return 0;
}

int perun_params_set_json(struct perun_params *params, const struct perun_option *decl,
			  json_t *value, struct perun_error *err)
{
	if (json_is_array(value) && (decl->flags & PERUN_OPTION_MULTIPLE)) {
		size_t i;
		json_t *item;
		json_array_foreach(value, i, item)
		{
			int rc = perun_params_set_json(params, decl, item, err);
			if (rc)
				return rc;
		}
		return 0;
	}
	int ok;
	switch (decl->type) {
	case PERUN_OPTION_BOOL:
		ok = json_is_boolean(value) ||
		     ((decl->flags & PERUN_OPTION_COUNT) && json_is_integer(value));
		break;
	case PERUN_OPTION_INT: ok = json_is_integer(value); break;
	case PERUN_OPTION_FLOAT: ok = json_is_number(value); break;
	case PERUN_OPTION_CHOICE:
		ok = json_is_string(value) && choice_ok(decl->choices, json_string_value(value));
		break;
	default: ok = json_is_string(value); break;
	}
	if (!ok) {
		char *text = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT);
		int rc =
			perun_error_set(err, PERUN_EINVAL, "parameter '%s' has an invalid value %s",
					decl->name, text ? text : "?");
		free(text);
		return rc;
	}
	json_t *copy = decl->type == PERUN_OPTION_FLOAT && json_is_integer(value)
			       ? json_real((double)json_integer_value(value))
			       : json_incref(value);
	if (store(params, decl, copy) < 0)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	return 0;
}

int perun_params_finish(struct perun_params *params, const struct perun_option *decls,
			const char *owner, struct perun_error *err)
{
	for (const struct perun_option *o = decls; o && o->name; o++) {
		if (json_object_get(params->values, o->name))
			continue;
		if (o->flags & PERUN_OPTION_REQUIRED)
			return perun_error_set(err, PERUN_EINVAL,
					       "%s: missing required option '--%s'", owner,
					       o->name);
		if (o->default_value) {
			int rc = perun_params_set_text(params, o, o->default_value, err);
			if (rc) {
				perun_error_prefix(err, "%s: bad default", owner);
				return rc;
			}
		}
	}
	return 0;
}
