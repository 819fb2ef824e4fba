/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The crash report file (see crash_report.h). */
#include "autoconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_BACKTRACE
#include <execinfo.h>
#endif

#include "crash_report.h"
#include "instance.h"

/* Set once by prepare; the handler reads them as they are. */
static char report_dir[PATH_MAX];
static char report_prefix[PATH_MAX + 64]; /* report_dir/crash-<date>- */
static size_t shown_from;		  /* where the printed name starts */
static char *header;			  /* command, version, time */

/* The loaded plugins' lines: replaced whole, so that the handler sees
 * either the old list or the new one, never one being written. */
struct plugin_lines {
	size_t len;
	char text[];
};
static struct plugin_lines *volatile plugins;

/* A word of the command line as the shell would read it back. */
static void put_quoted(FILE *f, const char *word)
{
	if (*word && strspn(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "0123456789_@%+=:,./-") == strlen(word)) {
		fputs(word, f);
		return;
	}
	fputc('\'', f);
	for (const char *p = word; *p; p++)
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	fputc('\'', f);
}

/* The instance's logs (printed relative when the command runs at its
 * root), else the XDG state directory, else /tmp. */
static void choose_dir(const char *cwd)
{
	char *root = cwd[0] ? perun_instance_locate(cwd) : NULL;
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	if (root) {
		snprintf(report_dir, sizeof(report_dir), "%s/.perun/logs", root[1] ? root : "");
		if (!strcmp(root, cwd))
			shown_from = root[1] ? strlen(root) + 1 : 1;
	} else if (xdg && xdg[0] == '/') {
		snprintf(report_dir, sizeof(report_dir), "%s/perun", xdg);
	} else if (home && home[0] == '/') {
		snprintf(report_dir, sizeof(report_dir), "%s/.local/state/perun", home);
	} else {
		snprintf(report_dir, sizeof(report_dir), "/tmp");
	}
	free(root);
}

void perun_crash_report_prepare(int argc, char *const *argv)
{
	char cwd[PATH_MAX], date[32], started[64];
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	choose_dir(cwd);
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y%m%d-%H%M%S", &tm);
	strftime(started, sizeof(started), "%Y-%m-%d %H:%M:%S %z", &tm);
	snprintf(report_prefix, sizeof(report_prefix), "%s/crash-%s-", report_dir, date);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return;
	fputs("Perun crash report\n\ncommand:   ", f);
	for (int i = 0; i < argc; i++) {
		if (i)
			fputc(' ', f);
		put_quoted(f, argv[i]);
	}
	fprintf(f, "\nversion:   Perun %s\nstarted:   %s\ndirectory: %s\n", PACKAGE_VERSION,
		started, cwd);
	if (fclose(f) == 0)
		header = text;
	else
		free(text);
#ifdef HAVE_BACKTRACE
	/* The first backtrace loads libgcc_s (and allocates): not in the
	 * handler. */
	void *frame;
	backtrace(&frame, 1);
#endif
}

void perun_crash_report_add_plugin(const char *kind, const char *name, const char *version,
				   const char *path)
{
	struct plugin_lines *old = plugins;
	size_t old_len = old ? old->len : 0;
	int n = snprintf(NULL, 0, "  %-12s %-22s %-8s %s\n", kind, name, version, path);
	struct plugin_lines *lines = n < 0 ? NULL : malloc(sizeof(*lines) + old_len + n + 1);
	if (!lines)
		return;
	if (old)
		memcpy(lines->text, old->text, old_len);
	snprintf(lines->text + old_len, (size_t)n + 1, "  %-12s %-22s %-8s %s\n", kind, name,
		 version, path);
	lines->len = old_len + (size_t)n;
	plugins = lines;
	free(old);
}

/* ---- in the handler: no stdio, no malloc ------------------------------ */

static void put(int fd, const char *s)
{
	size_t len = strlen(s);
	while (len) {
		ssize_t n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

/* mkdir -p of report_dir, in place on a copy. */
static void make_dirs(char *dir)
{
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0700);
			*p = '/';
		}
	mkdir(dir, 0700);
}

/* report_prefix<pid>.txt into buf: the pid of the crash, as a fork's
 * child that crashes before its exec is another process. */
static void report_name(char *buf, size_t size)
{
	char digits[24];
	size_t n = 0, used = strlen(report_prefix);
	for (long pid = (long)getpid(); pid > 0 && n < sizeof(digits); pid /= 10)
		digits[n++] = (char)('0' + pid % 10);
	if (used + n + 5 > size) {
		buf[0] = '\0';
		return;
	}
	memcpy(buf, report_prefix, used);
	while (n)
		buf[used++] = digits[--n];
	memcpy(buf + used, ".txt", 5);
}

const char *perun_crash_report_write(const char *what, const char *signal, const char *kind,
				     const char *name, const char *phase)
{
	static char dir[sizeof(report_dir)], path[sizeof(report_prefix) + 32];
	if (!header)
		return NULL;
	memcpy(dir, report_dir, sizeof(dir));
	make_dirs(dir);
	report_name(path, sizeof(path));
	int fd = path[0] ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)
			 : -1;
	if (fd < 0)
		return NULL;
	put(fd, header);
	put(fd, "crash:     ");
	put(fd, what);
	put(fd, "\nsignal:    ");
	put(fd, signal);
	if (name) {
		put(fd, "\nplugin:    ");
		put(fd, name);
		put(fd, " (");
		put(fd, kind ? kind : "?");
		put(fd, ")\nphase:     ");
		put(fd, phase ? phase : "?");
	} else {
		put(fd, "\nplugin:    none: perun itself crashed");
	}
	put(fd, "\n\nloaded plugins (kind, name, version, file):\n");
	struct plugin_lines *lines = plugins;
	put(fd, lines ? lines->text : "  none\n");
#ifdef HAVE_BACKTRACE
	put(fd, "\nbacktrace, innermost first (for the name of a frame\n"
		"'file(+offset)' run 'addr2line -f -C -e file offset'):\n");
	void *frames[64];
	backtrace_symbols_fd(frames, backtrace(frames, 64), fd);
#else
	put(fd, "\nbacktrace: not available on this system\n");
#endif
	close(fd);
	return path + shown_from;
}
