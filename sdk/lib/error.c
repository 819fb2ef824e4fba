/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Errors of libperun: a code and a one-line message (perun/error.h).
 *
 * Layer 0 of libperun, the base: it uses the C library only; every other
 * file of libperun may use it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <perun/error.h>

int perun_error_set(struct perun_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return -code;
}

int perun_error_set_errno(struct perun_error *err, int code, int errnum, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < sizeof(err->message))
			snprintf(err->message + n, sizeof(err->message) - n, ": %s",
				 strerror(errnum));
		err->code = code;
	}
	return -code;
}

void perun_error_prefix(struct perun_error *err, const char *fmt, ...)
{
	if (!err)
		return;
	char prefix[512], joined[sizeof(err->message)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	size_t plen = strlen(prefix), mlen = strlen(err->message);
	if (plen + 2 >= sizeof(joined))
		plen = sizeof(joined) - 3;
	memcpy(joined, prefix, plen);
	memcpy(joined + plen, ": ", 2);
	if (plen + 2 + mlen >= sizeof(joined))
		mlen = sizeof(joined) - plen - 3;
	memcpy(joined + plen + 2, err->message, mlen);
	joined[plen + 2 + mlen] = '\0';
	memcpy(err->message, joined, sizeof(joined));
}

void perun_error_clear(struct perun_error *err)
{
	if (err) {
		err->code = 0;
		err->message[0] = '\0';
	}
}
