/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Event names to perf_event_attr (events.h): raw codes, sysfs PMU events,
 * libpfm4 names and tracepoints, and opening one with an error that says
 * why this machine cannot count it.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "events.h"
#include "internal.h"

/* Where tracefs may be mounted, newest first. */
static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

int counters_pfm_init(struct perun_error *err)
{
	int rc = pfm_initialize();
	if (rc != PFM_SUCCESS)
		return perun_error_set(err, PERUN_ETOOL, "cannot initialize libpfm4: %s",
				       pfm_strerror(rc));
	return 0;
}

static int resolve_raw(const char *name, struct counters_event *ev)
{
	char *end;
	if (name[0] != 'r' || !isxdigit((unsigned char)name[1]))
		return 0;
	errno = 0;
	unsigned long long code = strtoull(name + 1, &end, 16);
	if (*end || errno)
		return 0;
	ev->attr.type = PERF_TYPE_RAW;
	ev->attr.config = code;
	ev->pmu = strdup("raw");
	return 1;
}

/* "subsystem:name" through tracefs; 0 when name is not one. */
static int resolve_tracepoint(const char *name, struct counters_event *ev, struct perun_error *err)
{
	const char *colon = strchr(name, ':');
	if (!colon || colon == name || !colon[1] || strchr(colon + 1, ':') || strchr(name, '/'))
		return 0;
	int mounted = 0;
	for (size_t i = 0; i < sizeof(tracefs_dirs) / sizeof(*tracefs_dirs); i++) {
		char path[512];
		unsigned long long id;
		snprintf(path, sizeof(path), "%s/events", tracefs_dirs[i]);
		if (access(path, F_OK))
			continue;
		mounted = 1;
		snprintf(path, sizeof(path), "%s/events/%.*s/%s/id", tracefs_dirs[i],
			 (int)(colon - name), name, colon + 1);
		if (counters_sysfs_read_u64(path, &id))
			continue;
		ev->attr.type = PERF_TYPE_TRACEPOINT;
		ev->attr.config = id;
		ev->pmu = strdup("tracepoint");
		return 1;
	}
	if (!mounted)
		return perun_error_set(
			err, PERUN_ENOTFOUND,
			"tracepoint '%s' cannot be looked up: tracefs is not mounted "
			"(mount -t tracefs nodev /sys/kernel/tracing)",
			name);
	return 0;
}

static int resolve_pfm(const char *name, struct counters_event *ev)
{
	pfm_perf_encode_arg_t arg = { .size = sizeof(arg), .attr = &ev->attr };
	/* User and kernel, as perf stat counts; excluded where not allowed
	 * (counters_event_open). */
	if (pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) !=
	    PFM_SUCCESS)
		return 0;
	pfm_event_info_t info = { .size = sizeof(info) };
	pfm_pmu_info_t pmu = { .size = sizeof(pmu) };
	if (pfm_get_event_info(arg.idx, PFM_OS_PERF_EVENT_EXT, &info) == PFM_SUCCESS &&
	    pfm_get_pmu_info(info.pmu, &pmu) == PFM_SUCCESS)
		ev->pmu = strdup(strcmp(pmu.name, "perf") ? pmu.name
							  : counters_attr_group(&ev->attr));
	else
		ev->pmu = strdup("libpfm4");
	return 1;
}

/* Names close to name among the usable events, for the error. */
static void closest_events(const char *name, char *buf, size_t len)
{
	struct counters_event_list list = { 0 };
	buf[0] = '\0';
	if (counters_event_list(&list, COUNTERS_LIST_NO_PROBE, NULL))
		return;
	const char **names = calloc(list.count ? list.count : 1, sizeof(*names));
	if (names) {
		for (size_t i = 0; i < list.count; i++)
			names[i] = list.events[i].name;
		perun_suggest(name, names, list.count, "", buf, len);
	}
	free(names);
	counters_event_list_release(&list);
}

/* For an event this machine lacks: the closest names that count here,
 * else, for a hardware event, the software clocks that count its time. */
static void closest_usable(const struct counters_event *ev, char *buf, size_t len)
{
	struct counters_event_list list = { 0 };
	buf[0] = '\0';
	if (!counters_event_list(&list, 0, NULL)) {
		const char **names = calloc(list.count ? list.count : 1, sizeof(*names));
		size_t n = 0;
		for (size_t i = 0; names && i < list.count; i++)
			if (list.events[i].usable && strcmp(list.events[i].name, ev->name))
				names[n++] = list.events[i].name;
		if (names)
			perun_suggest(ev->name, names, n, "", buf, len);
		free(names);
	}
	counters_event_list_release(&list);
	if (!buf[0] && ev->attr.type != PERF_TYPE_SOFTWARE && ev->attr.type != PERF_TYPE_TRACEPOINT)
		snprintf(buf, len,
			 "; what counts here instead: 'task-clock' or 'cpu-clock' (time), "
			 "'page-faults', 'context-switches'");
}

int counters_event_resolve(const char *name, struct counters_event *ev, struct perun_error *err)
{
	memset(ev, 0, sizeof(*ev));
	ev->name = strdup(name);
	if (!ev->name)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = counters_pfm_init(err);
	if (rc)
		return rc;
	int found = resolve_raw(name, ev);
	if (!found && strchr(name, '/'))
		found = counters_sysfs_resolve(name, ev, err);
	if (!found)
		found = resolve_pfm(name, ev);
	if (!found)
		found = resolve_tracepoint(name, ev, err);
	if (found < 0)
		return found;
	if (!found) {
		char hint[512];
		closest_events(name, hint, sizeof(hint));
		return perun_error_set(err, PERUN_EINVAL,
				       "unknown event '%s'%s (see 'perun events'; virtual machines "
				       "often have no PMU and count software events only)",
				       name, hint);
	}
	if (!ev->pmu)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	ev->attr.size = sizeof(ev->attr);
	ev->counts_ns = ev->attr.type == PERF_TYPE_SOFTWARE &&
			(ev->attr.config == PERF_COUNT_SW_TASK_CLOCK ||
			 ev->attr.config == PERF_COUNT_SW_CPU_CLOCK);
	return 0;
}

void counters_event_release(struct counters_event *ev)
{
	free(ev->name);
	free(ev->pmu);
	ev->name = ev->pmu = NULL;
}

static int paranoid_level(void)
{
	unsigned long long level;
	if (counters_sysfs_read_u64("/proc/sys/kernel/perf_event_paranoid", &level))
		return 2;
	return (int)(long long)level;
}

/* pid runs as another user than perun: perf_event_open wants ptrace
 * access to it, whatever perf_event_paranoid says. */
static int owned_by_another(int pid)
{
	char path[32];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	return !stat(path, &st) && st.st_uid != geteuid();
}

static int open_attr(struct perf_event_attr *attr, int pid, int cpu)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int counters_event_open(const struct counters_event *ev, int pid, struct perun_error *err)
{
	struct counters_event counted = *ev;
	counted.attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return counters_event_open_cpu(&counted, pid, -1, err);
}

int counters_event_open_cpu(const struct counters_event *ev, int pid, int cpu,
			    struct perun_error *err)
{
	struct perf_event_attr attr = ev->attr;
	int fd = open_attr(&attr, pid, cpu);
	/* Not allowed to count the kernel (perf_event_paranoid >= 2 without
	 * CAP_PERFMON): count user space only, as perf stat does. */
	int denied = 0;
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !attr.exclude_kernel) {
		denied = errno;
		attr.exclude_kernel = attr.exclude_hv = 1;
		fd = open_attr(&attr, pid, cpu);
	}
	if (fd >= 0)
		return fd;
	int e = errno;
	/* An event that counts in the kernel only (msr/tsc/, a tracepoint)
	 * refuses user space only with EINVAL or EOPNOTSUPP: the cause is
	 * the permission the first try lacked. */
	if (denied && e != ESRCH && e != EACCES && e != EPERM)
		e = denied;
	switch (e) {
	case ESRCH: return perun_error_set(err, PERUN_ENOTFOUND, "no process with pid %d", pid);
	case EACCES:
	case EPERM:
		if (pid > 0 && owned_by_another(pid))
			return perun_error_set(err, PERUN_ETOOL,
					       "not permitted to count '%s' of process %d: it is "
					       "another user's (needs root, or CAP_SYS_PTRACE and "
					       "CAP_PERFMON)",
					       ev->name, pid);
		return perun_error_set(
			err, PERUN_ETOOL,
			"not permitted to count '%s'%s: "
			"/proc/sys/kernel/perf_event_paranoid is %d (lower it, or give "
			"perun CAP_PERFMON)",
			ev->name, pid > 0 ? " of that process" : "", paranoid_level());
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV: {
		char hint[512] = "";
		if (err) /* not for the trial opens of the list itself */
			closest_usable(ev, hint, sizeof(hint));
		return perun_error_set(err, PERUN_ETOOL,
				       "event '%s' (%s) is not supported by this machine (virtual "
				       "machines often have no PMU)%s; see 'perun events --usable' "
				       "for what counts here",
				       ev->name, ev->pmu, hint);
	}
	case EMFILE:
		return perun_error_set_errno(err, PERUN_ETOOL, e,
					     "too many events to count at once ('%s')", ev->name);
	default:
		return perun_error_set_errno(err, PERUN_ETOOL, e, "cannot count event '%s' (%s)",
					     ev->name, ev->pmu);
	}
}
