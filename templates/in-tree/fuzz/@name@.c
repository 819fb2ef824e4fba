/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * @name@ - a Perun fuzzer (made from the in-tree fuzz template): each round
 * writes the input of the round before twice over into a new file, has the
 * core profile the command on it and judge that profile against the seed's
 * with the check methods of degradation.strategies, and reports the
 * verdicts.  It stops after --exec-limit rounds, at --max-size bytes, or on
 * Ctrl-C.  Only the first --input-sample file is used.
 *
 *   perun fuzz --fuzzer @name@ --cmd ./prog --input-sample seed.txt \
 *	--output-dir out --exec-limit 5
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <perun/perun.h>

static int read_file(const char *path, char **text, size_t *len, struct perun_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return perun_error_set(err, PERUN_EINVAL, "cannot read seed '%s': %s", path,
				       strerror(errno));
	struct perun_strbuf buf = PERUN_STRBUF_INIT;
	char chunk[8192];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		perun_strbuf_add(&buf, chunk, n);
	int failed = ferror(f);
	fclose(f);
	*text = perun_strbuf_detach(&buf, len);
	if (failed) {
		free(*text);
		*text = NULL;
		return perun_error_set(err, PERUN_EINVAL, "cannot read seed '%s'", path);
	}
	if (!*text)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	return 0;
}

/* The round's input: the text twice, in <dir>/@name@-<round>.in. */
static int write_round(const char *dir, int round, const char *text, size_t len, char *path,
		       size_t size, struct perun_error *err)
{
	snprintf(path, size, "%s/@name@-%d.in", dir, round);
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(text, 1, len, f) == len && fwrite(text, 1, len, f) == len;
	if (f && fclose(f))
		ok = 0;
	if (!ok)
		return perun_error_set(err, PERUN_EGENERIC, "cannot write '%s': %s", path,
				       strerror(errno));
	return 0;
}

static int @name@_fuzz(struct perun_fuzz_ctx *ctx, struct perun_error *err)
{
	const struct perun_fuzz_host *host = ctx->host;
	const char *seed = perun_params_string_at(ctx->params, "input-sample", 0);
	const char *dir = perun_params_string(ctx->params, "output-dir", NULL);
	long rounds = perun_params_int(ctx->params, "exec-limit", 100);
	long max_size = perun_params_int(ctx->params, "max-size", 1 << 20);
	struct perun_profile *base = NULL;
	char *text = NULL, path[4096];
	size_t len = 0;
	int rc;
	if (!seed || !dir)
		return perun_error_set(err, PERUN_EINVAL,
				       "@name@ needs --input-sample and --output-dir");
	if ((rc = read_file(seed, &text, &len, err)))
		return rc;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		rc = perun_error_set(err, PERUN_EGENERIC, "cannot make '%s': %s", dir,
				     strerror(errno));
		goto out;
	}
	if ((rc = host->profile(host->data, seed, &base, err)))
		goto out;
	printf("seed %s: %zu bytes\n", seed, len);
	for (int round = 1; round <= rounds && !*ctx->interrupted; round++) {
		if (len == 0 || 2 * len > (size_t)max_size)
			break; /* nothing more to grow within --max-size */
		struct perun_profile *target = NULL;
		size_t degradations = 0, results = 0;
		if ((rc = write_round(dir, round, text, len, path, sizeof(path), err)) ||
		    (rc = host->profile(host->data, path, &target, err)))
			goto out;
		rc = host->compare(host->data, base, target, &degradations, &results, err);
		host->release(host->data, target);
		if (rc)
			goto out;
		/* the next round grows what this one wrote */
		char *next = malloc(2 * len);
		if (!next) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			goto out;
		}
		memcpy(next, text, len);
		memcpy(next + len, text, len);
		free(text);
		text = next;
		len *= 2;
		printf("round %d: %s, %zu bytes, %zu of %zu verdicts are degradations\n", round,
		       path, len, degradations, results);
	}
out:
	if (base)
		host->release(host->data, base);
	free(text);
	return rc;
}

static const struct perun_fuzz_ops @name@_ops = {
	.size = sizeof(@name@_ops),
	.fuzz = @name@_fuzz,
};

PERUN_PLUGIN_DEFINE(@name@, PERUN_KIND_FUZZ, .version = "0.1",
		    .summary = "grows the seed by doubling it, judged by the check methods",
		    .options = NULL, .ops = &@name@_ops);
