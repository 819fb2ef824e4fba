/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared between the files of the counters library; not for its users. */
#ifndef PERUN_LIB_COUNTERS_INTERNAL_H
#define PERUN_LIB_COUNTERS_INTERNAL_H

#include "events.h"

/* pfm_initialize, once per process (libpfm4 remembers it). */
int counters_pfm_init(struct perun_error *err);

/* "hardware", "software" or "cache" for the kernel's generic events
 * (libpfm4's "perf" PMU), else "perf". */
const char *counters_attr_group(const struct perf_event_attr *attr);

/* A number in a sysfs or procfs file (decimal, or 0x hex). */
int counters_sysfs_read_u64(const char *path, unsigned long long *value);

/* "pmu/terms/": 1 resolved, 0 not such a name, or a negative error. */
int counters_sysfs_resolve(const char *name, struct counters_event *ev, struct perun_error *err);

/* Append the events of /sys/bus/event_source/devices/<pmu>/events. */
int counters_sysfs_list(struct counters_event_list *list, struct perun_error *err);

/* Append one event (strings copied); 0 or a negative error. */
int counters_list_add(struct counters_event_list *list, const char *name, const char *pmu,
		      const char *description, const char *source, int usable,
		      struct perun_error *err);

#endif
