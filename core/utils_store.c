/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Paths and zlib-compressed JSON files for perun utils temp and stats. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include <perun/fsutil.h>

#include "cmd_util.h"
#include "utils_store.h"
#include "xalloc.h"

char *perun_path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *s = perun_xmalloc(n);
	snprintf(s, n, "%s/%s", dir, name);
	return s;
}

char *perun_path_normalize(const char *base, const char *path)
{
	char *joined = path[0] == '/' ? perun_xstrdup(path) : perun_path_join(base, path);
	char *out = perun_xmalloc(strlen(joined) + 2);
	size_t len = 0;
	for (char *p = joined; *p;) {
		while (*p == '/')
			p++;
		char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--; /* the slash before the dropped component */
		} else {
			out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
		}
		p += n;
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	free(joined);
	return out;
}

json_t *perun_zjson_read(const char *path)
{
	char *packed;
	size_t packed_len;
	struct perun_error err = { 0 };
	if (perun_file_read(path, &packed, &packed_len, &err))
		return NULL;
	z_stream zs = { 0 };
	json_t *json = NULL;
	size_t alloc = packed_len * 4 + 64, used = 0;
	char *buf = NULL;
	if (inflateInit(&zs) != Z_OK)
		goto out;
	buf = perun_xmalloc(alloc);
	zs.next_in = (unsigned char *)packed;
	zs.avail_in = (uInt)packed_len;
	int zrc;
	do {
		if (used == alloc) {
			alloc *= 2;
			buf = perun_xrealloc(buf, alloc);
		}
		zs.next_out = (unsigned char *)buf + used;
		zs.avail_out = (uInt)(alloc - used);
		zrc = inflate(&zs, Z_NO_FLUSH);
		used = alloc - zs.avail_out;
	} while (zrc == Z_OK);
	inflateEnd(&zs);
	if (zrc == Z_STREAM_END)
		json = json_loadb(buf, used, 0, NULL);
out:
	free(buf);
	free(packed);
	return json;
}

int perun_zjson_write(const char *path, const json_t *json, struct perun_error *err)
{
	/* Python's json.dumps(indent=2): ", " is "," at line ends, ": " after keys. */
	char *text = json_dumps(json, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!text)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	size_t len = strlen(text);
	uLongf packed_len = compressBound(len);
	unsigned char *packed = perun_xmalloc(packed_len);
	int rc;
	if (compress2(packed, &packed_len, (unsigned char *)text, len, Z_DEFAULT_COMPRESSION) !=
	    Z_OK)
		rc = perun_error_set(err, PERUN_EGENERIC, "cannot compress '%s'", path);
	else
		rc = perun_file_write_atomic(path, packed, packed_len, err);
	free(packed);
	free(text);
	return rc;
}

void perun_format_file_size(long long size, char *buf, size_t len)
{
	static const char *const units[] = { "Ki", "Mi", "Gi", "Ti" };
	double s = (double)size;
	if (s < 1024.0 && s > -1024.0) {
		snprintf(buf, len, "%6.0f B  ", s);
		return;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++) {
		s /= 1024.0;
		if (s < 1024.0 && s > -1024.0) {
			snprintf(buf, len, "%6.1f %sB", s, units[i]);
			return;
		}
	}
	snprintf(buf, len, "%.1f PiB", s / 1024.0);
}

void perun_remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st))
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *sub = perun_path_join(path, de->d_name);
		perun_remove_tree(sub);
		free(sub);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

int perun_side_store_open(struct perun_side_store *s, const char *name, int with_vcs, int array,
			  struct perun_error *err)
{
	memset(s, 0, sizeof(*s));
	if (with_vcs ? perun_instance_open(&s->inst, err)
		     : perun_instance_open_config(&s->inst, err))
		return -1;
	s->dir = perun_instance_path(&s->inst, name);
	s->index = perun_path_join(s->dir, ".index");
	if (perun_instance_lock(&s->inst, err) || perun_mkdirs(s->dir, 0777, err)) {
		perun_instance_close(&s->inst);
		free(s->dir);
		free(s->index);
		return -1;
	}
	s->entries = perun_zjson_read(s->index);
	if (array ? !json_is_array(s->entries) : !json_is_object(s->entries)) {
		json_decref(s->entries);
		s->entries = array ? json_array() : json_object();
	}
	return 0;
}

void perun_side_store_close(struct perun_side_store *s)
{
	json_decref(s->entries);
	free(s->dir);
	free(s->index);
	perun_instance_close(&s->inst);
}

int perun_side_store_save(struct perun_side_store *s, struct perun_error *err)
{
	return perun_zjson_write(s->index, s->entries, err);
}

void perun_print_total_size(const struct perun_cli *cli, long long total)
{
	char size[32];
	perun_format_file_size(total, size, sizeof(size));
	printf("Total size of all the displayed files / directories: %s%s%s\n",
	       perun_color(cli, "cyan"), size, perun_color(cli, "reset"));
}
