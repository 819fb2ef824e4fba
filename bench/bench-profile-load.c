/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * bench-profile-load: the cost of libperun's profile phases on files.
 *
 *   bench-profile-load [-n runs] file...
 *       for every file: load (parse into the tape and validate), walk
 *       (perun_profile_foreach_type over the tape, every column value
 *       read), tree (perun_profile_json builds the resources' tree), walk
 *       tree (the same walk on the tree form), the compact and the pending
 *       dump, the flattened items of every resource row
 *       (perun_profile_foreach_resource + perun_items_of), and free; one
 *       line per phase with the user instructions (from the CPU's counter,
 *       "-" where perf events are not allowed), the CPU and the wall
 *       seconds of the fastest of the runs; then load + tree, what loading
 *       cost before the tape.
 *   bench-profile-load --items file
 *       writes every resource row's items, one "key=value" per line, for
 *       comparing versions (tests/helpers/profile-tool writes the dumps).
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <perun/perun.h>

static int counter_fd = -1;

static void counter_open(void)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	counter_fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

struct sample {
	uint64_t insns;
	double cpu, wall;
};

static double seconds(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct sample sample_now(void)
{
	struct sample s = { 0, seconds(CLOCK_PROCESS_CPUTIME_ID), seconds(CLOCK_MONOTONIC) };
	if (counter_fd >= 0 && read(counter_fd, &s.insns, sizeof(s.insns)) != sizeof(s.insns))
		s.insns = 0;
	return s;
}

/* Keep the fastest (by CPU time) of the runs of one phase. */
static void keep_best(struct sample *best, struct sample a, struct sample b, int first)
{
	struct sample d = { b.insns - a.insns, b.cpu - a.cpu, b.wall - a.wall };
	if (first || d.cpu < best->cpu)
		*best = d;
}

static void print_phase(const char *phase, struct sample s)
{
	char insns[32] = "-";
	if (counter_fd >= 0)
		snprintf(insns, sizeof(insns), "%.1fM", (double)s.insns / 1e6);
	printf("  %-14s %10s insns %8.3f s cpu %8.3f s wall\n", phase, insns, s.cpu, s.wall);
}

static int count_item(const char *key, const json_t *value, void *data)
{
	(void)key;
	(void)value;
	++*(size_t *)data;
	return 0;
}

static int row_items(const json_t *row, void *data)
{
	struct perun_error err = { 0 };
	int rc = perun_items_of(row, count_item, data, &err);
	return rc;
}

static int print_item(const char *key, const json_t *value, void *data)
{
	(void)data;
	char *text = perun_value_flatten_dup(value);
	printf("%s=%s\n", key, text ? text : "(out of memory)");
	free(text);
	return 0;
}

static int print_row(const json_t *row, void *data)
{
	struct perun_error err = { 0 };
	int rc = perun_items_of(row, print_item, data, &err);
	printf("\n");
	return rc;
}

/* What a reader of the resources does: every value of every column seen,
 * the numbers summed (so that the walk is not optimised away). */
struct walk_sum {
	size_t types, values;
	double sum;
};

static int walk_type(const char *id, const struct perun_jv *persistent,
		     const struct perun_jv *columns, void *data)
{
	struct walk_sum *w = data;
	const struct perun_jv *key, *values, *v;
	size_t i, j;
	double d;
	(void)id;
	(void)persistent;
	w->types++;
	perun_jv_object_foreach(columns, i, key, values) perun_jv_array_foreach(values, j, v)
	{
		w->values++;
		if (!perun_jv_number(v, &d))
			w->sum += d;
	}
	return 0;
}

static int walk(const struct perun_profile *p, struct walk_sum *w)
{
	struct perun_error err = { 0 };
	memset(w, 0, sizeof(*w));
	if (perun_profile_foreach_type(p, walk_type, w, &err)) {
		fprintf(stderr, "bench-profile-load: %s\n", err.message);
		return -1;
	}
	return 0;
}

static struct perun_profile *load(const char *path)
{
	struct perun_error err = { 0 };
	struct perun_profile *p = NULL;
	if (perun_profile_load_file(path, &p, &err)) {
		fprintf(stderr, "bench-profile-load: %s\n", err.message);
		exit(2);
	}
	return p;
}

static int bench_file(const char *path, int runs)
{
	struct perun_error err = { 0 };
	char *buf;
	size_t len;
	if (perun_file_read(path, &buf, &len, &err)) {
		fprintf(stderr, "bench-profile-load: %s\n", err.message);
		return 2;
	}
	enum {
		STREAMED_LOAD,
		STREAMED_WALK,
		STREAMED_FREE,
		LOAD,
		WALK,
		TREE,
		WALK_TREE,
		COMPACT,
		PENDING,
		ITEMS,
		FREE,
		PHASES
	};
	struct sample best[PHASES], t[PHASES + 1];
	struct walk_sum on_tape, on_tree, streamed;
	size_t rows = 0, items = 0, compact = 0, pending = 0;
	for (int r = 0; r < runs; r++) {
		struct perun_profile *p = NULL;
		/* From the file, as perun show loads it for the stack views;
		 * first, before a freed tree leaves malloc its heap to sort. */
		t[STREAMED_LOAD] = sample_now();
		if (perun_profile_load_file_streamed(path, &p, &err)) {
			fprintf(stderr, "bench-profile-load: %s\n", err.message);
			free(buf);
			return 2;
		}
		t[STREAMED_WALK] = sample_now();
		int failed = walk(p, &streamed);
		t[STREAMED_FREE] = sample_now();
		perun_profile_free(p);
		p = NULL;
		t[LOAD] = sample_now();
		if (perun_profile_load_buffer(buf, len, path, &p, &err)) {
			fprintf(stderr, "bench-profile-load: %s\n", err.message);
			free(buf);
			return 2;
		}
		t[WALK] = sample_now();
		failed |= walk(p, &on_tape);
		t[TREE] = sample_now();
		perun_profile_json(p);
		t[WALK_TREE] = sample_now();
		failed |= walk(p, &on_tree);
		t[COMPACT] = sample_now();
		free(perun_profile_dump(p, PERUN_DUMP_COMPACT, 1, &compact));
		t[PENDING] = sample_now();
		free(perun_profile_dump(p, PERUN_DUMP_PENDING, 1, &pending));
		t[ITEMS] = sample_now();
		items = 0;
		perun_profile_foreach_resource(p, row_items, &items);
		t[FREE] = sample_now();
		rows = perun_profile_resource_count(p);
		perun_profile_free(p);
		t[PHASES] = sample_now();
		for (int phase = 0; phase < PHASES; phase++)
			keep_best(&best[phase], t[phase], t[phase + 1], !r);
		if (failed || on_tape.values != on_tree.values ||
		    memcmp(&on_tape.sum, &on_tree.sum, sizeof(on_tape.sum)) ||
		    on_tape.values != streamed.values ||
		    memcmp(&on_tape.sum, &streamed.sum, sizeof(on_tape.sum))) {
			fprintf(stderr,
				"bench-profile-load: %s: the walks of tape, tree and stream "
				"differ\n",
				path);
			free(buf);
			return 2;
		}
	}
	printf("%s: %.1f MB, %zu rows, %zu items, %zu types, %zu column values; best of %d\n", path,
	       (double)len / 1e6, rows, items, on_tape.types, on_tape.values, runs);
	static const char *const names[] = { "streamed load", "streamed walk", "streamed free",
					     "load",	      "walk",	       "tree",
					     "walk tree",     "dump compact",  "dump pending",
					     "items",	      "free" };
	for (int phase = 0; phase < PHASES; phase++)
		print_phase(names[phase], best[phase]);
	struct sample before = { best[LOAD].insns + best[TREE].insns,
				 best[LOAD].cpu + best[TREE].cpu,
				 best[LOAD].wall + best[TREE].wall };
	print_phase("load + tree", before);
	printf("  (compact %zu bytes, pending %zu bytes)\n", compact, pending);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int runs = 3, i = 1;
	if (argc == 3 && !strcmp(argv[1], "--items")) {
		struct perun_profile *p = load(argv[2]);
		int rc = perun_profile_foreach_resource(p, print_row, NULL);
		perun_profile_free(p);
		return rc ? 2 : 0;
	}
	if (argc > 2 && !strcmp(argv[1], "-n")) {
		runs = atoi(argv[2]);
		i = 3;
	}
	if (i >= argc || runs < 1) {
		fprintf(stderr, "usage: bench-profile-load [-n runs] file...\n"
				"       bench-profile-load --items file\n");
		return 2;
	}
	counter_open();
	int rc = 0;
	for (; i < argc; i++)
		rc |= bench_file(argv[i], runs);
	return rc;
}
