/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * perun-events: every performance event this machine knows, with its PMU,
 * a description and whether it counts here, as a table or JSON.  Run as
 * "perun events" (perun runs perun-<name> for commands it lacks, as git
 * does); the list itself is data of plugins/lib/counters.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "events.h"

static const char usage[] =
	"usage: perun events [--format table|json] [--all] [--usable] [<pattern>]\n"
	"\n"
	"Lists the events 'perun collect counters -e <event>' counts: libpfm4's\n"
	"names of the PMUs present (the kernel's generic events and the CPU's\n"
	"own), the PMU events of /sys/bus/event_source/devices and the\n"
	"tracepoints, each tried once to say whether it counts here.  A pattern\n"
	"keeps those with it in their name, PMU or description (any case).\n"
	"\n"
	"  --format table|json  the output (default table)\n"
	"  --all                also the events of PMUs this machine lacks\n"
	"  --usable             only the events that count here\n";

static int print_json(const struct counters_event_list *list, const char *pattern, int usable_only)
{
	json_t *events = json_array();
	for (size_t i = 0; events && i < list->count; i++) {
		const struct counters_event_info *e = &list->events[i];
		if (!counters_event_matches(e, pattern) || (usable_only && !e->usable))
			continue;
		if (json_array_append_new(events,
					  json_pack("{s:s, s:s, s:s, s:b, s:s}", "name", e->name,
						    "pmu", e->pmu, "description", e->description,
						    "usable", e->usable, "source", e->source))) {
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

static void print_table(const struct counters_event_list *list, const char *pattern,
			int usable_only)
{
	int width = 24;
	for (size_t i = 0; i < list->count; i++) {
		int len = (int)strlen(list->events[i].name);
		if (counters_event_matches(&list->events[i], pattern) && len > width && len < 48)
			width = len;
	}
	printf("%-*s  %-12s  %-6s  %s\n", width, "EVENT", "PMU", "USABLE", "DESCRIPTION");
	for (size_t i = 0; i < list->count; i++) {
		const struct counters_event_info *e = &list->events[i];
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
	int rc = 0;
	if (json)
		rc = print_json(&list, pattern, usable_only) ? 3 : 0;
	else
		print_table(&list, pattern, usable_only);
	counters_event_list_release(&list);
	if (fflush(stdout) || ferror(stdout))
		rc = 3;
	return rc;
}
