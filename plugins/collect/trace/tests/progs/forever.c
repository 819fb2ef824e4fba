/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tick 5 times, then spin_forever never returns: ended by the timeout. */
#include <unistd.h>

void tick(void);
void spin_forever(void);

void tick(void)
{
	usleep(1000);
}

void spin_forever(void)
{
	for (;;)
		usleep(10000);
}

int main(void)
{
	for (int i = 0; i < 5; i++)
		tick();
	spin_forever();
	return 0;
}
