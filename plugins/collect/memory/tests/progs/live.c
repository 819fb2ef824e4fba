/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Live bytes that change in steps at least 300 ms apart: they land in
 * snapshots at least two --sampling 0.1 intervals apart.  The heap peaks
 * at 3000 bytes (both blocks), 2000 bytes leak. */
#include <stdlib.h>
#include <time.h>

static void pause_300ms(void)
{
	struct timespec ts = { 0, 300 * 1000 * 1000 };
	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(void)
{
	char *first = malloc(1000); /* @first */
	first[0] = 1;
	pause_300ms();
	char *second = malloc(2000); /* @second */
	second[0] = 2;
	pause_300ms();
	free(first); /* @free-first */
	pause_300ms();
	return second[0] == 2 ? 0 : 1;
}
