/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Known call counts and sleeps: work 10 times, leaf 1000 times (100 per
 * work), nap 3 times sleeping 30 ms each. */
#include <unistd.h>

int leaf(int x);
int work(int n);
void nap(void);

int leaf(int x)
{
	return x * 3 + 1;
}

int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

void nap(void)
{
	usleep(30000);
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 10; i++)
		s += work(100);
	for (int i = 0; i < 3; i++)
		nap();
	return s == 42;
}
