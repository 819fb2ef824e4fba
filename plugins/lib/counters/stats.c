/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Mean and spread of repeated counts as perf stat -r prints them (count.h):
 * "( +- x% )" is the standard error of the mean in % of the mean. */
#include <math.h>

#include "count.h"

void counters_spread_of(const double *values, size_t n, struct counters_spread *out)
{
	double sum = 0, squares = 0;
	for (size_t i = 0; i < n; i++)
		sum += values[i];
	out->mean = n ? sum / (double)n : 0;
	for (size_t i = 0; i < n; i++)
		squares += (values[i] - out->mean) * (values[i] - out->mean);
	out->stddev = n > 1 ? sqrt(squares / (double)(n - 1)) : 0;
	out->error_pct = n > 1 && out->mean != 0
				 ? 100.0 * (out->stddev / sqrt((double)n)) / fabs(out->mean)
				 : 0;
}
