/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The corpus of t9101: small functions with their bounds written by hand.
 * A loop's line ends with "L: <local bound> | <class>", a function's
 * first line with "T: <total bound> | <class>".  A bound here counts the
 * tests of the loop's guard in one call, as Loopus did: how often its body
 * runs, plus the last test that ends it for a loop tested first and not
 * inside another loop (a nested loop's last tests are paid by the runs of
 * the loop around it; a do loop's tests are its runs).  Each was checked
 * to be no lower than the real count.  O(∞) where the analysis cannot
 * prove one (some of those loops do not end).
 */
struct node {
	struct node *next;
	int v;
};
int g_n;
extern int nondet(void);
extern void work(int);

int c01_const(void) /* T: 11 | O(1) */
{
	int s = 0;
	for (int i = 0; i < 10; i++) /* L: 11 | O(1) */
		s += i;
	return s;
}

int c02_param(int n) /* T: 1 + max(0, n) | O(n^1) */
{
	int s = 0;
	for (int i = 0; i < n; i++) /* L: 1 + max(0, n) | O(n^1) */
		s++;
	return s;
}

int c03_param_le(int n) /* T: 1 + max(0, (n + 1)) | O(n^1) */
{
	int s = 0;
	for (int i = 0; i <= n; i++) /* L: 1 + max(0, (n + 1)) | O(n^1) */
		s++;
	return s;
}

int c04_down(int n) /* T: 1 + max(0, n) | O(n^1) */
{
	int s = 0;
	for (int i = n; i > 0; i--) /* L: 1 + max(0, n) | O(n^1) */
		s++;
	return s;
}

int c05_step(int n) /* T: 1 + max(0, n) / 3 | O(n^1) */
{
	int s = 0;
	for (int i = 0; i < n; i += 3) /* L: 1 + max(0, n) / 3 | O(n^1) */
		s++;
	return s;
}

int c06_from_to(int a, int b) /* T: 1 + max(0, (-1 × a + b)) | O(n^1) */
{
	int s = 0;
	for (int i = a; i < b; i++) /* L: 1 + max(0, (-1 × a + b)) | O(n^1) */
		s++;
	return s;
}

int c07_while(unsigned n) /* T: 1 + n | O(n^1) */
{
	unsigned s = 0;
	while (n > 0) { /* L: 1 + n | O(n^1) */
		n--;
		s++;
	}
	return (int)s;
}

int c08_do(int n) /* T: 1 + max(0, n) | O(n^1) */
{
	int i = 0;
	do { /* L: 1 + max(0, n) | O(n^1) */
		i++;
	} while (i < n);
	return i;
}

int c09_nested(int n, int m) /* T: 1 + max(0, m) × max(0, n) + max(0, n) | O(n^2) */
{
	int s = 0;
	for (int i = 0; i < n; i++) /* L: 1 + max(0, n) | O(n^1) */
		for (int j = 0; j < m; j++) /* L: max(0, m) × max(0, n) | O(n^2) */
			s++;
	return s;
}

int c10_square(int n) /* T: 1 + max(0, n) × max(0, n) + max(0, n) | O(n^2) */
{
	int s = 0;
	for (int i = 0; i < n; i++) /* L: 1 + max(0, n) | O(n^1) */
		for (int j = 0; j < n; j++) /* L: max(0, n) × max(0, n) | O(n^2) */
			s++;
	return s;
}

int c11_triangular(int n) /* T: 1 + max(0, (n + -1)) × max(0, n) + max(0, n) | O(n^2) */
{
	int s = 0;
	for (int i = 0; i < n; i++) /* L: 1 + max(0, n) | O(n^1) */
		for (int j = 0; j < i; j++) /* L: max(0, (n + -1)) × max(0, n) | O(n^2) */
			s++;
	return s;
}

int c12_cubic(int n) /* T: 1 + max(0, n) × max(0, n) × max(0, n) + max(0, n) × max(0, n) + max(0, n) | O(n^3) */
{
	int s = 0;
	for (int i = 0; i < n; i++) /* L: 1 + max(0, n) | O(n^1) */
		for (int j = 0; j < n; j++) /* L: max(0, n) × max(0, n) | O(n^2) */
			for (int k = 0; k < n; k++) /* L: max(0, n) × max(0, n) × max(0, n) | O(n^3) */
				s++;
	return s;
}

int c13_halve(unsigned n) /* T: 2 + log2(n) | O(log n) */
{
	int s = 0;
	while (n > 0) { /* L: 2 + log2(n) | O(log n) */
		n /= 2;
		s++;
	}
	return s;
}

int c14_shift(unsigned n) /* T: 2 + log2(n) | O(log n) */
{
	int s = 0;
	while (n) { /* L: 2 + log2(n) | O(log n) */
		n >>= 1;
		s++;
	}
	return s;
}

int c15_double(int n) /* T: 2 + log2(n) | O(log n) */
{
	int s = 0;
	for (int i = 1; i < n; i *= 2) /* L: 2 + log2(n) | O(log n) */
		s++;
	return s;
}

int c16_double_zero(int n) /* T: ∞ | O(∞) */
{
	int s = 0;
	for (int i = 0; i < n; i *= 2) /* L: ∞ | O(∞) */
		s++;
	return s;
}

int c17_break(int n, int *a) /* T: 1 + max(0, n) | O(n^1) */
{
	int i;
	for (i = 0; i < n; i++) /* L: 1 + max(0, n) | O(n^1) */
		if (a[i] == 0)
			break;
	return i;
}

int c18_return(int n, int *a) /* T: 1 + max(0, n) | O(n^1) */
{
	for (int i = 0; i < n; i++) /* L: 1 + max(0, n) | O(n^1) */
		if (a[i])
			return i;
	return -1;
}

int c19_continue(int n) /* T: 1 + max(0, n) | O(n^1) */
{
	int s = 0;
	for (int i = 0; i < n; i++) { /* L: 1 + max(0, n) | O(n^1) */
		if (i % 2)
			continue;
		s++;
	}
	return s;
}

int c20_continue_skips_update(int n) /* T: ∞ | O(∞) */
{
	int i = 0;
	while (i < n) { /* L: ∞ | O(∞) */
		if (nondet())
			continue;
		i++;
	}
	return i;
}

int c21_two_counters(int n, int m) /* T: 1 + max(0, n) | O(n^1) */
{
	int s = 0;
	for (int i = 0, j = 0; i < n && j < m; i++, j++) /* L: 1 + max(0, n) | O(n^1) */
		s++;
	return s;
}

int c22_either_counter(int n, int m) /* T: 1 + max(0, m) + max(0, n) | O(n^1) */
{
	int i = 0, j = 0;
	while (i < n || j < m) { /* L: 1 + max(0, m) + max(0, n) | O(n^1) */
		i++;
		j++;
	}
	return i;
}

int c23_counters_meet(int n) /* T: 1 + max(0, n) | O(n^1) */
{
	int i = 0, j = n;
	while (i < j) { /* L: 1 + max(0, n) | O(n^1) */
		if (nondet())
			i++;
		else
			j--;
	}
	return i;
}

int c24_step_by_variable(int n, int k) /* T: 1 + max(0, n) | O(n^1) */
{
	int s = 0;
	if (k < 1)
		return 0;
	for (int i = 0; i < n; i += k) /* L: 1 + max(0, n) | O(n^1) */
		s++;
	return s;
}

int c25_list(struct node *p) /* T: ∞ | O(∞) */
{
	int s = 0;
	while (p) { /* L: ∞ | O(∞) */
		s++;
		p = p->next;
	}
	return s;
}

int c26_list_companion(struct node *p, unsigned len) /* T: 1 + len | O(n^1) */
{
	int s = 0;
	unsigned c = len;
	while (c > 0 && p) { /* L: 1 + len | O(n^1) */
		p = p->next;
		c--;
		s++;
	}
	return s;
}

int c27_amortised(unsigned n) /* T: 1 + 2 × n | O(n^1) */
{
	unsigned pending = 0;
	int s = 0;
	for (unsigned i = 0; i < n; i++) { /* L: 1 + n | O(n^1) */
		pending++;
		if (nondet())
			while (pending > 0) { /* L: n | O(n^1) */
				pending--;
				s++;
			}
	}
	return s;
}

int c28_no_guard(void) /* T: ∞ | O(∞) */
{
	int s = 0;
	for (;;) { /* L: ∞ | O(∞) */
		if (nondet())
			break;
		s++;
	}
	return s;
}

int c29_recursive(int n) /* T: ∞ | O(∞) */
{
	if (n <= 0)
		return 0;
	return 1 + c29_recursive(n - 1);
}

int c30_goto(int n) /* T: 1 + max(0, n) | O(n^1) */
{
	int i = 0;
again: /* L: 1 + max(0, n) | O(n^1) */
	if (i < n) {
		i++;
		goto again;
	}
	return i;
}

int c31_global(void) /* T: 1 + max(0, g_n) | O(n^1) */
{
	int s = 0;
	for (int i = 0; i < g_n; i++) /* L: 1 + max(0, g_n) | O(n^1) */
		s++;
	return s;
}

int c32_global_and_call(void) /* T: ∞ | O(∞) */
{
	int s = 0;
	for (int i = 0; i < g_n; i++) /* L: ∞ | O(∞) */
		work(i);
	return s;
}

int c33_limit_runs_away(int n) /* T: ∞ | O(∞) */
{
	int s = 0;
	for (int i = 0; i < n; i++) { /* L: ∞ | O(∞) */
		n++;
		s++;
	}
	return s;
}

int c34_wrong_direction(int n) /* T: ∞ | O(∞) */
{
	int s = 0;
	for (int i = 0; i < n; i--) /* L: ∞ | O(∞) */
		s++;
	return s;
}

int c35_not_equal(unsigned n) /* T: 1 + n | O(n^1) */
{
	unsigned s = 0;
	for (unsigned i = 0; i != n; i++) /* L: 1 + n | O(n^1) */
		s++;
	return (int)s;
}

int c36_not_equal_may_pass(int n) /* T: ∞ | O(∞) */
{
	int s = 0;
	for (int i = 0; i != n; i++) /* L: ∞ | O(∞) */
		s++;
	return s;
}

int c37_unsigned_wraps(unsigned n) /* T: ∞ | O(∞) */
{
	int s = 0;
	for (unsigned i = n; i >= 0; i--) /* L: ∞ | O(∞) */
		s++;
	return s;
}

int c38_sequence(int n, int m) /* T: 2 + max(0, m) + max(0, n) | O(n^1) */
{
	int s = 0;
	for (int i = 0; i < n; i++) /* L: 1 + max(0, n) | O(n^1) */
		s++;
	for (int j = 0; j < m; j++) /* L: 1 + max(0, m) | O(n^1) */
		s++;
	return s;
}

int c39_local_limit(int n) /* T: 1 + max(0, (2 × n + 1)) | O(n^1) */
{
	int s = 0;
	int m = 2 * n + 1;
	for (int i = 0; i < m; i++) /* L: 1 + max(0, (2 × n + 1)) | O(n^1) */
		s++;
	return s;
}

int c40_postdecrement(unsigned n) /* T: 1 + n | O(n^1) */
{
	int s = 0;
	while (n--) /* L: 1 + n | O(n^1) */
		s++;
	return s;
}

int c41_linear_times_log(unsigned n) /* T: 1 + log2(n) × n + 2 × n | O(n^1 log n) */
{
	int s = 0;
	for (unsigned i = 0; i < n; i++) /* L: 1 + n | O(n^1) */
		for (unsigned j = n; j > 0; j /= 2) /* L: log2(n) × n + n | O(n^1 log n) */
			s++;
	return s;
}

int c42_address_taken(int n) /* T: ∞ | O(∞) */
{
	int s = 0;
	int i;
	int *p = &i;
	for (i = 0; i < n; i++) { /* L: ∞ | O(∞) */
		*p += 0;
		s++;
	}
	return s;
}

int c43_early_exit_nested(int n, int *a) /* T: 1 + max(0, n) × max(0, n) + max(0, n) | O(n^2) */
{
	int s = 0;
	for (int i = 0; i < n; i++) { /* L: 1 + max(0, n) | O(n^1) */
		for (int j = i; j < n; j++) { /* L: max(0, n) × max(0, n) | O(n^2) */
			if (a[j])
				break;
			s++;
		}
	}
	return s;
}

int c44_bounded_by_break_only(int n) /* T: ∞ | O(∞) */
{
	int i = 0;
	while (1) { /* L: ∞ | O(∞) */
		if (i >= n)
			break;
		i++;
	}
	return i;
}

int c45_memory_limit(int *a) /* T: ∞ | O(∞) */
{
	int s = 0;
	for (int i = 0; i < a[0]; i++) /* L: ∞ | O(∞) */
		s++;
	return s;
}

int c46_product_limit(unsigned n, unsigned m) /* T: 1 + m × n | O(n^2) */
{
	int s = 0;
	for (unsigned i = 0; i < n * m; i++) /* L: 1 + m × n | O(n^2) */
		s++;
	return s;
}

int c47_two_phase(unsigned n) /* T: 2 + 2 × n | O(n^1) */
{
	unsigned a = 0, b = 0;
	while (a < n) { /* L: 1 + n | O(n^1) */
		a++;
		b++;
	}
	while (b > 0) /* L: 1 + n | O(n^1) */
		b--;
	return (int)a;
}

int c48_inner_reset(int n, int m) /* T: 1 + max(0, m) × max(0, n) + max(0, n) | O(n^2) */
{
	int s = 0;
	for (int i = 0; i < n; i++) { /* L: 1 + max(0, n) | O(n^1) */
		int j = 0;
		while (j < m) /* L: max(0, m) × max(0, n) | O(n^2) */
			j++;
		s += j;
	}
	return s;
}

int c49_limit_from_a_call(void) /* T: 1 + max(0, m) × max(0, m) + max(0, m) | O(n^2) */
{
	int m = nondet();
	int s = 0;
	for (int i = 0; i < m; i++) /* L: 1 + max(0, m) | O(n^1) */
		for (int j = 0; j < m; j++) /* L: max(0, m) × max(0, m) | O(n^2) */
			s++;
	return s;
}

int c50_limit_set_twice(void) /* T: ∞ | O(∞) */
{
	int m = nondet();
	int s = 0;
	for (int i = 0; i < m; i++) /* L: ∞ | O(∞) */
		s++;
	m = nondet();
	return s + m;
}

int c51_inner_for_reset(unsigned n, unsigned m) /* T: 1 + m × n + n | O(n^2) */
{
	int s = 0;
	for (unsigned i = 0; i < n; i++) /* L: 1 + n | O(n^1) */
		for (unsigned j = 0; j < m; j++) /* L: m × n | O(n^2) */
			s++;
	return s;
}

int c52_goto_tested_last(unsigned n) /* T: 1 + n | O(n^1) */
{
	unsigned i = 0;
top: /* L: 1 + n | O(n^1) */
	i++;
	if (i < n)
		goto top;
	return (int)i;
}

int c53_goto_two_ways_back(int n) /* T: ∞ | O(∞) */
{
	int i = 0;
a: /* L: ∞ | O(∞) */
	i++;
	if (i < n)
		goto a;
	if (i < 2 * n)
		goto a;
	return i;
}

int c54_goto_early_exit(int n) /* T: 1 + max(0, n) / 2 | O(n^1) */
{
	int i = 0;
c: /* L: 1 + max(0, n) / 2 | O(n^1) */
	if (i < n) {
		if (nondet())
			goto out;
		i += 2;
		goto c;
	}
out:
	return i;
}

int c55_goto_in_a_loop(int n) /* T: ∞ | O(∞) */
{
	int s = 0;
	for (int k = 0; k < n; k++) { /* L: ∞ | O(∞) */
		int i = 0;
	b: /* L: ∞ | O(∞) */
		if (i < k) {
			i++;
			s++;
			goto b;
		}
	}
	return s;
}

int c56_odd(int n);

int c56_even(int n) /* T: ∞ | O(∞) */
{
	return n == 0 ? 1 : c56_odd(n - 1);
}

int c56_odd(int n) /* T: ∞ | O(∞) */
{
	return n == 0 ? 0 : c56_even(n - 1);
}

#define RESET(x) x = 0
#define LIMIT 64

int c57_reset_by_a_macro(int n) /* T: ∞ | O(∞) */
{
	int s = 0;
	for (int i = 0; i < n; i++) { /* L: ∞ | O(∞) */
		if (nondet())
			RESET(i);
		s++;
	}
	return s;
}

int c58_limit_from_a_macro(void) /* T: 65 | O(1) */
{
	int s = 0;
	for (int i = 0; i < LIMIT; i++) /* L: 65 | O(1) */
		s++;
	return s;
}

int c59_narrow_counter(unsigned long n) /* T: ∞ | O(∞) */
{
	int s = 0;
	for (unsigned i = 0; i < n; i++) /* L: ∞ | O(∞) */
		s++;
	return s;
}

int c60_unsigned_limit_may_wrap(unsigned n) /* T: ∞ | O(∞) */
{
	int s = 0;
	for (unsigned i = 0; i < n - 1; i++) /* L: ∞ | O(∞) */
		s++;
	return s;
}

int c61_unsigned_limit_guarded(unsigned n) /* T: 1 + max(0, (n + -1)) | O(n^1) */
{
	int s = 0;
	if (n == 0)
		return 0;
	for (unsigned i = 0; i < n - 1; i++) /* L: 1 + max(0, (n + -1)) | O(n^1) */
		s++;
	return s;
}

/* Amortised through two levels: pending is raised by the outer loop only
 * and consumed two levels down; the inner loop runs n times in all, not
 * n × m × n. */
int c56_amortised_two_levels(unsigned n, unsigned m) /* T: 1 + m × n + 2 × n | O(n^2) */
{
	unsigned pending = 0;
	int s = 0;
	for (unsigned i = 0; i < n; i++) { /* L: 1 + n | O(n^1) */
		pending++;
		for (unsigned j = 0; j < m; j++) /* L: m × n | O(n^2) */
			if (nondet())
				while (pending > 0) { /* L: n | O(n^1) */
					pending--;
					s++;
				}
	}
	return s;
}

/* Through three levels. */
int c57_amortised_three_levels(unsigned n, unsigned m) /* T: 1 + m × m × n + m × n + 3 × n | O(n^3) */
{
	unsigned pending = 0;
	int s = 0;
	for (unsigned i = 0; i < n; i++) { /* L: 1 + n | O(n^1) */
		pending += 2;
		for (unsigned j = 0; j < m; j++) /* L: m × n | O(n^2) */
			for (unsigned k = 0; k < m; k++) /* L: m × m × n | O(n^3) */
				while (pending > 0 && nondet()) { /* L: 2 × n | O(n^1) */
					pending--;
					s++;
				}
	}
	return s;
}

/* Raised in the middle loop, consumed in the innermost, never reset:
 * amortised over the outer loop, n × m runs in all. */
int c58_amortised_middle(unsigned n, unsigned m) /* T: 1 + 2 × m × n + n | O(n^2) */
{
	unsigned pending = 0;
	int s = 0;
	for (unsigned i = 0; i < n; i++) /* L: 1 + n | O(n^1) */
		for (unsigned j = 0; j < m; j++) { /* L: m × n | O(n^2) */
			pending++;
			if (nondet())
				while (pending > 0) { /* L: m × n | O(n^2) */
					pending--;
					s++;
				}
		}
	return s;
}

/* Not amortised: the middle loop resets pending to n at each of its runs,
 * so the inner loop may run n times for each of them. */
int c59_reset_in_the_middle(unsigned n, unsigned m) /* T: 1 + m × n × n + m × n + n | O(n^3) */
{
	unsigned pending = 0;
	int s = 0;
	for (unsigned i = 0; i < n; i++) { /* L: 1 + n | O(n^1) */
		pending++;
		for (unsigned j = 0; j < m; j++) { /* L: m × n | O(n^2) */
			pending = n;
			while (pending > 0) { /* L: m × n × n | O(n^3) */
				pending--;
				s++;
			}
		}
	}
	return s;
}

/* Not amortised: a loop beside the inner one raises pending m times for
 * each outer run; the increments in that loop are not counted here. */
int c60_raised_beside(unsigned n, unsigned m) /* T: ∞ | O(∞) */
{
	unsigned pending = 0;
	int s = 0;
	for (unsigned i = 0; i < n; i++) { /* L: 1 + n | O(n^1) */
		for (unsigned j = 0; j < m; j++) /* L: m × n | O(n^2) */
			pending++;
		for (unsigned j = 0; j < m; j++) /* L: m × n | O(n^2) */
			while (pending > 0 && nondet()) { /* L: ∞ | O(∞) */
				pending--;
				s++;
			}
	}
	return s;
}

/* A value taken from a counter before its increment: the last iteration's
 * counter, n - 1, so last <= n and the second loop runs n times, not n + 1. */
int c61_last_before_increment(int n) /* T: 2 + 2 × max(0, n) | O(n^1) */
{
	int last = 0, i = 0, s = 0;
	while (i < n) { /* L: 1 + max(0, n) | O(n^1) */
		last = i + 1;
		i++;
	}
	for (int j = 0; j < last; j++) /* L: 1 + max(0, n) | O(n^1) */
		s++;
	return s;
}

/* Taken after the increment: the counter's final value, n. */
int c62_last_after_increment(int n) /* T: 3 + 2 × max(0, n) | O(n^1) */
{
	int last = 0, i = 0, s = 0;
	while (i < n) { /* L: 1 + max(0, n) | O(n^1) */
		i++;
		last = i + 1;
	}
	for (int j = 0; j < last; j++) /* L: 2 + max(0, n) | O(n^1) */
		s++;
	return s;
}
