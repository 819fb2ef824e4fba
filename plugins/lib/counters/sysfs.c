/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The kernel's own names of PMU events: /sys/bus/event_source/devices/
 * <pmu>/{type,format/<term>,events/<name>}, as perf reads them.  An event
 * "pmu/term=value,alias/" sets the bits each term's format file names
 * ("config:0-7,32-35") in config, config1 or config2.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define DEVICES "/sys/bus/event_source/devices"

static char *read_line_dup(const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	if (!f)
		return NULL;
	if (getline(&line, &cap, f) < 0) {
		free(line);
		line = NULL;
	} else {
		line[strcspn(line, "\n")] = '\0';
	}
	fclose(f);
	return line;
}

int counters_sysfs_read_u64(const char *path, unsigned long long *value)
{
	char *line = read_line_dup(path), *end;
	if (!line)
		return -1;
	errno = 0;
	long long v = strtoll(line, &end, 0);
	int bad = end == line || errno;
	free(line);
	if (bad)
		return -1;
	*value = (unsigned long long)v;
	return 0;
}

/* Put value into the bits the format "config1:0-7,32-35" names. */
static int apply_format(struct perf_event_attr *attr, const char *format, unsigned long long value)
{
	uint64_t *field;
	if (!strncmp(format, "config:", 7))
		field = &attr->config;
	else if (!strncmp(format, "config1:", 8))
		field = &attr->config1;
	else if (!strncmp(format, "config2:", 8))
		field = &attr->config2;
	else
		return -1;
	const char *p = strchr(format, ':') + 1;
	while (*p) {
		char *end;
		unsigned lo = (unsigned)strtoul(p, &end, 10), hi = lo;
		if (end == p)
			return -1;
		if (*end == '-')
			hi = (unsigned)strtoul(end + 1, &end, 10);
		for (unsigned bit = lo; bit <= hi && bit < 64; bit++, value >>= 1)
			*field = (*field & ~(1ull << bit)) | ((value & 1) << bit);
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return 0;
}

static int apply_terms(const char *pmu, char *terms, struct counters_event *ev, int depth,
		       struct perun_error *err)
{
	char *save = NULL;
	for (char *term = strtok_r(terms, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char path[512], *eq = strchr(term, '=');
		unsigned long long value = 1;
		if (eq) {
			*eq = '\0';
			char *end;
			errno = 0;
			value = strtoull(eq + 1, &end, 0);
			if (*end || errno)
				return perun_error_set(err, PERUN_EINVAL,
						       "event '%s': '%s' is not a number", ev->name,
						       eq + 1);
		}
		snprintf(path, sizeof(path), DEVICES "/%s/format/%s", pmu, term);
		char *format = read_line_dup(path);
		if (format) {
			int bad = apply_format(&ev->attr, format, value);
			free(format);
			if (bad)
				return perun_error_set(err, PERUN_EINVAL,
						       "event '%s': cannot read the format of '%s'",
						       ev->name, term);
			continue;
		}
		snprintf(path, sizeof(path), DEVICES "/%s/events/%s", pmu, term);
		char *alias = eq || depth ? NULL : read_line_dup(path);
		if (!alias)
			return perun_error_set(
				err, PERUN_EINVAL,
				"event '%s': PMU '%s' has no term or event '%s' (see " DEVICES
				"/%s)",
				ev->name, pmu, term, pmu);
		int rc = apply_terms(pmu, alias, ev, depth + 1, err);
		free(alias);
		if (rc)
			return rc;
	}
	return 0;
}

int counters_sysfs_resolve(const char *name, struct counters_event *ev, struct perun_error *err)
{
	const char *slash = strchr(name, '/');
	size_t len = strlen(name);
	if (!slash || slash == name || name[len - 1] != '/' || slash == name + len - 1)
		return 0;
	char *pmu = strndup(name, (size_t)(slash - name));
	char *terms = strndup(slash + 1, len - (size_t)(slash - name) - 2);
	char path[512];
	unsigned long long type;
	int rc = 1;
	if (!pmu || !terms) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	snprintf(path, sizeof(path), DEVICES "/%s/type", pmu);
	if (counters_sysfs_read_u64(path, &type)) {
		rc = perun_error_set(err, PERUN_EINVAL,
				     "event '%s': this machine has no PMU '%s' (see " DEVICES
				     "; virtual machines often have no PMU)",
				     name, pmu);
		goto out;
	}
	ev->attr.type = (uint32_t)type;
	rc = apply_terms(pmu, terms, ev, 0, err);
	if (!rc) {
		ev->pmu = pmu;
		pmu = NULL;
		rc = 1;
	}
out:
	free(pmu);
	free(terms);
	return rc;
}

/* Files beside events/<name> that describe it, not events themselves. */
static int is_event_attribute(const char *file)
{
	static const char *const suffixes[] = { ".scale", ".unit", ".snapshot", ".per-pkg" };
	size_t len = strlen(file);
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++) {
		size_t n = strlen(suffixes[i]);
		if (len > n && !strcmp(file + len - n, suffixes[i]))
			return 1;
	}
	return 0;
}

static int list_pmu(struct counters_event_list *list, const char *pmu, struct perun_error *err)
{
	char dir[512];
	snprintf(dir, sizeof(dir), DEVICES "/%s/events", pmu);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int rc = 0;
	for (struct dirent *e; !rc && (e = readdir(d));) {
		if (e->d_name[0] == '.' || is_event_attribute(e->d_name))
			continue;
		char path[1024], name[600], desc[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		char *terms = read_line_dup(path);
		snprintf(path, sizeof(path), "%s/%s.unit", dir, e->d_name);
		char *unit = read_line_dup(path);
		snprintf(name, sizeof(name), "%s/%s/", pmu, e->d_name);
		snprintf(desc, sizeof(desc), "%s event %s%s%s%s", pmu, terms ? terms : "?",
			 unit ? " (in " : "", unit ? unit : "", unit ? ")" : "");
		rc = counters_list_add(list, name, pmu, desc, "sysfs", -1, err); /* probed */
		free(terms);
		free(unit);
	}
	closedir(d);
	return rc;
}

int counters_sysfs_list(struct counters_event_list *list, struct perun_error *err)
{
	DIR *d = opendir(DEVICES);
	if (!d)
		return 0;
	int rc = 0;
	for (struct dirent *e; !rc && (e = readdir(d));)
		if (e->d_name[0] != '.')
			rc = list_pmu(list, e->d_name, err);
	closedir(d);
	return rc;
}
