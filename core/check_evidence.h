/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The evidence behind a verdict, weighed by the core for every check
 * method alike: the measured samples of the changed location on both
 * sides, their counts (runs, calls, allocations) and whether the change
 * stands out of the measured noise.  A verdict inside the noise is kept
 * but marked unreliable, so no gate fails on it.
 */
#ifndef PERUN_CORE_CHECK_EVIDENCE_H
#define PERUN_CORE_CHECK_EVIDENCE_H

#include <perun/perun.h>

#include "config.h"

struct perun_check_change;

/* The thresholds of degradation.noise in the configuration. */
struct perun_noise_policy {
	double alpha;	   /* a test's p-value at or above it: unreliable */
	double min_effect; /* relative change under it: unreliable */
	double min_share;  /* absolute change under this share of the profile's
			    * biggest series of the same kind: unreliable */
	int enabled;	   /* degradation.noise.enabled (default true) */
};

/* Read degradation.noise.{enabled,alpha,min_effect,min_share}; a bad value
 * is an error naming the key. */
int perun_noise_policy_read(const struct perun_config *config, struct perun_noise_policy *out,
			    struct perun_error *err);

/* The samples of every series (flattened uid) of one profile. */
struct perun_check_samples;

int perun_check_samples_load(const struct perun_profile *profile, struct perun_check_samples **out,
			     struct perun_error *err);
void perun_check_samples_free(struct perun_check_samples *s);
/*
 * The samples of profile gathered from its next walk by another reader
 * (perun_profile_share_next_walk): NULL without memory.  After that
 * reader, perun_check_samples_shared says whether the walk gave them
 * whole (1, *s kept) or not (0, *s freed and NULL: load them then).
 */
struct perun_check_samples *perun_check_samples_share(const struct perun_profile *profile);
int perun_check_samples_shared(const struct perun_profile *profile, struct perun_check_samples **s);

/*
 * Fill the counts of c from the series at c->location in both profiles
 * (unknown when either lacks it) and, for a degradation or optimisation,
 * judge it against the noise: mark it unreliable (c->unreliable says why)
 * when the method's own effect is within its noise, the measured change
 * is under the floors, its sign contradicts the verdict or a test on the
 * samples does not reject "no change".  whole_pair: the profiles are the
 * two compared (not neighbours in a history judged as a whole, where
 * only the method's noise, the absolute floor and the counts apply).
 */
int perun_check_weigh(struct perun_check_change *c, const struct perun_check_samples *baseline,
		      const struct perun_check_samples *target,
		      const struct perun_noise_policy *policy, int whole_pair);

#endif
