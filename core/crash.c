/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One line naming the plugin (or perun) that crashed (see crash.h). */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "crash.h"

/* Read by the handler: plain pointers set before and cleared after each
 * call into a plugin, on the one thread that calls plugins. */
static const char *volatile current_kind;
static const char *volatile current_name;
static const char *volatile current_phase;

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	}
	return "a signal";
}

/* Append s to buf (async-signal-safe: no stdio). */
static size_t put(char *buf, size_t used, size_t size, const char *s)
{
	size_t len = strlen(s);
	if (used + len >= size)
		len = size - used - 1;
	memcpy(buf + used, s, len);
	return used + len;
}

static void on_crash(int sig)
{
	char line[512];
	size_t n = put(line, 0, sizeof(line), "perun: ");
	const char *name = current_name, *kind = current_kind, *phase = current_phase;
	if (name) {
		n = put(line, n, sizeof(line), kind ? kind : "");
		n = put(line, n, sizeof(line), " plugin '");
		n = put(line, n, sizeof(line), name);
		n = put(line, n, sizeof(line), "' crashed in ");
		n = put(line, n, sizeof(line), phase ? phase : "a call");
		n = put(line, n, sizeof(line), " (");
		n = put(line, n, sizeof(line), signal_name(sig));
		n = put(line, n, sizeof(line), "); the store is left as it was\n");
	} else {
		n = put(line, n, sizeof(line), "internal error: ");
		n = put(line, n, sizeof(line), signal_name(sig));
		n = put(line, n, sizeof(line), " (a bug in perun; please report it)\n");
	}
	ssize_t ignored = write(STDERR_FILENO, line, n);
	(void)ignored;
	signal(sig, SIG_DFL);
	raise(sig);
}

void perun_crash_handlers_install(void)
{
	struct sigaction sa = { .sa_handler = on_crash, .sa_flags = SA_RESETHAND };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		sigaction(crash_signals[i], &sa, NULL);
}

void perun_crash_enter(const char *kind, const char *name, const char *phase)
{
	current_kind = kind;
	current_name = name;
	current_phase = phase;
}

void perun_crash_leave(void)
{
	current_name = NULL;
	current_kind = NULL;
	current_phase = NULL;
}
