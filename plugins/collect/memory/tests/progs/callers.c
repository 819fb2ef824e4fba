/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One call site reached through the same function from two callers at the
 * same stack depth, so with the same stack pointer: each allocation must
 * keep its own stack. */
#include <stdlib.h>

__attribute__((noinline)) static void *leaf(size_t n)
{
	return malloc(n); /* @leaf */
}

__attribute__((noinline)) static void *mid(size_t n)
{
	void *p = leaf(n);
	return p;
}

/* Different bodies, or the compiler folds the two into one function. */
static volatile int count_a, count_b;

__attribute__((noinline)) static void *via_a(size_t n)
{
	count_a++;
	return mid(n);
}

__attribute__((noinline)) static void *via_b(size_t n)
{
	count_b++;
	return mid(n);
}

int main(void)
{
	for (int i = 0; i < 100; i++) {
		free(via_a(10));
		free(via_b(20));
		if (i % 3 == 0)
			free(via_a(30));
	}
	return 0;
}
