/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests of the symbolic bounds (sym.c): the printed forms Perun's
 * profiles carry, normalisation, classes, and what is proven non-negative
 * (with and without Z3) -- a wrong "proven" would make bounds too tight.
 */
#include <limits.h>
#include <string.h>

#include "../sym.h"
#include "../../../../tests/tap.h"

static const char *cls(const struct sym *s)
{
	static char buf[32];
	sym_class_str(sym_class_of(s), buf, sizeof(buf));
	return buf;
}

int main(void)
{
	struct sym_ctx *c = sym_ctx_new();
	const struct sym *k = sym_var(c, "k", 1), *n = sym_var(c, "n", 0);
	const struct sym *m = sym_var(c, "m", 0);
	const struct sym *one = sym_const(c, 1);

	/* The seed's forms. */
	const struct sym *x = sym_max0(c, sym_sub(c, k, one));
	tap_is_str(sym_str(c, x), "max(0, (k + -1))", "max(0, k - 1) as Loopus prints it");
	tap_is_str(sym_str(c, sym_add(c, sym_const(c, 6), sym_scale(c, x, 4))),
		   "6 + 4 × max(0, (k + -1))", "the seed's total bound");
	tap_is_str(cls(x), "O(n^1)", "its class");

	/* Normalisation: like terms merge, zero terms vanish, order is canonical. */
	tap_is_str(sym_str(c, sym_sub(c, sym_add(c, n, m), n)), "m", "n + m - n = m");
	tap_is_str(sym_str(c, sym_add(c, m, n)), sym_str(c, sym_add(c, n, m)), "a + b = b + a");
	tap_is_str(sym_str(c, sym_mul(c, sym_add(c, n, one), sym_add(c, n, one))),
		   "1 + n × n + 2 × n", "(n + 1)^2 expanded, higher degree first");
	tap_is_str(cls(sym_mul(c, sym_max0(c, n), sym_max0(c, m))), "O(n^2)", "a product");
	tap_is_str(cls(sym_const(c, 10)), "O(1)", "a constant");
	tap_is_str(cls(sym_add(c, one, sym_log2(c, k))), "O(log n)", "a logarithm");
	tap_is_str(cls(sym_mul(c, k, sym_log2(c, k))), "O(n^1 log n)", "n log n is not O(n)");
	tap_is_str(cls(NULL), "O(∞)", "no bound");
	tap_is_str(sym_str(c, sym_log2(c, sym_const(c, 1000))), "10",
		   "log2 of a constant, rounded up");
	tap_is_str(sym_str(c, sym_cdiv(c, sym_const(c, 10), 3)), "4", "ceil(10 / 3)");
	tap_is_str(sym_str(c, sym_cdiv(c, sym_max0(c, n), 3)), "max(0, n) / 3",
		   "ceil(max(0, n) / 3)");

	/* max(0, e) disappears only where e >= 0 is proven. */
	tap_is_str(sym_str(c, sym_max0(c, k)), "k", "k unsigned: max(0, k) = k");
	tap_is_str(sym_str(c, sym_max0(c, n)), "max(0, n)", "n signed: max(0, n) stays");
	tap_is_str(sym_str(c, sym_max0(c, sym_scale(c, k, -1))), "0", "max(0, -k) = 0, k unsigned");
	tap_is_str(sym_str(c, sym_max(c, one, sym_add(c, sym_const(c, 2), x))),
		   "2 + max(0, (k + -1))", "max(1, 2 + max(0, k - 1)) by dominance");
	tap_is_str(sym_str(c, sym_max(c, n, m)), "max(m, n)", "max of two unrelated");

	/* A bound beyond 64 bits is no bound (it would wrap negative). */
	const struct sym *big = sym_const(c, 1LL << 40);
	tap_ok(sym_mul(c, big, big) == NULL, "2^40 × 2^40 overflows: no bound");
	tap_ok(sym_scale(c, sym_scale(c, k, 1LL << 62), 4) == NULL, "4 × 2^62 × k overflows");
	tap_ok(sym_add(c, sym_const(c, LLONG_MAX), one) == NULL, "LLONG_MAX + 1 overflows");

	/* Proofs: never a false one. */
	tap_ok(sym_nonneg(c, k), "k >= 0 for unsigned k");
	tap_ok(!sym_nonneg(c, n), "n >= 0 is not proven for signed n");
	tap_ok(!sym_nonneg(c, sym_sub(c, k, one)), "k - 1 >= 0 is not proven");
	tap_ok(sym_nonneg(c, sym_sub(c, x, sym_sub(c, k, one))), "max(0, k - 1) >= k - 1 (Z3)");
	tap_ok(!sym_nonneg(c, sym_sub(c, sym_sub(c, k, one), x)), "k - 1 >= max(0, k - 1) is not");
	tap_ok(sym_le(c, sym_max0(c, n), sym_add(c, sym_max0(c, n), sym_max0(c, m))),
	       "max(0, n) <= max(0, n) + max(0, m)");
	tap_ok(!sym_le(c, sym_max0(c, n), sym_max0(c, m)), "max(0, n) <= max(0, m) is not proven");
	tap_ok(sym_nonneg(c, sym_sub(c, sym_mul(c, sym_cdiv(c, sym_max0(c, n), 3), sym_const(c, 3)),
				     sym_max0(c, n))),
	       "3 × ceil(max(0, n) / 3) >= max(0, n) (Z3)");
	tap_ok(sym_ctx_z3_queries(c) > 0, "Z3 was asked (%lu queries)", sym_ctx_z3_queries(c));

	sym_ctx_free(c);
	return tap_done();
}
