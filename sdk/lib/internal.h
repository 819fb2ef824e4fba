/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private helpers of libperun; not installed. */
#ifndef PERUN_SDK_INTERNAL_H
#define PERUN_SDK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include <perun/strbuf.h>

/* Exact arithmetic of the float reader and printer. */
typedef unsigned __int128 u128;
/* 5^0 .. 5^27, the powers of five below 2^63. */
extern const uint64_t json_pow5[28];

/* Python's repr() of a double: shortest digits that round-trip. */
void json_python_format_double(double value, char out[32]);
/*
 * json.dumps(value) (indent -1) or json.dumps(value, indent=indent),
 * ensure_ascii, insertion key order; indent JSON_PYTHON_PENDING is Perun's
 * pending form, indent 2 with re.sub(r",\s+(\d+)", r", \1", ...) applied.
 */
#define JSON_PYTHON_PENDING (-2)
void json_python_dump(const json_t *value, int indent, struct perun_strbuf *out);
/*
 * The tree of a profile's text as json_loadb(JSON_REJECT_DUPLICATES) reads
 * it, Python's NaN/Infinity/-Infinity as profile.c's marker strings; NULL
 * when the text is not plain well-formed JSON, which jansson then reads
 * (and reports).  Much faster than jansson's parser.
 */
json_t *json_python_load(const char *buf, size_t len);

#endif
