/* Deep and varying stacks (recursion) with inlined helpers: input for
 * t0510-import-perf.sh. */
static volatile unsigned long sink;

static inline __attribute__((always_inline)) void mix(unsigned long i)
{
	sink ^= i * 2654435761u;
}

__attribute__((noinline)) static void walk(int depth, unsigned long n)
{
	if (depth > 0) {
		walk(depth - 1, n);
		return;
	}
	for (unsigned long i = 0; i < n; i++)
		mix(i);
}

int main(void)
{
	for (int d = 0; d < 6; d++)
		walk(d, 3000000);
	return 0;
}
