/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Two allocations at least 300 ms apart: they land in snapshots at least
 * two --sampling 0.1 intervals apart, however slow the machine. */
#include <stdlib.h>
#include <time.h>

int main(void)
{
	free(malloc(10)); /* @first */
	struct timespec ts = { 0, 300 * 1000 * 1000 };
	while (nanosleep(&ts, &ts) != 0)
		;
	free(malloc(20)); /* @second */
	return 0;
}
