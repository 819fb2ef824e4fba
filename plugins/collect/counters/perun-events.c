/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun-events: every performance event this machine knows, with its PMU,
 * a description and whether it counts here, as a table or JSON.  Run as
 * "perun events" (perun runs perun-<name> for commands it lacks, as git
 * does); the list itself is data of plugins/lib/counters.
 */
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <zlib.h>

#include "events.h"

static const char usage[] =
	"usage: perun events [--format table|json] [--all] [--usable] [<pattern>]\n"
	"\n"
	"Lists the events 'perun collect counters -e <event>' counts: libpfm4's\n"
	"names of the PMUs present (the kernel's generic events and the CPU's\n"
	"own), the PMU events of /sys/bus/event_source/devices and the\n"
	"tracepoints, each tried once to say whether it counts here.  A pattern\n"
	"keeps those with it in their name, PMU or description (any case).\n"
	"Inside a perun instance, the events its profiles (counters and kperf,\n"
	"pending and stored) counted most come first, \"used\" in the JSON.\n"
	"\n"
	"  --format table|json  the output (default table)\n"
	"  --all                also the events of PMUs this machine lacks\n"
	"  --usable             only the events that count here\n";

/* Each collector_info of the store's profiles that names events adds one
 * use to each of them; the list is then ordered by uses, most first. */
static void count_uses(struct counters_event_list *list, const char *name)
{
	for (size_t i = 0; i < list->count; i++)
		if (!strcmp(list->events[i].name, name)) {
			list->events[i].used++;
			return;
		}
}

static void count_profile_uses(struct counters_event_list *list, json_t *profile)
{
	json_t *info = json_object_get(profile, "collector_info");
	const char *collector = json_string_value(json_object_get(info, "name"));
	if (!collector || (strcmp(collector, "counters") && strcmp(collector, "kperf")))
		return;
	json_t *events = json_object_get(json_object_get(info, "params"), "event");
	json_t *one = events;
	size_t n = json_is_array(events) ? json_array_size(events) : 1;
	for (size_t k = 0; k < n; k++) {
		if (json_is_array(events))
			one = json_array_get(events, k);
		const char *names = json_string_value(one);
		char *copy = names ? strdup(names) : NULL, *save = NULL;
		for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t;
		     t = strtok_r(NULL, ",", &save))
			count_uses(list, t);
		free(copy);
	}
	if (!events && !strcmp(collector, "kperf"))
		count_uses(list, "cpu-clock");
}

/* A stored object: zlib of "profile <type> <length>\0<json>"; anything
 * else (an index, a corrupt file) is not a profile and is skipped. */
static json_t *load_object(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	z_stream z = { 0 };
	unsigned char in[65536];
	size_t cap = 1 << 20, len = 0;
	char *out = malloc(cap);
	int zrc = out ? inflateInit(&z) : Z_MEM_ERROR;
	while (zrc == Z_OK) {
		z.avail_in = (uInt)fread(in, 1, sizeof(in), f);
		z.next_in = in;
		if (!z.avail_in)
			break;
		do {
			if (cap - len < 65536) {
				char *bigger = realloc(out, cap * 2);
				if (!bigger) {
					zrc = Z_MEM_ERROR;
					break;
				}
				out = bigger;
				cap *= 2;
			}
			z.next_out = (unsigned char *)out + len;
			z.avail_out = (uInt)(cap - len);
			zrc = inflate(&z, Z_NO_FLUSH);
			len = cap - z.avail_out;
		} while (zrc == Z_OK && z.avail_in);
	}
	if (out)
		inflateEnd(&z);
	fclose(f);
	json_t *profile = NULL;
	char *nul = zrc == Z_STREAM_END ? memchr(out, '\0', len) : NULL;
	if (nul && len > 8 && !memcmp(out, "profile ", 8))
		profile = json_loadb(nul + 1, len - (size_t)(nul + 1 - out), 0, NULL);
	free(out);
	return profile;
}

static void count_dir(struct counters_event_list *list, const char *dir, int objects)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		char path[PATH_MAX];
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		size_t n = strlen(de->d_name);
		if (objects && n == 2) {
			count_dir(list, path, 2);
			continue;
		}
		json_t *profile = NULL;
		if (objects == 2)
			profile = load_object(path);
		else if (!objects && n > 5 && !strcmp(de->d_name + n - 5, ".perf"))
			profile = json_load_file(path, 0, NULL);
		if (profile)
			count_profile_uses(list, profile);
		json_decref(profile);
	}
	closedir(d);
}

/* The .perun of the instance around the working directory, if any. */
static void count_store_uses(struct counters_event_list *list)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	if (!getcwd(dir, sizeof(dir)))
		return;
	for (;;) {
		snprintf(path, sizeof(path), "%s/.perun", dir);
		if (!access(path, F_OK))
			break;
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return;
		*slash = '\0';
	}
	char sub[PATH_MAX + 32];
	snprintf(sub, sizeof(sub), "%s/jobs", path);
	count_dir(list, sub, 0);
	snprintf(sub, sizeof(sub), "%s/objects", path);
	count_dir(list, sub, 1);
}

static const struct counters_event_list *sort_list;

static int by_uses(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	unsigned long x = sort_list->events[i].used, y = sort_list->events[j].used;
	return x != y ? (x < y ? 1 : -1) : (i > j) - (i < j);
}

/* The order to print in: most used first, else the list's own order. */
static size_t *order_by_uses(const struct counters_event_list *list)
{
	size_t *order = malloc((list->count ? list->count : 1) * sizeof(*order));
	if (!order)
		return NULL;
	for (size_t i = 0; i < list->count; i++)
		order[i] = i;
	sort_list = list;
	qsort(order, list->count, sizeof(*order), by_uses);
	return order;
}

static int print_json(const struct counters_event_list *list, const size_t *order,
		      const char *pattern, int usable_only)
{
	json_t *events = json_array();
	for (size_t i = 0; events && i < list->count; i++) {
		const struct counters_event_info *e = &list->events[order[i]];
		if (!counters_event_matches(e, pattern) || (usable_only && !e->usable))
			continue;
		if (json_array_append_new(events,
					  json_pack("{s:s, s:s, s:s, s:b, s:s, s:I}", "name",
						    e->name, "pmu", e->pmu, "description",
						    e->description, "usable", e->usable, "source",
						    e->source, "used", (json_int_t)e->used))) {
			json_decref(events);
			events = NULL;
		}
	}
	json_t *doc = events ? json_pack("{s:i, s:o}", "schema", 1, "events", events) : NULL;
	int rc = doc ? json_dumpf(doc, stdout, JSON_INDENT(2)) : -1;
	json_decref(doc);
	if (!rc)
		putchar('\n');
	return rc;
}

static void print_table(const struct counters_event_list *list, const size_t *order,
			const char *pattern, int usable_only)
{
	int width = 24;
	for (size_t i = 0; i < list->count; i++) {
		int len = (int)strlen(list->events[i].name);
		if (counters_event_matches(&list->events[i], pattern) && len > width && len < 48)
			width = len;
	}
	printf("%-*s  %-12s  %-6s  %s\n", width, "EVENT", "PMU", "USABLE", "DESCRIPTION");
	for (size_t i = 0; i < list->count; i++) {
		const struct counters_event_info *e = &list->events[order[i]];
		if (!counters_event_matches(e, pattern) || (usable_only && !e->usable))
			continue;
		printf("%-*s  %-12s  %-6s  %s\n", width, e->name, e->pmu, e->usable ? "yes" : "no",
		       e->description);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' },
		{ "usable", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, usable_only = 0, opt;
	unsigned flags = 0;
	while ((opt = getopt_long(argc, argv, "f:auh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "table")) {
				fprintf(stderr,
					"perun: events: --format is table or json, not '%s'\n",
					optarg);
				return 2;
			}
			json = !strcmp(optarg, "json");
			break;
		case 'a': flags |= COUNTERS_LIST_ABSENT_PMUS; break;
		case 'u': usable_only = 1; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "perun: events: one pattern at most (see 'perun events --help')\n");
		return 2;
	}
	const char *pattern = optind < argc ? argv[optind] : NULL;
	struct counters_event_list list = { 0 };
	struct perun_error err = { 0 };
	if (counters_event_list(&list, flags, &err)) {
		fprintf(stderr, "perun: events: %s\n", err.message);
		counters_event_list_release(&list);
		return 3;
	}
	/* The list has no tracepoints without tracefs: say why. */
	if (access("/sys/kernel/tracing/events", F_OK) &&
	    access("/sys/kernel/debug/tracing/events", F_OK))
		fprintf(stderr, "perun: events: no tracepoints listed: tracefs is not mounted "
				"(mount -t tracefs nodev /sys/kernel/tracing)\n");
	count_store_uses(&list);
	size_t *order = order_by_uses(&list);
	int rc = order ? 0 : 3;
	if (order && json)
		rc = print_json(&list, order, pattern, usable_only) ? 3 : 0;
	else if (order)
		print_table(&list, order, pattern, usable_only);
	free(order);
	counters_event_list_release(&list);
	if (fflush(stdout) || ferror(stdout))
		rc = 3;
	return rc;
}
