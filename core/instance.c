/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Opening a Perun instance: finding .perun, loading its configuration and
 * its VCS plugin, and the store lock.
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "instance.h"
#include "store.h"
#include "xalloc.h"

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *perun_instance_path(const struct perun_instance *inst, const char *rel)
{
	size_t len = strlen(inst->dir) + strlen(rel) + 2;
	char *path = perun_xmalloc(len);
	snprintf(path, len, "%s/%s", inst->dir, rel);
	return path;
}

char *perun_instance_locate(const char *start)
{
	char dir[PATH_MAX], probe[PATH_MAX + 16];
	if (snprintf(dir, sizeof(dir), "%s", start) >= (int)sizeof(dir))
		return NULL;
	for (;;) {
		snprintf(probe, sizeof(probe), "%s/.perun", dir[1] ? dir : "");
		if (is_dir(probe))
			return strdup(dir); /* NULL with ENOMEM */
		char *slash = strrchr(dir, '/');
		if (!slash || (slash == dir && !dir[1])) {
			errno = ENOENT;
			return NULL;
		}
		if (slash == dir)
			dir[1] = '\0'; /* up to "/" itself */
		else
			*slash = '\0';
	}
}

/*
 * The number a config key holds, as a number or as text, and in *rest the
 * text after the number ("" for a number): 1, 0 when the key is not set,
 * -1 when its value is no number.
 */
static int config_number(const struct perun_config *config, const char *key, double *n,
			 const char **rest)
{
	json_t *v = perun_config_lookup(config, key);
	if (!v)
		return 0;
	const char *text = json_string_value(v);
	char *end = (char *)"";
	*n = json_is_number(v) ? json_number_value(v) : text ? strtod(text, &end) : NAN;
	*rest = end;
	return isnan(*n) || (text && end == text) ? -1 : 1;
}

/* store.max_object_size: bytes, or with a suffix K, M or G. */
static int read_store_limits(const struct perun_config *config, struct perun_error *err)
{
	double n;
	const char *end;
	int rc = config_number(config, "store.max_object_size", &n, &end);
	if (!rc)
		return 0;
	double scale = !*end		   ? 1
		       : !strcmp(end, "K") ? 1024.0
		       : !strcmp(end, "M") ? 1048576.0
		       : !strcmp(end, "G") ? 1073741824.0
					   : -1;
	if (rc < 0 || !(n > 0) || scale < 0)
		return perun_error_set(
			err, PERUN_EINVAL,
			"store.max_object_size: not a size (bytes, or with K, M, G)");
	perun_store_set_max_object((size_t)(n * scale));
	return 0;
}

/* store.compression: libdeflate's levels, 0 (none) to 12. */
static int read_store_compression(const struct perun_config *config, struct perun_error *err)
{
	double n;
	const char *end;
	int rc = config_number(config, "store.compression", &n, &end);
	if (!rc)
		return 0;
	if (rc < 0 || *end || !(n >= 0 && n <= 12) || n != floor(n))
		return perun_error_set(err, PERUN_EINVAL,
				       "store.compression: not a level from 0 to 12");
	perun_store_set_compression((int)n);
	return 0;
}

int perun_instance_open_config(struct perun_instance *inst, struct perun_error *err)
{
	char cwd[PATH_MAX];
	memset(inst, 0, sizeof(*inst));
	inst->lock_fd = -1;
	if (!getcwd(cwd, sizeof(cwd)))
		return perun_error_set_errno(err, PERUN_EGENERIC, errno,
					     "cannot read the current directory");
	inst->root = perun_instance_locate(cwd);
	if (!inst->root && errno == ENOMEM)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (!inst->root)
		return perun_error_set(err, PERUN_ENOTFOUND,
				       "not a perun instance (or any parent up to /): "
				       "run 'perun init' first");
	if (asprintf(&inst->dir, "%s/.perun", inst->root[1] ? inst->root : "") < 0) {
		inst->dir = NULL;
		perun_instance_close(inst);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	char *local = perun_instance_path(inst, "local.yml");
	/* A NULL path would read as an instance with no configuration. */
	int rc = local ? perun_config_init(&inst->config, local, err)
		       : perun_error_set(err, PERUN_EGENERIC, "out of memory");
	free(local);
	if (rc)
		perun_instance_close(inst);
	return rc;
}

int perun_instance_open(struct perun_instance *inst, struct perun_error *err)
{
	int rc = perun_instance_open_config(inst, err);
	if (rc)
		return rc;
	/* not in open_config: perun config must mend a bad value */
	if ((rc = read_store_limits(&inst->config, err)) ||
	    (rc = read_store_compression(&inst->config, err))) {
		perun_instance_close(inst);
		return rc;
	}
	const char *type = perun_config_lookup_string(&inst->config, "vcs.type", "git");
	const char *url = perun_config_lookup_string(&inst->config, "vcs.url", "../");
	char vcs_path[PATH_MAX * 2];
	if (url[0] == '/')
		snprintf(vcs_path, sizeof(vcs_path), "%s", url);
	else
		snprintf(vcs_path, sizeof(vcs_path), "%s/%s", inst->dir, url);
	rc = perun_vcs_open(&inst->vcs, type, vcs_path, err);
	if (rc)
		perun_instance_close(inst);
	return rc;
}

void perun_instance_close(struct perun_instance *inst)
{
	perun_instance_unlock(inst);
	perun_vcs_close(&inst->vcs);
	perun_config_release(&inst->config);
	free(inst->root);
	free(inst->dir);
	inst->root = inst->dir = NULL;
}

/* A temporary file of an atomic write (perun_file_write_atomic) is this
 * old at least before it counts as left behind by a killed process. */
#define STALE_TEMP_SECONDS 60

void perun_remove_stale_temps(const char *dir)
{
	time_t now = time(NULL);
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		const char *tag = strstr(de->d_name, ".tmp-");
		if (!tag || strlen(tag) != strlen(".tmp-XXXXXX"))
			continue;
		char path[PATH_MAX];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    now - st.st_mtime >= STALE_TEMP_SECONDS)
			unlink(path);
	}
	if (d)
		closedir(d);
}

/*
 * The store's writers hold the lock while they write, so once we hold it
 * the temporary files in .perun and jobs/ are leftovers of killed
 * processes (the age check also spares any unlocked writer).  Those among
 * the objects are perun gc's: a lock must not cost a walk of the store.
 */
static void remove_stale_temps(const struct perun_instance *inst)
{
	char *jobs = perun_instance_path(inst, "jobs");
	perun_remove_stale_temps(inst->dir);
	if (jobs)
		perun_remove_stale_temps(jobs);
	free(jobs);
}

int perun_instance_lock(struct perun_instance *inst, struct perun_error *err)
{
	if (inst->lock_fd >= 0)
		return 0;
	char *path = perun_instance_path(inst, "lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		int rc = perun_error_set_errno(err, PERUN_EGENERIC, errno,
					       "cannot open the store lock '%s'", path);
		free(path);
		return rc;
	}
	while (flock(fd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		int rc = perun_error_set_errno(err, PERUN_EGENERIC, errno,
					       "cannot lock the store '%s'", path);
		close(fd);
		free(path);
		return rc;
	}
	free(path);
	inst->lock_fd = fd;
	remove_stale_temps(inst);
	return 0;
}

void perun_instance_unlock(struct perun_instance *inst)
{
	if (inst->lock_fd >= 0) {
		close(inst->lock_fd);
		inst->lock_fd = -1;
	}
}
