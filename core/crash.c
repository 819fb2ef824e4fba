/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One line naming the plugin (or perun) that crashed (see crash.h). */
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crash.h"
#include "crash_report.h"
#include "plugin_loader.h"

/* Read by the handler: plain pointers set before and cleared after each
 * call into a plugin, on the one thread that calls plugins. */
static const char *volatile current_kind;
static const char *volatile current_name;
static const char *volatile current_phase;
static const char *volatile current_path;

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

/* Say what happened to whom (plugin or perun), write the report and
 * print the line; async-signal-safe.  event is "crashed in" or "did not
 * stop in"; label the signal or what was waited for. */
static void tell(const char *event, const char *label, const char *signal)
{
	char what[PATH_MAX + 256], line[PATH_MAX + 512];
	const char *name = current_name, *kind = current_kind, *phase = current_phase;
	const char *path = current_path;
	size_t n = 0;
	if (name) {
		n = put(what, n, sizeof(what), "plugin '");
		n = put(what, n, sizeof(what), name);
		n = put(what, n, sizeof(what), "' (");
		n = put(what, n, sizeof(what), path ? path : kind ? kind : "?");
		n = put(what, n, sizeof(what), ") ");
		n = put(what, n, sizeof(what), event);
		n = put(what, n, sizeof(what), " ");
		n = put(what, n, sizeof(what), phase ? phase : "a call");
		n = put(what, n, sizeof(what), " (");
		n = put(what, n, sizeof(what), label);
		n = put(what, n, sizeof(what), ")");
	} else {
		n = put(what, n, sizeof(what), "internal error: ");
		n = put(what, n, sizeof(what), label);
	}
	what[n] = '\0';
	const char *report = perun_crash_report_write(what, signal, kind, name, phase);

	n = put(line, 0, sizeof(line), "perun: ");
	n = put(line, n, sizeof(line), what);
	n = put(line, n, sizeof(line),
		name ? "; the store is left as it was" : " (a bug in perun; please report it)");
	if (report) {
		n = put(line, n, sizeof(line), "; report: ");
		n = put(line, n, sizeof(line), report);
	}
	n = put(line, n, sizeof(line), "\n");
	ssize_t ignored = write(STDERR_FILENO, line, n);
	(void)ignored;
}

static void on_crash(int sig)
{
	tell("crashed in", signal_name(sig), signal_name(sig));
	signal(sig, SIG_DFL);
	raise(sig);
}

void perun_crash_stuck(const char *waited)
{
	tell("did not stop in", waited, "none: it hung");
	_exit(3);
}

void perun_crash_handlers_install(void)
{
	/* Its own stack, so that a stack overflow (endless recursion in a
	 * plugin) is reported too; static, as it lives as long as perun. */
	static _Alignas(16) char alt_stack[64 * 1024];
	stack_t alt = { .ss_sp = alt_stack, .ss_size = sizeof(alt_stack) };
	sigaltstack(&alt, NULL);
	struct sigaction sa = { .sa_handler = on_crash, .sa_flags = SA_RESETHAND | SA_ONSTACK };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		sigaction(crash_signals[i], &sa, NULL);
}

void perun_crash_enter_at(const char *kind, const char *name, const char *path, const char *phase)
{
	current_path = path;
	current_kind = kind;
	current_name = name;
	current_phase = phase;
}

void perun_crash_enter(const char *kind, const char *name, const char *phase)
{
	/* Looked up here, not in the handler: the loader's table may be
	 * growing when the signal comes. */
	perun_crash_enter_at(kind, name, perun_plugin_loaded_path(kind, name), phase);
}

void perun_crash_leave(void)
{
	current_path = NULL;
	current_name = NULL;
	current_kind = NULL;
	current_phase = NULL;
}
