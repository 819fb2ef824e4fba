/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * @name@ - a Perun view: the uids of a profile with the number of their
 * resources and their total amount, largest amount first.
 *
 *   perun show <profile> @name@ [--limit N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>

#define @NAME@_DEFAULT_LIMIT "0"

struct uid_total {
	const char *uid; /* borrowed from the totals object */
	long long count;
	double amount;
};

/* Adds one resource row to {uid: [count, amount]}. */
static int add_row(const json_t *row, void *data)
{
	json_t *totals = data;
	const char *uid = json_string_value(json_object_get(row, "uid"));
	json_t *amount = json_object_get(row, "amount");
	if (!uid)
		uid = "(no uid)";
	json_t *sum = json_object_get(totals, uid);
	if (!sum) {
		sum = json_pack("[I,f]", (json_int_t)0, 0.0);
		if (!sum || json_object_set_new(totals, uid, sum))
			return -PERUN_EGENERIC;
	}
	json_array_set_new(sum, 0, json_integer(json_integer_value(json_array_get(sum, 0)) + 1));
	if (json_is_number(amount))
		json_array_set_new(sum, 1, json_real(json_real_value(json_array_get(sum, 1)) +
						     json_number_value(amount)));
	return 0;
}

static int by_amount(const void *a, const void *b)
{
	const struct uid_total *x = a, *y = b;
	if (x->amount != y->amount)
		return x->amount < y->amount ? 1 : -1;
	return strcmp(x->uid, y->uid);
}

static int view_show(struct perun_view_ctx *ctx, struct perun_error *err)
{
	FILE *out = ctx->out;
	long long limit = perun_params_int(ctx->params, "limit", 0);
	struct uid_total *rows = NULL;
	int rc = 0;
	if (limit < 0)
		return perun_error_set(err, PERUN_EINVAL,
				       "--limit must not be negative (got %lld)", limit);
	if (ctx->argc > 0)
		return perun_error_set(err, PERUN_EINVAL, "unexpected argument '%s'",
				       ctx->argv[0]);
	json_t *totals = json_object();
	if (!totals)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (perun_profile_foreach_resource(ctx->profile, add_row, totals)) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	size_t n = json_object_size(totals), i = 0;
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	const char *uid;
	json_t *sum;
	json_object_foreach(totals, uid, sum) {
		rows[i].uid = uid;
		rows[i].count = json_integer_value(json_array_get(sum, 0));
		rows[i].amount = json_real_value(json_array_get(sum, 1));
		i++;
	}
	qsort(rows, n, sizeof(*rows), by_amount);
	if (limit > 0 && (size_t)limit < n)
		n = (size_t)limit;
	fprintf(out, "%-30s %8s %14s\n", "uid", "count", "amount");
	for (i = 0; i < n; i++)
		fprintf(out, "%-30s %8lld %14g\n", rows[i].uid, rows[i].count,
			rows[i].amount);
out:
	free(rows);
	json_decref(totals);
	return rc;
}

static const struct perun_view_ops view_ops = {
	.size = sizeof(struct perun_view_ops),
	.show = view_show,
};

static const struct perun_option view_options[] = {
	{"limit", "l", PERUN_OPTION_INT, @NAME@_DEFAULT_LIMIT, NULL, "<n>",
	 "show only the <n> uids with the largest amounts (0: all)", 0},
	{NULL, NULL, 0, NULL, NULL, NULL, NULL, 0},
};

PERUN_PLUGIN_DEFINE(@name@, PERUN_KIND_VIEW, .version = "0.1.0",
		    .summary = "uids with their resource count and total amount",
		    .options = view_options, .ops = &view_ops)
