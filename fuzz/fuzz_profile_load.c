/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer target: the profile loader, then everything that reads a
 * loaded profile back (the dumps, which must load back and dump again to
 * the same text, the type walk, the resource walk), and
 * the streamed loader of the same bytes, which must agree with it: both
 * accept or both refuse (with the same message), and both walk the same
 * resource types with the same values. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perun/perun.h>

/* What a type walk saw, to compare two walks. */
struct walk_digest {
	size_t types;
	uint64_t hash;
};

static uint64_t fnv1a(uint64_t h, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

static uint64_t hash_jv(uint64_t h, const struct perun_jv *v)
{
	json_t *tree = perun_jv_to_json(v);
	char *text =
		tree ? json_dumps(tree, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
	if (text)
		h = fnv1a(h, text, strlen(text));
	free(text);
	json_decref(tree);
	return h;
}

static int digest_type(const char *type_id, const struct perun_jv *persistent,
		       const struct perun_jv *columns, void *data)
{
	struct walk_digest *d = data;
	d->types++;
	d->hash = fnv1a(d->hash, type_id, strlen(type_id) + 1);
	d->hash = hash_jv(d->hash, persistent);
	d->hash = hash_jv(d->hash, columns);
	return 0;
}

static int count_row(const json_t *row, void *data)
{
	(void)row;
	(*(size_t *)data)++;
	return 0;
}

/* A dump loads back, and dumps again to the same text: what perun writes
 * it reads as it wrote it.  Aborts (a finding) otherwise. */
static void round_trip(const struct perun_profile *profile, enum perun_dump_style style)
{
	size_t len, again_len;
	char *text = perun_profile_dump(profile, style, 1, &len);
	if (!text)
		return; /* out of memory */
	struct perun_profile *reloaded;
	struct perun_error err = { 0 };
	if (perun_profile_load_buffer(text, len, "dump", &reloaded, &err)) {
		if (err.code == PERUN_EGENERIC)
			goto out; /* out of memory */
		fprintf(stderr, "a dump does not load: %s\n", err.message);
		abort();
	}
	char *again = perun_profile_dump(reloaded, style, 1, &again_len);
	if (again && (again_len != len || memcmp(again, text, len))) {
		fprintf(stderr, "a dump loaded back dumps otherwise\n");
		abort();
	}
	free(again);
	perun_profile_free(reloaded);
out:
	free(text);
}

/* The streamed load of the same bytes, from a memory file, against the
 * buffer's result: aborts (a finding) where they disagree. */
static void check_streamed(const uint8_t *data, size_t size, const char *name, int buffer_rc,
			   const struct perun_error *buffer_err, const struct walk_digest *want)
{
	int fd = memfd_create("fuzz-profile", 0);
	if (fd < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return;
	}
	struct perun_profile *profile;
	struct perun_error err = { 0 };
	struct walk_digest got = { 0, 0xcbf29ce484222325ULL };
	/* name is /proc/self/fd/N: the buffer's load was given it too */
	int rc = perun_profile_load_file_streamed(name, &profile, &err);
	if (!rc) {
		rc = perun_profile_foreach_type(profile, digest_type, &got, &err);
		if (rc)
			rc = perun_profile_load_error(profile, &err) ? -1 : rc;
		perun_profile_free(profile);
	}
	close(fd);
	if (!rc != !buffer_rc) {
		fprintf(stderr, "buffer load %s, streamed load %s: %s\n",
			buffer_rc ? "failed" : "passed", rc ? "failed" : "passed",
			rc ? err.message : buffer_err->message);
		abort();
	}
	if (rc && strcmp(err.message, buffer_err->message)) {
		fprintf(stderr, "buffer load: %s\nstreamed load: %s\n", buffer_err->message,
			err.message);
		abort();
	}
	if (!rc && (got.types != want->types || got.hash != want->hash)) {
		fprintf(stderr, "the walks differ: %zu types from the buffer, %zu streamed\n",
			want->types, got.types);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perun_profile *profile;
	struct perun_error err = { 0 };
	struct walk_digest digest = { 0, 0xcbf29ce484222325ULL };
	/* The memory file the streamed load reads has this name: the next
	 * descriptor, as both loaders put the name in their messages. */
	int probe = dup(0);
	char name[64];
	snprintf(name, sizeof(name), "/proc/self/fd/%d", probe);
	close(probe);
	int rc = perun_profile_load_buffer((const char *)data, size, name, &profile, &err);
	if (!rc) {
		size_t n = 0;
		round_trip(profile, PERUN_DUMP_COMPACT);
		round_trip(profile, PERUN_DUMP_PENDING);
		int walk_rc = perun_profile_foreach_type(profile, digest_type, &digest, &err);
		perun_profile_foreach_resource(profile, count_row, &n);
		perun_profile_free(profile);
		if (walk_rc)
			return 0; /* out of memory: nothing to compare */
	}
	check_streamed(data, size, name, rc, &err, &digest);
	return 0;
}
