/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Every event this machine knows (events.h): libpfm4's tables of the PMUs
 * present (the kernel's generic events and the CPU's own), the sysfs PMU
 * events and the tracepoints, each tried once with perf_event_open on this
 * process to say whether it counts here.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* usable not known yet: tried by probe_all. */
#define USABLE_UNKNOWN (-1)

int counters_list_add(struct counters_event_list *list, const char *name, const char *pmu,
		      const char *description, const char *source, int usable,
		      struct perun_error *err)
{
	if (list->count == list->capacity) {
		size_t cap = list->capacity ? 2 * list->capacity : 256;
		void *grown = realloc(list->events, cap * sizeof(*list->events));
		if (!grown)
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		list->events = grown;
		list->capacity = cap;
	}
	struct counters_event_info *e = &list->events[list->count];
	memset(e, 0, sizeof(*e));
	e->name = strdup(name);
	e->pmu = strdup(pmu);
	e->description = strdup(description ? description : "");
	e->source = source;
	e->usable = usable;
	list->count++;
	if (!e->name || !e->pmu || !e->description)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	return 0;
}

const char *counters_attr_group(const struct perf_event_attr *attr)
{
	switch (attr->type) {
	case PERF_TYPE_HARDWARE: return "hardware";
	case PERF_TYPE_SOFTWARE: return "software";
	case PERF_TYPE_HW_CACHE: return "cache";
	default: return "perf";
	}
}

/* The kernel's generic events of libpfm4's "perf" PMU by perf's own
 * lower-case names ("cycles", "page-faults"), grouped like perf list. */
static const char *generic_group(const char *name)
{
	struct perf_event_attr attr = { 0 };
	pfm_perf_encode_arg_t arg = { .size = sizeof(arg), .attr = &attr };
	if (pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) != PFM_SUCCESS)
		return "perf";
	return counters_attr_group(&attr);
}

static int list_pfm_pmu(struct counters_event_list *list, const pfm_pmu_info_t *pmu,
			struct perun_error *err)
{
	int generic = !strcmp(pmu->name, "perf");
	int rc = 0;
	for (int i = pmu->first_event; i != -1 && !rc; i = pfm_get_event_next(i)) {
		pfm_event_info_t info = { .size = sizeof(info) };
		if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &info) != PFM_SUCCESS)
			continue;
		char name[512];
		if (generic) {
			/* PERF_COUNT_HW_CPU_CYCLES and the like: the aliases
			 * ("cycles") name them. */
			if (!info.equiv)
				continue;
			size_t k = 0;
			for (; info.name[k] && k + 1 < sizeof(name); k++)
				name[k] = (char)tolower((unsigned char)info.name[k]);
			name[k] = '\0';
		} else {
			snprintf(name, sizeof(name), "%s::%s", pmu->name, info.name);
		}
		const char *group = generic ? generic_group(name) : pmu->name;
		char desc[1024];
		/* The generic events' descriptions are their kernel names. */
		if (generic && info.desc && !strncmp(info.desc, "PERF_COUNT_", 11))
			snprintf(desc, sizeof(desc), "%s event %s", group, info.desc);
		else
			snprintf(desc, sizeof(desc), "%s", info.desc ? info.desc : "");
		rc = counters_list_add(list, name, group, desc, "libpfm4",
				       pmu->is_present ? USABLE_UNKNOWN : 0, err);
	}
	return rc;
}

static int list_pfm(struct counters_event_list *list, unsigned flags, struct perun_error *err)
{
	pfm_pmu_t p;
	int rc = 0;
	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t pmu = { .size = sizeof(pmu) };
		if (pfm_get_pmu_info(p, &pmu) != PFM_SUCCESS || !strcmp(pmu.name, "perf_raw"))
			continue;
		if (!pmu.is_present && !(flags & COUNTERS_LIST_ABSENT_PMUS))
			continue;
		rc = list_pfm_pmu(list, &pmu, err);
		if (rc)
			break;
	}
	return rc;
}

static int list_tracepoints(struct counters_event_list *list, struct perun_error *err)
{
	static const char *const roots[] = { "/sys/kernel/tracing/events",
					     "/sys/kernel/debug/tracing/events" };
	DIR *top = NULL;
	const char *root = NULL;
	for (size_t i = 0; i < sizeof(roots) / sizeof(*roots) && !top; i++)
		if ((top = opendir(roots[i])))
			root = roots[i];
	if (!top)
		return 0;
	int rc = 0;
	for (struct dirent *s; !rc && (s = readdir(top));) {
		char dir[600];
		snprintf(dir, sizeof(dir), "%s/%s", root, s->d_name);
		DIR *sub = s->d_name[0] == '.' ? NULL : opendir(dir);
		for (struct dirent *e; sub && !rc && (e = readdir(sub));) {
			char id[1200], name[600], desc[700];
			snprintf(id, sizeof(id), "%s/%s/id", dir, e->d_name);
			if (e->d_name[0] == '.' || access(id, R_OK))
				continue;
			snprintf(name, sizeof(name), "%s:%s", s->d_name, e->d_name);
			snprintf(desc, sizeof(desc), "tracepoint %s of the kernel's %s subsystem",
				 e->d_name, s->d_name);
			rc = counters_list_add(list, name, "tracepoint", desc, "tracefs",
					       USABLE_UNKNOWN, err);
		}
		if (sub)
			closedir(sub);
	}
	closedir(top);
	return rc;
}

static int counts_here(const char *name)
{
	struct counters_event ev;
	int usable = 0;
	if (!counters_event_resolve(name, &ev, NULL)) {
		ev.attr.disabled = 1;
		int fd = counters_event_open(&ev, 0, NULL);
		usable = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	counters_event_release(&ev);
	return usable;
}

/* Decide usable by opening each event once; tracepoints all count or none
 * do (perf_event_paranoid), so the first one answers for all. */
static void probe_all(struct counters_event_list *list, unsigned flags)
{
	int tracepoints = USABLE_UNKNOWN;
	for (size_t i = 0; i < list->count; i++) {
		struct counters_event_info *e = &list->events[i];
		if (e->usable != USABLE_UNKNOWN)
			continue;
		if (flags & COUNTERS_LIST_NO_PROBE)
			e->usable = 1;
		else if (!strcmp(e->source, "tracefs"))
			e->usable = tracepoints =
				tracepoints == USABLE_UNKNOWN ? counts_here(e->name) : tracepoints;
		else
			e->usable = counts_here(e->name);
	}
}

static int by_pmu_then_name(const void *a, const void *b)
{
	const struct counters_event_info *x = a, *y = b;
	int c = strcmp(x->pmu, y->pmu);
	return c ? c : strcmp(x->name, y->name);
}

int counters_event_list(struct counters_event_list *list, unsigned flags, struct perun_error *err)
{
	int rc = counters_pfm_init(err);
	if (!rc)
		rc = list_pfm(list, flags, err);
	if (!rc)
		rc = counters_sysfs_list(list, err);
	if (!rc)
		rc = list_tracepoints(list, err);
	if (rc)
		return rc;
	probe_all(list, flags);
	if (list->count)
		qsort(list->events, list->count, sizeof(*list->events), by_pmu_then_name);
	return 0;
}

void counters_event_list_release(struct counters_event_list *list)
{
	for (size_t i = 0; i < list->count; i++) {
		free(list->events[i].name);
		free(list->events[i].pmu);
		free(list->events[i].description);
	}
	free(list->events);
	memset(list, 0, sizeof(*list));
}

int counters_event_matches(const struct counters_event_info *e, const char *pattern)
{
	return !pattern || !*pattern || strcasestr(e->name, pattern) ||
	       strcasestr(e->pmu, pattern) || strcasestr(e->description, pattern);
}
