/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Running the fuzzed program once per input: fork and exec, wait with a
 * pidfd (no polling, so a run costs the program's time and little more),
 * kill it on a hang, and read its coverage with gcov --json-format.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

extern char **environ;

#include <perun/error.h>

#include "mutate.h"

/* Append the words of s to run's argv, with room for two more. */
static void split_words(const char *s, struct mut_runner *run)
{
	char *copy = strdup(s ? s : ""), *save;
	for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		mut_grow((void **)&run->argv, &run->argv_cap, run->argc + 3, sizeof(*run->argv));
		run->argv[run->argc++] = strdup(w);
	}
	free(copy);
}

static int executable(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

int mut_runner_init(struct mut_runner *run, const char *cmd, const char *args,
		    struct perun_error *err)
{
	memset(run, 0, sizeof(*run));
	split_words(cmd, run);
	if (!run->argc)
		return perun_error_set(err, PERUN_EINVAL, "fuzz: --cmd is empty");
	split_words(args, run);
	run->argv[run->argc] = NULL;
	run->argv[run->argc + 1] = NULL;
	const char *prog = run->argv[0];
	int found = 0;
	if (strchr(prog, '/'))
		found = executable(prog);
	else {
		const char *path = getenv("PATH");
		char *copy = strdup(path ? path : "/usr/bin:/bin"), *save;
		for (char *d = strtok_r(copy, ":", &save); d && !found;
		     d = strtok_r(NULL, ":", &save)) {
			char full[4096];
			snprintf(full, sizeof(full), "%s/%s", *d ? d : ".", prog);
			found = executable(full);
		}
		free(copy);
	}
	if (!found)
		return perun_error_set(err, PERUN_EINVAL, "fuzz: command '%s' not found", prog);
	return 0;
}

void mut_runner_release(struct mut_runner *run)
{
	for (size_t i = 0; i < run->argc; i++)
		free(run->argv[i]);
	free(run->argv);
	for (size_t i = 0; i < run->ngcno; i++)
		free(run->gcno[i]);
	free(run->gcno);
	memset(run, 0, sizeof(*run));
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

int mut_runner_coverage(struct mut_runner *run, const char *dir, struct perun_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return perun_error_set(err, PERUN_EINVAL, "fuzz: cannot read gcno path '%s': %m",
				       dir);
	struct dirent *e;
	while ((e = readdir(d)))
		if (has_suffix(e->d_name, ".gcno")) {
			char full[4096];
			snprintf(full, sizeof(full), "%s/%s", dir, e->d_name);
			mut_grow((void **)&run->gcno, &run->gcno_cap, run->ngcno + 1,
				 sizeof(*run->gcno));
			run->gcno[run->ngcno++] = strdup(full);
		}
	closedir(d);
	if (!run->ngcno)
		return perun_error_set(err, PERUN_EINVAL,
				       "fuzz: no gcov data (.gcno) in '%s': build the program "
				       "with --coverage, or give --skip-coverage-testing",
				       dir);
	run->gcno_dir = dir;
	return 0;
}

/* Counts of a previous run would add up: each run starts from none. */
static void remove_gcda(const struct mut_runner *run)
{
	for (size_t i = 0; i < run->ngcno; i++) {
		char *p = strdup(run->gcno[i]);
		strcpy(p + strlen(p) - 5, ".gcda");
		unlink(p);
		free(p);
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spawn argv with output to /dev/null (or to fd out when >= 0) in a
 * process group of its own (a hang is killed with all it started).
 * posix_spawn, not fork: glibc clones without copying perun's page
 * tables, which is most of the cost of a short run. */
static pid_t spawn(char *const *argv, int out)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (out >= 0)
		posix_spawn_file_actions_adddup2(&fa, out, 1);
	else
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return rc ? -1 : pid;
}

/* Wait for pid at most timeout seconds (<= 0: forever); 1 when it had to
 * be killed. */
static int wait_child(pid_t pid, double timeout, int *status, struct rusage *ru,
		      const volatile int *interrupted)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), killed = 0;
	double deadline = now() + timeout;
	while (fd >= 0) {
		int ms = timeout > 0 ? (int)((deadline - now()) * 1000) + 1 : -1;
		if (timeout > 0 && ms <= 0)
			ms = 0;
		struct pollfd p = { fd, POLLIN, 0 };
		int n = poll(&p, 1, ms);
		if (n > 0)
			break;
		if ((n == 0) || (interrupted && *interrupted)) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			killed = n == 0;
			break;
		}
	}
	if (fd < 0) { /* no pidfd (old kernel): poll with short sleeps */
		while (!wait4(pid, status, WNOHANG, ru)) {
			if ((timeout > 0 && now() > deadline) || (interrupted && *interrupted)) {
				killed = !(interrupted && *interrupted);
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				break;
			}
			struct timespec ts = { 0, 200000 };
			nanosleep(&ts, NULL);
		}
	} else
		close(fd);
	while (wait4(pid, status, 0, ru) < 0 && errno == EINTR)
		;
	return killed;
}

static double line_counts(json_t *doc)
{
	double sum = 0;
	size_t i, j;
	json_t *file, *line;
	json_array_foreach(json_object_get(doc, "files"), i, file)
	{
		json_array_foreach(json_object_get(file, "lines"), j, line) sum +=
			json_number_value(json_object_get(line, "count"));
	}
	return sum;
}

/* Sum of the line execution counts gcov reports for the .gcda files the
 * run left (a line run n times counts n: more work, more coverage). */
static int read_coverage(const struct mut_runner *run, double *cov, struct perun_error *err)
{
	char **argv = calloc(run->ngcno + 4, sizeof(*argv));
	size_t n = 0;
	argv[n++] = "gcov";
	argv[n++] = "--json-format";
	argv[n++] = "--stdout";
	for (size_t i = 0; i < run->ngcno; i++)
		argv[n++] = run->gcno[i];
	char tmpl[] = "/tmp/perun-gcov-XXXXXX";
	int fd = mkstemp(tmpl);
	if (fd < 0) {
		free(argv);
		return perun_error_set(err, PERUN_ETOOL, "fuzz: cannot make a temporary file: %m");
	}
	unlink(tmpl);
	/* gcov writes nothing into its working directory with --stdout */
	pid_t pid = spawn(argv, fd);
	free(argv);
	int status = 0;
	struct rusage ru;
	if (pid > 0)
		wait_child(pid, 60, &status, &ru, NULL);
	if (pid <= 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		close(fd);
		return perun_error_set(err, PERUN_ETOOL,
				       "fuzz: gcov failed on the gcov data in '%s'", run->gcno_dir);
	}
	off_t len = lseek(fd, 0, SEEK_END);
	char *text = malloc((size_t)len + 1);
	if (pread(fd, text, (size_t)len, 0) != len)
		len = 0;
	close(fd);
	*cov = 0;
	size_t off = 0;
	while (off < (size_t)len) {
		json_error_t jerr;
		json_t *doc =
			json_loadb(text + off, (size_t)len - off, JSON_DISABLE_EOF_CHECK, &jerr);
		if (!doc)
			break;
		*cov += line_counts(doc);
		json_decref(doc);
		off += jerr.position;
		while (off < (size_t)len && (text[off] == '\n' || text[off] == ' '))
			off++;
	}
	free(text);
	return 0;
}

/* The arc counters of one .gcda file summed into *sum (the edges a run
 * took, counted as often as taken); -1 when it is not a .gcda we know. */
static int gcda_arcs(const unsigned char *d, size_t len, double *sum)
{
	uint32_t w[4];
	if (len < 16)
		return -1;
	memcpy(w, d, 16);
	if (w[0] != 0x67636461u) /* "gcda" */
		return -1;
	/* version "B22*": GCC 12.2; from GCC 12 the header has a checksum
	 * and record lengths are in bytes (negative: all-zero counters,
	 * not written), before they were in words */
	int major = (int)((w[1] >> 24) - 'A') * 10 + (int)(((w[1] >> 16) & 0xff) - '0');
	int bytes = major >= 12;
	size_t pos = bytes ? 16 : 12;
	while (pos + 8 <= len) {
		uint32_t tag, length;
		memcpy(&tag, d + pos, 4);
		memcpy(&length, d + pos + 4, 4);
		pos += 8;
		size_t payload = bytes ? ((int32_t)length < 0 ? 0 : length) : (size_t)length * 4;
		if (payload > len - pos)
			return -1;
		if (tag == 0x01a10000u) /* arc counters: 64-bit, low word first */
			for (size_t i = 0; i + 8 <= payload; i += 8) {
				uint32_t lo, hi;
				memcpy(&lo, d + pos + i, 4);
				memcpy(&hi, d + pos + i + 4, 4);
				*sum += (double)(((uint64_t)hi << 32) | lo);
			}
		pos += payload;
	}
	return 0;
}

/* In process: read the .gcda files the run left, no gcov run. */
static int read_gcda(const struct mut_runner *run, double *cov, struct perun_error *err)
{
	*cov = 0;
	for (size_t i = 0; i < run->ngcno; i++) {
		char *p = strdup(run->gcno[i]);
		strcpy(p + strlen(p) - 5, ".gcda");
		int fd = open(p, O_RDONLY);
		struct stat st;
		if (fd < 0 || fstat(fd, &st)) { /* not run: no counts */
			if (fd >= 0)
				close(fd);
			free(p);
			continue;
		}
		unsigned char *d = malloc((size_t)st.st_size + 1);
		ssize_t n = read(fd, d, (size_t)st.st_size);
		close(fd);
		int rc = n == st.st_size ? gcda_arcs(d, (size_t)n, cov) : -1;
		free(d);
		if (rc) {
			rc = perun_error_set(err, PERUN_ETOOL,
					     "fuzz: '%s' is no .gcda this reader knows; use "
					     "--coverage-reader gcov",
					     p);
			free(p);
			return rc;
		}
		free(p);
	}
	return 0;
}

int mut_runner_run(struct mut_runner *run, const char *input, enum mut_run_result *result,
		   double *cpu, double *cov, struct perun_error *err)
{
	run->argv[run->argc] = (char *)input;
	if (run->gcno_dir)
		remove_gcda(run);
	pid_t pid = spawn(run->argv, -1);
	run->argv[run->argc] = NULL;
	if (pid < 0)
		return perun_error_set(err, PERUN_ETOOL, "fuzz: cannot start '%s': %m",
				       run->argv[0]);
	int status = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	int hung = wait_child(pid, run->hang_timeout, &status, &ru, run->interrupted);
	*cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	*cov = 0;
	if (hung)
		*result = MUT_RUN_HANG;
	else if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status)))
		*result = MUT_RUN_FAULT;
	else
		*result = MUT_RUN_OK;
	if (run->interrupted && *run->interrupted)
		return 0;
	if (*result == MUT_RUN_OK && run->gcno_dir)
		return run->gcda ? read_gcda(run, cov, err) : read_coverage(run, cov, err);
	return 0;
}
