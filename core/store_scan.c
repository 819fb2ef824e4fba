/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Walking .perun/objects file by file (see store_scan.h). */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "store.h"
#include "instance.h"
#include "store_scan.h"

/* A minor version's index starts with its magic; anything else named
 * like an object is taken for a profile object (fsck tells a damaged
 * index apart by its name being a commit). */
static enum perun_store_item_kind sniff(const char *path)
{
	char head[4] = { 0 };
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(head, 1, sizeof(head), f) : 0;
	if (f)
		fclose(f);
	return n == 4 && !memcmp(head, "pidx", 4) ? PERUN_STORE_INDEX : PERUN_STORE_PROFILE;
}

static int scan_dir(const char *objects_dir, const char *sub, perun_store_item_fn fn, void *data)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/%s", objects_dir, sub);
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;
	while (d && !rc && (de = readdir(d))) {
		if (de->d_name[0] == '.' || strstr(de->d_name, ".tmp-"))
			continue;
		struct perun_store_item item = { 0 };
		struct stat st;
		if ((size_t)snprintf(item.path, sizeof(item.path), "%s/%s", dir, de->d_name) >=
			    sizeof(item.path) ||
		    stat(item.path, &st) || !S_ISREG(st.st_mode))
			continue;
		char name[64];
		snprintf(name, sizeof(name), "%s%.*s", sub, 40, de->d_name);
		size_t len = strlen(de->d_name);
		if (len == 38 + strlen(".changes") && !strcmp(de->d_name + 38, ".changes")) {
			name[40] = '\0';
			item.kind = perun_is_sha1(name) ? PERUN_STORE_CHANGES : PERUN_STORE_OTHER;
		} else if (len == 38 && perun_is_sha1(name)) {
			item.kind = sniff(item.path);
		} else {
			item.kind = PERUN_STORE_OTHER;
		}
		if (item.kind != PERUN_STORE_OTHER)
			snprintf(item.sha, sizeof(item.sha), "%.40s", name);
		rc = fn(&item, data);
	}
	if (d)
		closedir(d);
	return rc;
}

int perun_store_scan(const char *objects_dir, perun_store_item_fn fn, void *data)
{
	DIR *d = opendir(objects_dir);
	struct dirent *de;
	int rc = 0;
	while (d && !rc && (de = readdir(d)))
		if (strlen(de->d_name) == 2 && de->d_name[0] != '.')
			rc = scan_dir(objects_dir, de->d_name, fn, data);
	if (d)
		closedir(d);
	return rc;
}

void perun_store_remove_stale_temps(const char *objects_dir)
{
	DIR *d = opendir(objects_dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (strlen(de->d_name) != 2 || de->d_name[0] == '.')
			continue;
		char sub[PATH_MAX];
		snprintf(sub, sizeof(sub), "%s/%s", objects_dir, de->d_name);
		perun_remove_stale_temps(sub);
	}
	if (d)
		closedir(d);
}
