/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tap.h - the smallest TAP producer for C unit-test programs.
 *
 *   tap_ok(cond, "what %s", ...);   one test point
 *   tap_is_str(got, want, "what");  string comparison, shows both on failure
 *   tap_skip("what", "why");        a test point that cannot run here
 *   return tap_done();              prints the plan, exit status
 *
 * Header-only on purpose: each test program includes it once.
 */
#ifndef PERUN_TESTS_TAP_H
#define PERUN_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count;
static int tap_failed;

static int tap_vok(int ok, const char *fmt, va_list ap)
{
	tap_count++;
	if (!ok)
		tap_failed++;
	printf("%sok %d - ", ok ? "" : "not ", tap_count);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	return ok;
}

__attribute__((format(printf, 2, 3), unused)) static int tap_ok(int ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tap_vok(ok, fmt, ap);
	va_end(ap);
	return ok;
}

/* A diagnostic line, shown by the TAP driver. */
__attribute__((format(printf, 1, 2), unused)) static void tap_diag(const char *fmt, ...)
{
	va_list ap;
	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

__attribute__((format(printf, 3, 4), unused)) static int
tap_is_str(const char *got, const char *want, const char *fmt, ...)
{
	int ok = got && want ? !strcmp(got, want) : got == want;
	va_list ap;
	va_start(ap, fmt);
	tap_vok(ok, fmt, ap);
	va_end(ap);
	if (!ok) {
		tap_diag("     got: '%s'", got ? got : "(null)");
		tap_diag("expected: '%s'", want ? want : "(null)");
	}
	return ok;
}

/* A test point that could not run here, and why. */
__attribute__((unused)) static void tap_skip(const char *what, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_count, what, why);
	fflush(stdout);
}

__attribute__((unused)) static int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
