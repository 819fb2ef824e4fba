/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Symbolic bounds: sums of integer multiples of products of atoms
 * (variables, max(0, e), max(a, b), log2(e), ceil(e / k)), kept in a
 * canonical order so that equal bounds print equally.  Values are
 * immutable and live in the arena of a sym_ctx until it is freed.
 */
#ifndef BOUNDS_SYM_H
#define BOUNDS_SYM_H

#include <stddef.h>

enum sym_atom_kind { SYM_VAR, SYM_MAX0, SYM_MAX, SYM_LOG, SYM_CDIV };

struct sym;

struct sym_atom {
	enum sym_atom_kind kind;
	const char *key; /* its printed form, identifies it */
	int nonneg;	 /* known to be >= 0 */
	const struct sym *a, *b;
	long long k;
};

struct sym_term {
	long long coef;
	size_t nf;
	const struct sym_atom **f; /* sorted by key */
	const char *key;
};

struct sym {
	long long c;
	size_t n;
	const struct sym_term *t; /* sorted: degree, then key */
};

/* The class of a bound: degree of its polynomial part and log factors. */
struct sym_class {
	int inf;
	int deg;
	int logs;
};

struct sym_ctx;

struct sym_ctx *sym_ctx_new(void);
void sym_ctx_free(struct sym_ctx *ctx);
/* Number of Z3 queries made so far. */
unsigned long sym_ctx_z3_queries(const struct sym_ctx *ctx);

const struct sym *sym_const(struct sym_ctx *ctx, long long c);
const struct sym *sym_var(struct sym_ctx *ctx, const char *name, int nonneg);
const struct sym *sym_add(struct sym_ctx *ctx, const struct sym *a, const struct sym *b);
const struct sym *sym_sub(struct sym_ctx *ctx, const struct sym *a, const struct sym *b);
const struct sym *sym_scale(struct sym_ctx *ctx, const struct sym *a, long long k);
const struct sym *sym_mul(struct sym_ctx *ctx, const struct sym *a, const struct sym *b);
const struct sym *sym_max0(struct sym_ctx *ctx, const struct sym *a);
const struct sym *sym_max(struct sym_ctx *ctx, const struct sym *a, const struct sym *b);
/* log2(max(1, a)), rounded up. */
const struct sym *sym_log2(struct sym_ctx *ctx, const struct sym *a);
/* ceil(a / k) for k >= 1 and a >= 0. */
const struct sym *sym_cdiv(struct sym_ctx *ctx, const struct sym *a, long long k);

int sym_is_const(const struct sym *a, long long *c);
/* 1 when a >= 0 holds for every value of its variables (syntactically,
 * then by Z3); 0 when that cannot be shown. */
int sym_nonneg(struct sym_ctx *ctx, const struct sym *a);
/* a <= b proven. */
int sym_le(struct sym_ctx *ctx, const struct sym *a, const struct sym *b);
struct sym_class sym_class_of(const struct sym *a);
/* "O(1)", "O(n^2)", "O(log n)", "O(n^1 log n)"; inf: "O(∞)". */
void sym_class_str(struct sym_class c, char *buf, size_t len);
/* <0, 0, >0 as class a is below, equal to, above b. */
int sym_class_cmp(struct sym_class a, struct sym_class b);
/* Loopus style: "1 + max(0, (k + -1))"; from the arena. */
const char *sym_str(struct sym_ctx *ctx, const struct sym *a);

#endif
