/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Profile objects in .perun/objects: zlib-compressed
 * "profile <type> <length>\0<json>" named by the SHA-1 of that payload
 * (<aa>/<38 hex>), exactly as Python Perun stores them; a big profile's
 * stream is segmented, with an index after it (store_segments.h), which
 * zlib ignores.
 */
#ifndef PERUN_CORE_STORE_H
#define PERUN_CORE_STORE_H

#include <perun/perun.h>

/* 40 hex digits and a NUL. */
#define PERUN_SHA1_HEX 41

/* SHA-1 of data as lowercase hex. */
void perun_sha1_hex(const void *data, size_t len, char out[PERUN_SHA1_HEX]);
/* Is s exactly 40 lowercase/uppercase hex digits? */
int perun_is_sha1(const char *s);

/* objects_dir/<sha[0:2]>/<sha[2:]> into buf (PATH_MAX). */
void perun_store_object_path(const char *objects_dir, const char *sha, char *buf, size_t len);
/* Remove the object sha ("" or NULL: nothing) from objects_dir. */
void perun_store_remove_object(const char *objects_dir, const char *sha);

/*
 * Store profile (without its origin) as an object; sha_out gets its name.
 * Writing an object that exists already is a no-op; *created (when not
 * NULL) says whether this call wrote it.
 */
int perun_store_write_profile(const char *objects_dir, const struct perun_profile *profile,
			      char sha_out[PERUN_SHA1_HEX], int *created, struct perun_error *err);
/* Load and check an object; *out is owned by the caller. */
/*
 * The most characters a store object may declare (store.max_object_size,
 * 4 GiB by default): a header beyond it is refused before any inflating.
 */
#define PERUN_STORE_MAX_OBJECT_DEFAULT ((size_t)4 << 30)
void perun_store_set_max_object(size_t chars);
/*
 * The level new objects are compressed at (store.compression, libdeflate's
 * 0 to 12; 1 by default): higher levels take longer for smaller objects.
 */
#define PERUN_STORE_COMPRESSION_DEFAULT 1
void perun_store_set_compression(int level);

int perun_store_read_profile(const char *objects_dir, const char *sha, struct perun_profile **out,
			     struct perun_error *err);
/* perun_store_read_profile for readers that walk the resource types once
 * (perun_profile_load_file_streamed): the object is inflated into memory
 * of its own but its resource_type_map is read as it is walked. */
int perun_store_read_profile_streamed(const char *objects_dir, const char *sha,
				      struct perun_profile **out, struct perun_error *err);

/* Does packed (an object's zlib bytes) inflate to a payload whose SHA-1
 * is sha?  0, or an error naming the object. */
int perun_store_verify_packed(const void *packed, size_t len, const char *sha,
			      struct perun_error *err);
/* The profile of packed (an object's zlib bytes from elsewhere than the
 * store), only when its payload hashes to sha; *out is the caller's. */
int perun_store_load_packed(const void *packed, size_t len, const char *sha,
			    struct perun_profile **out, struct perun_error *err);
/* Write packed as object sha after verifying it (perun_durable_write, so
 * inside a batch it is pending until the commit); one there already is
 * kept.  *created says whether this call wrote it. */
int perun_store_write_packed(const char *objects_dir, const char *sha, const void *packed,
			     size_t len, int *created, struct perun_error *err);

#endif
