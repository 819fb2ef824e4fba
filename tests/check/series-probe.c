/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A check plugin for the tests of perun check all: compare_series only,
 * reporting what the driver handed it, so the test sees that every
 * configuration's series arrives oldest first with one profile per
 * version.  One record per series: location "<cmd> <workload>", from and
 * to the first and last versions, rate the number of entries, a
 * Degradation starting at the last version when there are two or more.
 */
#include <string.h>

#include <perun/perun.h>

static int probe_series(const struct perun_check_series_entry *series, size_t count,
			const struct perun_params *params, perun_check_emit_fn emit, void *data,
			struct perun_error *err)
{
	if (perun_params_bool(params, "fail", 0))
		return perun_error_set(err, PERUN_ETOOL, "failing as degradation.fail asks");
	char location[512], versions[1024] = "";
	snprintf(location, sizeof(location), "%s %s",
		 perun_profile_header(series[0].profile, "cmd"),
		 perun_profile_header(series[0].profile, "workload"));
	for (size_t i = 0; i < count; i++) {
		size_t len = strlen(versions);
		snprintf(versions + len, sizeof(versions) - len, "%s%.7s", i ? "," : "",
			 series[i].version);
	}
	struct perun_degradation d = {
		.size = sizeof(d),
		.result = count >= 2 ? PERUN_CHANGE_DEGRADATION : PERUN_CHANGE_NO_CHANGE,
		.type = versions,
		.location = location,
		.from_baseline = series[0].version,
		.to_target = series[count - 1].version,
		.rate_degradation = (double)count,
		.confidence_type = "no",
		.effect_size = 0.5,
		.noise = 0.25,
		.version = series[count - 1].version,
	};
	if (emit(&d, data))
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	return 0;
}

/* Set from degradation.fail: the core passes degradation.<option>. */
static const struct perun_option probe_options[] = {
	{ "fail", NULL, PERUN_OPTION_BOOL, "false", NULL, NULL, "fail the check", 0 },
	{ NULL },
};

static const struct perun_check_ops probe_ops = {
	.size = sizeof(probe_ops),
	.compare_series = probe_series,
};

PERUN_PLUGIN_DEFINE(series_probe, PERUN_KIND_CHECK, .version = "1.0",
		    .summary = "test plugin: reports the series check all hands it",
		    .options = probe_options, .ops = &probe_ops);
