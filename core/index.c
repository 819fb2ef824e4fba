/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading and writing the binary profile index (pidx) of a minor version
 * and of the pending profiles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "durable.h"
#include "index.h"

#define INDEX_HEADER_SIZE 12

uint32_t perun_index_mtime(const struct stat *st)
{
	return (uint32_t)(st->st_mtim.tv_sec + (st->st_mtim.tv_nsec >= 500000000L));
}

void perun_format_time(uint32_t t, char out[20])
{
	/*
	 * localtime_r per entry dominated reading big indexes.  A zone's UTC
	 * offset changes only on quarter hours, so one lookup of the offset
	 * per quarter hour serves every time within it; gmtime_r of the
	 * shifted time is plain arithmetic.
	 */
	static time_t cached_block = (time_t)-1;
	static long cached_offset;
	time_t tt = (time_t)t, block = tt - tt % 900;
	struct tm tm;
	if (block != cached_block) {
		localtime_r(&block, &tm);
		cached_offset = tm.tm_gmtoff;
		cached_block = block;
	}
	time_t local = tt + cached_offset;
	gmtime_r(&local, &tm);
	char text[64];
	snprintf(text, sizeof(text), "%04d-%02d-%02d %02d:%02d:%02d", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	memcpy(out, text, 19);
	out[19] = '\0';
}

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

void perun_index_entry_release(struct perun_index_entry *e)
{
	free(e->path);
	free(e->type);
	free(e->cmd);
	free(e->workload);
	free(e->collector);
	free(e->postprocessors);
	memset(e, 0, sizeof(*e));
}

void perun_index_release(struct perun_index *idx)
{
	for (size_t i = 0; i < idx->n; i++)
		perun_index_entry_release(&idx->entries[i]);
	free(idx->entries);
	memset(idx, 0, sizeof(*idx));
}

/* 0, or -1 when buf ends first, 1 when out of memory. */
static int read_lstring(const unsigned char *buf, size_t len, size_t *pos, char **out)
{
	if (*pos + 4 > len)
		return -1;
	uint32_t n = get_le32(buf + *pos);
	*pos += 4;
	if (n > len - *pos)
		return -1;
	*out = strndup((const char *)buf + *pos, n);
	*pos += n;
	return *out ? 0 : 1;
}

/* -1 when out of memory (e is then the caller's to release). */
static int append(struct perun_index *idx, struct perun_index_entry *e)
{
	if (idx->n == idx->alloc) {
		size_t alloc = idx->alloc ? idx->alloc * 2 : 16;
		void *entries = realloc(idx->entries, alloc * sizeof(*idx->entries));
		if (!entries)
			return -1;
		idx->entries = entries;
		idx->alloc = alloc;
	}
	idx->entries[idx->n++] = *e;
	return 0;
}

/* With salvage, the whole entries before a damage are kept (and 0 is
 * returned with err still saying what the damage is). */
static int index_parse(const char *path, const char *data, size_t len, struct perun_index *idx,
		       int salvage, struct perun_error *err)
{
	memset(idx, 0, sizeof(*idx));
	int rc = 0;
	const unsigned char *buf = (const unsigned char *)data;
	if (len < INDEX_HEADER_SIZE || memcmp(buf, "pidx", 4)) {
		rc = perun_error_set(err, PERUN_EINVAL, "malformed index '%s': not an index file",
				     path);
		goto out;
	}
	int32_t version, count;
	memcpy(&version, buf + 4, 4);
	memcpy(&count, buf + 8, 4);
	if (version < 1 || version > PERUN_INDEX_VERSION) {
		rc = perun_error_set(err, PERUN_EINVAL,
				     "malformed index '%s': version %d is not supported "
				     "(supported: 1 to %d)",
				     path, version, PERUN_INDEX_VERSION);
		goto out;
	}
	if (count < 0) {
		rc = perun_error_set(err, PERUN_EINVAL,
				     "malformed index '%s': negative entry count", path);
		goto out;
	}
	idx->version = version;
	size_t pos = INDEX_HEADER_SIZE;
	/* Python reads while pos + 24 < EOF and fewer than count entries. */
	while (pos + 24 < len && idx->n < (size_t)count) {
		struct perun_index_entry e = { 0 };
		e.mtime = get_le32(buf + pos);
		perun_format_time(e.mtime, e.time);
		static const char hex[] = "0123456789abcdef";
		for (int i = 0; i < 20; i++) {
			e.checksum[2 * i] = hex[buf[pos + 4 + i] >> 4];
			e.checksum[2 * i + 1] = hex[buf[pos + 4 + i] & 15];
		}
		pos += 24;
		const unsigned char *nul = memchr(buf + pos, 0, len - pos);
		if (!nul)
			goto truncated;
		e.path = strndup((const char *)buf + pos, (size_t)(nul - (buf + pos)));
		pos = (size_t)(nul - buf) + 1;
		/* Out of memory is no damage: an entry with a field missing
		 * would select and remove nothing, and salvage must not drop
		 * the rest. */
		int lr = e.path ? 0 : 1;
		char **fields[] = { &e.type, &e.cmd, &e.workload, &e.collector, &e.postprocessors };
		for (int f = 0; version >= 2 && !lr && f < 5; f++)
			lr = read_lstring(buf, len, &pos, fields[f]);
		if (!lr && append(idx, &e))
			lr = 1;
		if (lr) {
			perun_index_entry_release(&e);
			if (lr < 0)
				goto truncated;
			rc = perun_error_set(err, PERUN_EGENERIC,
					     "out of memory reading index '%s'", path);
			goto out;
		}
	}
	if (idx->n != (size_t)count) {
		rc = perun_error_set(err, PERUN_EINVAL,
				     "malformed index '%s': header says %d entries, found %zu",
				     path, count, idx->n);
		goto damaged;
	}
	goto out;
truncated:
	rc = perun_error_set(err, PERUN_EINVAL, "malformed index '%s': entry %zu is truncated",
			     path, idx->n);
damaged:
	if (salvage)
		rc = 0;
out:
	if (rc)
		perun_index_release(idx);
	return rc;
}

static int index_read(const char *path, struct perun_index *idx, int salvage,
		      struct perun_error *err)
{
	memset(idx, 0, sizeof(*idx));
	char *data;
	size_t len;
	int rc = perun_file_read(path, &data, &len, err);
	if (rc) {
		if (err && err->code == PERUN_ENOTFOUND) {
			perun_error_clear(err);
			return 0;
		}
		return rc;
	}
	rc = index_parse(path, data, len, idx, salvage, err);
	free(data);
	return rc;
}

int perun_index_parse(const void *data, size_t len, const char *name, struct perun_index *idx,
		      struct perun_error *err)
{
	return index_parse(name, data, len, idx, 0, err);
}

int perun_index_read(const char *path, struct perun_index *idx, struct perun_error *err)
{
	return index_read(path, idx, 0, err);
}

void perun_index_salvage(const char *path, struct perun_index *idx)
{
	struct perun_error err = { 0 };
	if (index_read(path, idx, 1, &err))
		memset(idx, 0, sizeof(*idx));
}

static void put_lstring(unsigned char **p, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	put_le32(*p, (uint32_t)n);
	*p += 4;
	if (n)
		memcpy(*p, s, n);
	*p += n;
}

static size_t slen(const char *s)
{
	return s ? strlen(s) : 0;
}

unsigned char *perun_index_serialize(const struct perun_index *idx, size_t *len)
{
	size_t size = INDEX_HEADER_SIZE;
	for (size_t i = 0; i < idx->n; i++) {
		const struct perun_index_entry *e = &idx->entries[i];
		size += 24 + slen(e->path) + 1 + 20 + slen(e->type) + slen(e->cmd) +
			slen(e->workload) + slen(e->collector) + slen(e->postprocessors);
	}
	unsigned char *buf = malloc(size), *p = buf;
	if (!buf)
		return NULL;
	int32_t version = PERUN_INDEX_VERSION, count = (int32_t)idx->n;
	memcpy(p, "pidx", 4);
	memcpy(p + 4, &version, 4);
	memcpy(p + 8, &count, 4);
	p += INDEX_HEADER_SIZE;
	for (size_t i = 0; i < idx->n; i++) {
		const struct perun_index_entry *e = &idx->entries[i];
		put_le32(p, e->mtime);
		p += 4;
		for (int b = 0; b < 20; b++) {
			unsigned int byte;
			sscanf(e->checksum + 2 * b, "%2x", &byte);
			*p++ = (unsigned char)byte;
		}
		size_t n = slen(e->path);
		memcpy(p, e->path, n);
		p += n;
		*p++ = 0;
		put_lstring(&p, e->type);
		put_lstring(&p, e->cmd);
		put_lstring(&p, e->workload);
		put_lstring(&p, e->collector);
		put_lstring(&p, e->postprocessors);
	}
	*len = (size_t)(p - buf);
	return buf;
}

int perun_index_write(const char *path, const struct perun_index *idx, struct perun_error *err)
{
	size_t len;
	unsigned char *buf = perun_index_serialize(idx, &len);
	if (!buf)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int rc = perun_durable_write(path, buf, len, err);
	free(buf);
	return rc;
}

int perun_index_entry_fill(struct perun_index_entry *e, uint32_t mtime, const char *checksum,
			   const char *path, const struct perun_profile *profile)
{
	memset(e, 0, sizeof(*e));
	e->mtime = mtime;
	perun_format_time(mtime, e->time);
	snprintf(e->checksum, sizeof(e->checksum), "%s", checksum);
	e->path = strdup(path);
	e->type = strdup(perun_profile_type(profile));
	e->cmd = strdup(perun_profile_header(profile, "cmd"));
	e->workload = strdup(perun_profile_header(profile, "workload"));
	e->collector = strdup(perun_profile_collector(profile));
	e->postprocessors = perun_profile_postprocessors_dup(profile);
	if (!e->path || !e->type || !e->cmd || !e->workload || !e->collector ||
	    !e->postprocessors) {
		perun_index_entry_release(e);
		return -1;
	}
	return 0;
}

int perun_index_insert(struct perun_index *idx, struct perun_index_entry *e)
{
	size_t at = idx->n;
	for (size_t i = 0; i < idx->n; i++) {
		const struct perun_index_entry *o = &idx->entries[i];
		int c = strcmp(o->path, e->path);
		if (c > 0 || (c == 0 && strcmp(o->time, e->time) >= 0)) {
			if (c == 0 && !strcmp(o->time, e->time)) {
				perun_index_entry_release(e);
				return 1;
			}
			at = i;
			break;
		}
	}
	if (append(idx, e)) {
		perun_index_entry_release(e);
		return -1;
	}
	memmove(&idx->entries[at + 1], &idx->entries[at],
		(idx->n - 1 - at) * sizeof(*idx->entries));
	idx->entries[at] = *e;
	return 0;
}

void perun_index_remove(struct perun_index *idx, size_t i)
{
	perun_index_entry_release(&idx->entries[i]);
	memmove(&idx->entries[i], &idx->entries[i + 1], (idx->n - i - 1) * sizeof(*idx->entries));
	idx->n--;
}
