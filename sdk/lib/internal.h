/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private helpers of libperun; not installed. */
#ifndef PERUN_SDK_INTERNAL_H
#define PERUN_SDK_INTERNAL_H

#include <stddef.h>
#include <jansson.h>
#include <perun/strbuf.h>

/* Python's repr() of a double: shortest digits that round-trip. */
void json_python_format_double(double value, char out[32]);
/*
 * json.dumps(value) (indent < 0) or json.dumps(value, indent=indent),
 * ensure_ascii, insertion key order.
 */
void json_python_dump(const json_t *value, int indent, struct perun_strbuf *out);

#endif
