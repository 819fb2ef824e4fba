/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The crash report: a file saying what crashed, in which command, with
 * which plugins loaded, and where (a backtrace), for a bug report.
 *
 * It goes to .perun/logs/crash-<date>-<pid>.txt of the instance the
 * command runs in; outside one to $XDG_STATE_HOME/perun (by default
 * ~/.local/state/perun: the XDG place for logs that outlive a run but
 * are no user data), or /tmp without a home.  Everything known before
 * the crash is prepared outside the signal handler, which then only
 * creates directories, opens, writes and closes.
 */
#ifndef PERUN_CORE_CRASH_REPORT_H
#define PERUN_CORE_CRASH_REPORT_H

/* Prepare the report of this command (its place, the command line, the
 * version and the time); main calls it first.  Allocates. */
void perun_crash_report_prepare(int argc, char *const *argv);

/* A plugin was loaded: reports list it from now on.  Allocates. */
void perun_crash_report_add_plugin(const char *kind, const char *name, const char *version,
				   const char *path);

/*
 * From the crash handler only (async-signal-safe): write the report of
 * what crashed ("plugin 'x' (/path/x.so) crashed in show (SIGSEGV)"), the signal
 * and the culprit's kind, name and phase (NULL for perun itself).
 * Returns the file's name as to print it, or NULL when none was written.
 */
const char *perun_crash_report_write(const char *what, const char *signal, const char *kind,
				     const char *name, const char *phase);

#endif
