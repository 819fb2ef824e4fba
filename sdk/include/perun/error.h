/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Error reporting shared by the core and plugins. */
#ifndef PERUN_ERROR_H
#define PERUN_ERROR_H

#include <perun/plugin.h>

#if defined(__GNUC__)
#define PERUN_API	   __attribute__((visibility("default")))
#define PERUN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PERUN_API
#define PERUN_PRINTF(f, a)
#endif

/*
 * Fill err (which may be NULL) with code and a formatted one-line message
 * and return -code, so callers can write: return perun_error_set(err, ...).
 */
PERUN_API int perun_error_set(struct perun_error *err, int code, const char *fmt, ...)
	PERUN_PRINTF(3, 4);

/* Like perun_error_set, appending ": strerror(errnum)". */
PERUN_API int perun_error_set_errno(struct perun_error *err, int code, int errnum, const char *fmt,
				    ...) PERUN_PRINTF(4, 5);

/* Prepend "<prefix>: " to an already filled message. */
PERUN_API void perun_error_prefix(struct perun_error *err, const char *fmt, ...) PERUN_PRINTF(2, 3);

PERUN_API void perun_error_clear(struct perun_error *err);

#endif
