/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fast: Perun's fast check.  Where the best models of a uid changed, a
 * regression analysis of the difference of the best models names the
 * change by its best model, upper-cased (e.g. LINEAR).
 */
#include <ctype.h>
#include <stdlib.h>

#include <perun/perun.h>

#include "checkkit.h"
#include "ck_regress.h"

static int classify(const struct checklib_detection *d, char *type, size_t len,
		    struct perun_error *err)
{
	struct modellib_result *models;
	size_t n;
	int rc = checklib_regress(d->x, d->abs_error, d->n, &models, &n, err);
	if (rc)
		return rc;
	const struct modellib_result *best = checklib_regress_pick(models, n, -1);
	snprintf(type, len, "%s", best ? modellib_model_name(best->model) : "unknown");
	for (char *p = type; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	free(models);
	return 0;
}

static int fast_compare(const struct perun_profile *baseline, const struct perun_profile *target,
			const struct perun_params *params, perun_check_emit_fn emit, void *data,
			struct perun_error *err)
{
	(void)params;
	return checklib_general_detection(baseline, target, classify, emit, data, err);
}

static const struct perun_check_ops fast_ops = {
	.size = sizeof(fast_ops),
	.compare = fast_compare,
	.method = "fast_check",
	.title = "fast check",
};

PERUN_PLUGIN_DEFINE(fast, PERUN_KIND_CHECK, .version = "1.0",
		    .summary = "fast check: regression of the difference of the best models",
		    .ops = &fast_ops);
