/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Read-only JSON values laid out flat (a "tape"), as libperun reads a
 * profile's resources: one 16-byte node per value, a container's members
 * right after it, strings NUL-terminated inside the profile's own text.
 * Reading a million-stack profile this way takes no allocation per value,
 * where a jansson tree takes several.
 *
 * An object's members are its keys (string nodes) each followed by its
 * value.  Walk them with the macros below; perun_jv_get finds one member
 * (a linear search: objects of a profile's resources are small).
 * Python's NaN, Infinity and -Infinity are reals.
 *
 * The node layout below (struct perun_jv, the tag's bits, the meaning of
 * next) is public on purpose: views walk millions of nodes with the inline
 * accessors, which a call per node would slow down.  So it is FROZEN for
 * the plugin ABI's major version (PERUN_PLUGIN_ABI_MAJOR, perun/plugin.h):
 * a plugin compiled against it reads the nodes of any libperun of that major.  A change of
 * the layout is signalled by a new PERUN_JV_LAYOUT_VERSION and a new
 * PERUN_PLUGIN_ABI_MAJOR (and libperun's soname, libtool's age reset to 0)
 * together; never one without the others.  Plugins that depend on the
 * layout may check it at build time:
 *   #if PERUN_JV_LAYOUT_VERSION != 1
 *   #error "written for perun_jv layout 1"
 *   #endif
 * Code that need not be fast should prefer the accessors and macros to
 * the fields, and perun_jv_to_json for anything else.
 */
#ifndef PERUN_JSONVIEW_H
#define PERUN_JSONVIEW_H

/* The version of the node layout, frozen as said above. */
#define PERUN_JV_LAYOUT_VERSION 1

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <jansson.h>
#include <perun/error.h>

enum perun_jv_type {
	PERUN_JV_NULL = 0,
	PERUN_JV_FALSE,
	PERUN_JV_TRUE,
	PERUN_JV_INTEGER,
	PERUN_JV_REAL,
	PERUN_JV_STRING,
	PERUN_JV_ARRAY,
	PERUN_JV_OBJECT,
};

/* 16 bytes, in this order (layout version 1). */
struct perun_jv {
	uint32_t tag;  /* type in the low 3 bits; above them the length of a
			* string (bytes) or container (values, or members) */
	uint32_t next; /* nodes from this one to the one after its value */
	union {
		int64_t i;
		double d;
		const char *s;
	} u;
};

#define PERUN_JV_MAX_LEN ((1u << 29) - 1)

/* Accessors take NULL (a missing member) as JSON's null, as jansson's do. */
static inline enum perun_jv_type perun_jv_type(const struct perun_jv *v)
{
	return v ? (enum perun_jv_type)(v->tag & 7u) : PERUN_JV_NULL;
}

/* Bytes of a string, values of an array, members of an object; 0 else
 * (also for NULL, so the foreach macros skip a missing member). */
static inline size_t perun_jv_len(const struct perun_jv *v)
{
	return v && (v->tag & 7u) >= PERUN_JV_STRING ? v->tag >> 3 : 0;
}

static inline int perun_jv_is_string(const struct perun_jv *v)
{
	return v && perun_jv_type(v) == PERUN_JV_STRING;
}

/* The string's bytes (NUL-terminated), or NULL for other values. */
static inline const char *perun_jv_string(const struct perun_jv *v)
{
	return perun_jv_is_string(v) ? v->u.s : NULL;
}

/* A number as a double: 0, or -1 when v is not a number. */
static inline int perun_jv_number(const struct perun_jv *v, double *out)
{
	if (!v)
		return -1;
	if (perun_jv_type(v) == PERUN_JV_REAL)
		*out = v->u.d;
	else if (perun_jv_type(v) == PERUN_JV_INTEGER)
		*out = (double)v->u.i;
	else
		return -1;
	return 0;
}

/* The value after v (and everything inside it). */
static inline const struct perun_jv *perun_jv_skip(const struct perun_jv *v)
{
	return v + v->next;
}

/* for (i, elem) over an array. */
#define perun_jv_array_foreach(array, index, elem)                                                 \
	for ((index) = 0, (elem) = perun_jv_len(array) ? (array) + 1 : NULL;                       \
	     (index) < perun_jv_len(array); (index)++, (elem) = perun_jv_skip(elem))

/* for (key node, value) over an object; perun_jv_string(key) is its text. */
#define perun_jv_object_foreach(object, index, key, value)                                         \
	for ((index) = 0, (key) = perun_jv_len(object) ? (object) + 1 : NULL,                      \
	    (value) = (key) ? (key) + 1 : NULL;                                                    \
	     (index) < perun_jv_len(object);                                                       \
	     (index)++, (key) = perun_jv_skip(value), (value) = (key) + 1)

/* The member of object named key, or NULL (also when object is not one). */
static inline const struct perun_jv *perun_jv_getn(const struct perun_jv *object, const char *key,
						   size_t key_len)
{
	if (!object || perun_jv_type(object) != PERUN_JV_OBJECT)
		return NULL;
	const struct perun_jv *k = object + 1;
	for (size_t i = 0; i < perun_jv_len(object); i++) {
		const struct perun_jv *v = k + 1;
		if (perun_jv_len(k) == key_len && !memcmp(k->u.s, key, key_len))
			return v;
		k = perun_jv_skip(v);
	}
	return NULL;
}

static inline const struct perun_jv *perun_jv_get(const struct perun_jv *object, const char *key)
{
	return perun_jv_getn(object, key, strlen(key));
}

/* The i-th value of an array (a walk: i steps), or NULL. */
static inline const struct perun_jv *perun_jv_at(const struct perun_jv *array, size_t i)
{
	if (!array || perun_jv_type(array) != PERUN_JV_ARRAY || i >= perun_jv_len(array))
		return NULL;
	const struct perun_jv *v = array + 1;
	while (i--)
		v = perun_jv_skip(v);
	return v;
}

/*
 * A new jansson value equal to v (NaN and infinities as the marker strings
 * perun_json_number reads), for code that needs one; NULL without memory.
 */
PERUN_API json_t *perun_jv_to_json(const struct perun_jv *v);

#endif
