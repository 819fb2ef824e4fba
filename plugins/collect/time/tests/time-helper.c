/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * time-helper - a program with a known behaviour for the time collector's
 * tests.  Actions run in the order given:
 *   record FILE     append one line with the remaining argv to FILE
 *   sleep MS        sleep at least MS milliseconds
 *   cpu MS          spin until this process used MS ms of user time
 *   touch KIB       allocate and touch KIB KiB of memory
 *   out TEXT        write TEXT to stdout;  err TEXT: to stderr
 *   stdin           copy stdin to stdout
 *   nth FILE N C    append a line to FILE; exit with C if it now has N lines
 *   exit N          exit with status N;  kill SIG: raise signal SIG
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double user_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *verb = argv[i];
		const char *arg = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(verb, "stdin")) {
			int c;
			while ((c = getchar()) != EOF)
				putchar(c);
			continue;
		}
		if (!arg) {
			fprintf(stderr, "time-helper: '%s' needs an argument\n", verb);
			return 100;
		}
		i++;
		if (!strcmp(verb, "record")) {
			FILE *f = fopen(arg, "a");
			if (!f)
				return 101;
			for (int j = 1; j < argc; j++)
				fprintf(f, "%s[%s]", j > 1 ? " " : "", argv[j]);
			fputc('\n', f);
			fclose(f);
		} else if (!strcmp(verb, "nth")) {
			if (i + 2 >= argc)
				return 100;
			long want = atol(argv[++i]);
			int code = atoi(argv[++i]);
			FILE *f = fopen(arg, "a+");
			if (!f)
				return 101;
			fputs("run\n", f);
			rewind(f);
			long lines = 0;
			int c;
			while ((c = fgetc(f)) != EOF)
				lines += c == '\n';
			fclose(f);
			if (lines == want)
				return code;
		} else if (!strcmp(verb, "sleep")) {
			long ms = atol(arg);
			struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
			while (nanosleep(&ts, &ts) != 0)
				;
		} else if (!strcmp(verb, "cpu")) {
			double until = atol(arg) / 1000.0;
			volatile unsigned long sink = 0;
			while (user_seconds() < until)
				for (int k = 0; k < 100000; k++)
					sink += (unsigned long)k;
		} else if (!strcmp(verb, "touch")) {
			size_t bytes = (size_t)atol(arg) * 1024;
			char *p = malloc(bytes);
			if (!p)
				return 102;
			/* volatile: the stores must not be optimised away. */
			volatile char *v = p;
			for (size_t k = 0; k < bytes; k += 1024)
				v[k] = 1;
			free(p);
		} else if (!strcmp(verb, "out")) {
			fputs(arg, stdout);
			fflush(stdout);
		} else if (!strcmp(verb, "err")) {
			fputs(arg, stderr);
		} else if (!strcmp(verb, "exit")) {
			return atoi(arg);
		} else if (!strcmp(verb, "kill")) {
			signal(atoi(arg), SIG_DFL);
			raise(atoi(arg));
		} else {
			fprintf(stderr, "time-helper: unknown action '%s'\n", verb);
			return 100;
		}
	}
	return 0;
}
