/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Naming the culprit of a crash: the core marks the plugin code it calls
 * (kind, name, phase), and a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT) writes a report (crash_report.h) and prints one line saying
 * which plugin (name and file) crashed where, or that perun itself did, and where the
 * report is, before the signal takes its usual course.
 */
#ifndef PERUN_CORE_CRASH_H
#define PERUN_CORE_CRASH_H

/* Install the handlers; main calls it first. */
void perun_crash_handlers_install(void);

/* Plugin code of kind ("collect", ...) and name runs phase ("describe",
 * "collect", ...) from now until perun_crash_leave.  The strings must
 * outlive the call (plugin names and literals do). */
void perun_crash_enter(const char *kind, const char *name, const char *phase);
/* The same for a plugin not yet in the loader's table (its describe). */
void perun_crash_enter_at(const char *kind, const char *name, const char *path, const char *phase);
void perun_crash_leave(void);

/* The plugin marked now ignored a request to stop (waited: what it was
 * given, as "a 1 s timeout and 1 s more"): report it as a crash is
 * reported, then end perun with exit 3.  Async-signal-safe, for the
 * handler of the alarm that found it stuck. */
void perun_crash_stuck(const char *waited) __attribute__((noreturn));

#endif
