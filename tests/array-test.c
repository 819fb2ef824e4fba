/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests of libperun's growable arrays (perun/array.h): growth keeps
 * the elements and zeroes the new ones, and a size that cannot be had
 * fails with ENOMEM and leaves the array as it was.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <perun/array.h>

#include "tap.h"

int main(void)
{
	long *v = NULL;
	size_t cap = 0, n = 0;
	int ok = 1;
	for (long i = 0; i < 1000 && ok; i++) {
		ok = !perun_array_grow((void **)&v, &cap, n + 1, sizeof(*v)) && cap > n;
		if (ok)
			v[n++] = i;
	}
	for (size_t i = 0; ok && i < n; i++)
		ok = v[i] == (long)i;
	tap_ok(ok && cap >= 1000 && cap < 2048, "1,000 appends keep their values (capacity %zu)",
	       cap);
	for (size_t i = n; ok && i < cap; i++)
		ok = v[i] == 0;
	tap_ok(ok, "the room beyond them is zeroed");
	size_t before = cap;
	tap_ok(!perun_array_grow((void **)&v, &cap, 10, sizeof(*v)) && cap == before,
	       "a need within the capacity changes nothing");
	long *kept = v;
	errno = 0;
	tap_ok(perun_array_grow((void **)&v, &cap, SIZE_MAX / 2, sizeof(*v)) == -1 &&
		       errno == ENOMEM && v == kept && cap == before && v[999] == 999,
	       "an impossible size: ENOMEM, the array as it was");
	free(v);
	return tap_done();
}
