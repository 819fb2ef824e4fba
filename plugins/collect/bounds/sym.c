/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Symbolic bounds (sym.h).  Everything is allocated from one arena per
 * context; out of memory aborts, as a half-built bound would be made up.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <z3.h>

#include "sym.h"

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	char data[];
};

struct sym_ctx {
	struct arena_block *blocks;
	unsigned long z3_queries;
	int overflow; /* set by arithmetic that left 64 bits */
};

/* Checked arithmetic: a bound that does not fit is no bound. */
static long long add_ck(struct sym_ctx *ctx, long long a, long long b)
{
	long long r;
	if (__builtin_add_overflow(a, b, &r))
		ctx->overflow = 1;
	return r;
}

static long long mul_ck(struct sym_ctx *ctx, long long a, long long b)
{
	long long r;
	if (__builtin_mul_overflow(a, b, &r))
		ctx->overflow = 1;
	return r;
}

/* One Z3 context for the process: making one costs more than most
 * queries.  Solvers are made per query and released. */
static Z3_context z3_shared;

/* The shared context goes with the plugin: perun closes plugins it is done
 * with, and a context left behind is a leak of everything Z3 holds. */
__attribute__((destructor)) static void z3_shared_release(void)
{
	if (z3_shared)
		Z3_del_context(z3_shared);
	z3_shared = NULL;
}

static void *xalloc(struct sym_ctx *ctx, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	struct arena_block *b = ctx->blocks;
	if (!b || b->size - b->used < n) {
		size_t size = n > 65536 ? n : 65536;
		b = malloc(sizeof(*b) + size);
		if (!b)
			abort();
		b->size = size;
		b->used = 0;
		b->next = ctx->blocks;
		ctx->blocks = b;
	}
	void *p = b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

static const char *xprintf(struct sym_ctx *ctx, const char *fmt, ...)
{
	va_list ap;
	char *tmp = NULL;
	va_start(ap, fmt);
	int n = vasprintf(&tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	char *s = xalloc(ctx, (size_t)n + 1);
	memcpy(s, tmp, (size_t)n + 1);
	free(tmp);
	return s;
}

struct sym_ctx *sym_ctx_new(void)
{
	return calloc(1, sizeof(struct sym_ctx));
}

void sym_ctx_free(struct sym_ctx *ctx)
{
	if (!ctx)
		return;
	while (ctx->blocks) {
		struct arena_block *next = ctx->blocks->next;
		free(ctx->blocks);
		ctx->blocks = next;
	}
	free(ctx);
}

unsigned long sym_ctx_z3_queries(const struct sym_ctx *ctx)
{
	return ctx->z3_queries;
}

/* ---- building and normalising ------------------------------------------ */

static struct sym_class atom_class(const struct sym_atom *a)
{
	struct sym_class c = { 0, 0, 0 };
	switch (a->kind) {
	case SYM_VAR: c.deg = 1; break;
	case SYM_LOG: c.logs = 1; break;
	case SYM_MAX: {
		struct sym_class x = sym_class_of(a->a), y = sym_class_of(a->b);
		c = sym_class_cmp(x, y) >= 0 ? x : y;
		break;
	}
	default: c = sym_class_of(a->a); break;
	}
	return c;
}

static struct sym_class term_class(const struct sym_term *t)
{
	struct sym_class c = { 0, 0, 0 };
	for (size_t i = 0; i < t->nf; i++) {
		struct sym_class f = atom_class(t->f[i]);
		c.deg += f.deg;
		c.logs += f.logs;
	}
	return c;
}

static int term_cmp(const void *pa, const void *pb)
{
	const struct sym_term *a = pa, *b = pb;
	int r = sym_class_cmp(term_class(b), term_class(a));
	return r ? r : strcmp(a->key, b->key);
}

static const char *term_key(struct sym_ctx *ctx, const struct sym_atom **f, size_t nf)
{
	size_t len = 1;
	for (size_t i = 0; i < nf; i++)
		len += strlen(f[i]->key) + 8;
	char *k = xalloc(ctx, len + 8);
	for (size_t i = 0; i < nf; i++) {
		/* "a × (b / 3)": a / in a product binds to its own factor */
		int paren = nf > 1 && f[i]->kind == SYM_CDIV;
		if (i)
			strcat(k, " × ");
		strcat(k, paren ? "(" : "");
		strcat(k, f[i]->key);
		strcat(k, paren ? ")" : "");
	}
	return k;
}

/* Terms merged by key, zero ones dropped, sorted. */
static const struct sym *make(struct sym_ctx *ctx, long long c, struct sym_term *t, size_t n)
{
	struct sym *s = xalloc(ctx, sizeof(*s));
	struct sym_term *out = xalloc(ctx, sizeof(*out) * (n ? n : 1));
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j;
		for (j = 0; j < m; j++)
			if (!strcmp(out[j].key, t[i].key))
				break;
		if (j < m)
			out[j].coef = add_ck(ctx, out[j].coef, t[i].coef);
		else
			out[m++] = t[i];
	}
	size_t k = 0;
	for (size_t i = 0; i < m; i++)
		if (out[i].coef)
			out[k++] = out[i];
	qsort(out, k, sizeof(*out), term_cmp);
	s->c = c;
	s->n = k;
	s->t = out;
	return s;
}

const struct sym *sym_const(struct sym_ctx *ctx, long long c)
{
	return make(ctx, c, NULL, 0);
}

static const struct sym *from_atom(struct sym_ctx *ctx, struct sym_atom *a)
{
	struct sym_term t = { 1, 1, NULL, a->key };
	const struct sym_atom **f = xalloc(ctx, sizeof(*f));
	f[0] = a;
	t.f = f;
	return make(ctx, 0, &t, 1);
}

const struct sym *sym_var(struct sym_ctx *ctx, const char *name, int nonneg)
{
	struct sym_atom *a = xalloc(ctx, sizeof(*a));
	a->kind = SYM_VAR;
	a->key = xprintf(ctx, "%s", name);
	a->nonneg = nonneg;
	return from_atom(ctx, a);
}

const struct sym *sym_add(struct sym_ctx *ctx, const struct sym *a, const struct sym *b)
{
	if (!a || !b)
		return NULL;
	struct sym_term *t = xalloc(ctx, sizeof(*t) * (a->n + b->n + 1));
	memcpy(t, a->t, sizeof(*t) * a->n);
	memcpy(t + a->n, b->t, sizeof(*t) * b->n);
	ctx->overflow = 0;
	const struct sym *r = make(ctx, add_ck(ctx, a->c, b->c), t, a->n + b->n);
	return ctx->overflow ? NULL : r;
}

const struct sym *sym_scale(struct sym_ctx *ctx, const struct sym *a, long long k)
{
	if (!a)
		return NULL;
	struct sym_term *t = xalloc(ctx, sizeof(*t) * (a->n + 1));
	ctx->overflow = 0;
	for (size_t i = 0; i < a->n; i++) {
		t[i] = a->t[i];
		t[i].coef = mul_ck(ctx, t[i].coef, k);
	}
	const struct sym *r = make(ctx, mul_ck(ctx, a->c, k), t, a->n);
	return ctx->overflow ? NULL : r;
}

const struct sym *sym_sub(struct sym_ctx *ctx, const struct sym *a, const struct sym *b)
{
	return sym_add(ctx, a, sym_scale(ctx, b, -1));
}

static int atom_cmp(const void *pa, const void *pb)
{
	const struct sym_atom *const *a = pa, *const *b = pb;
	return strcmp((*a)->key, (*b)->key);
}

const struct sym *sym_mul(struct sym_ctx *ctx, const struct sym *a, const struct sym *b)
{
	if (!a || !b)
		return NULL;
	size_t n = (a->n + 1) * (b->n + 1), k = 0;
	struct sym_term *t = xalloc(ctx, sizeof(*t) * n);
	ctx->overflow = 0;
	/* (ca + Σ ta)(cb + Σ tb) */
	for (size_t i = 0; i <= a->n; i++) {
		for (size_t j = 0; j <= b->n; j++) {
			if (i == a->n && j == b->n)
				continue;
			const struct sym_term *x = i < a->n ? &a->t[i] : NULL;
			const struct sym_term *y = j < b->n ? &b->t[j] : NULL;
			long long coef = mul_ck(ctx, x ? x->coef : a->c, y ? y->coef : b->c);
			size_t nf = (x ? x->nf : 0) + (y ? y->nf : 0);
			const struct sym_atom **f = xalloc(ctx, sizeof(*f) * nf);
			if (x)
				memcpy(f, x->f, sizeof(*f) * x->nf);
			if (y)
				memcpy(f + (x ? x->nf : 0), y->f, sizeof(*f) * y->nf);
			qsort(f, nf, sizeof(*f), atom_cmp);
			t[k].coef = coef;
			t[k].nf = nf;
			t[k].f = f;
			t[k].key = term_key(ctx, f, nf);
			k++;
		}
	}
	const struct sym *r = make(ctx, mul_ck(ctx, a->c, b->c), t, k);
	return ctx->overflow ? NULL : r;
}

int sym_is_const(const struct sym *a, long long *c)
{
	if (!a || a->n)
		return 0;
	if (c)
		*c = a->c;
	return 1;
}

/* "k", "4 × k", "2 × (n / 3)". */
static const char *term_str(struct sym_ctx *ctx, const struct sym_term *t)
{
	if (t->coef == 1)
		return t->key;
	if (t->nf == 1 && t->f[0]->kind == SYM_CDIV)
		return xprintf(ctx, "%lld × (%s)", t->coef, t->key);
	return xprintf(ctx, "%lld × %s", t->coef, t->key);
}

/* Written inside another atom: "(k + -1)", variables first. */
static const char *inner_str(struct sym_ctx *ctx, const struct sym *a)
{
	const char *s = NULL;
	int parts = 0;
	for (size_t i = 0; i < a->n; i++, parts++) {
		const char *t = term_str(ctx, &a->t[i]);
		s = s ? xprintf(ctx, "%s + %s", s, t) : t;
	}
	if (a->c || !a->n) {
		s = s ? xprintf(ctx, "%s + %lld", s, a->c) : xprintf(ctx, "%lld", a->c);
		parts++;
	}
	return parts > 1 ? xprintf(ctx, "(%s)", s) : s;
}

const char *sym_str(struct sym_ctx *ctx, const struct sym *a)
{
	if (!a)
		return "∞";
	const char *s = a->c || !a->n ? xprintf(ctx, "%lld", a->c) : NULL;
	for (size_t i = 0; i < a->n; i++) {
		const char *t = term_str(ctx, &a->t[i]);
		s = s ? xprintf(ctx, "%s + %s", s, t) : t;
	}
	return s;
}

static int syn_nonneg(const struct sym *a)
{
	if (a->c < 0)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		if (a->t[i].coef < 0)
			return 0;
		for (size_t j = 0; j < a->t[i].nf; j++)
			if (!a->t[i].f[j]->nonneg)
				return 0;
	}
	return 1;
}

/* A non-negative atom of one argument, named key. */
static const struct sym *atom1(struct sym_ctx *ctx, enum sym_atom_kind kind, const struct sym *a,
			       long long k, const char *key)
{
	struct sym_atom *m = xalloc(ctx, sizeof(*m));
	m->kind = kind;
	m->a = a;
	m->k = k;
	m->nonneg = 1;
	m->key = key;
	return from_atom(ctx, m);
}

const struct sym *sym_max0(struct sym_ctx *ctx, const struct sym *a)
{
	long long c;
	if (!a)
		return NULL;
	if (sym_is_const(a, &c))
		return sym_const(ctx, c > 0 ? c : 0);
	if (sym_nonneg(ctx, a))
		return a;
	/* Nothing positive in it: max(0, a) = 0. */
	if (sym_nonneg(ctx, sym_scale(ctx, a, -1)))
		return sym_const(ctx, 0);
	return atom1(ctx, SYM_MAX0, a, 0, xprintf(ctx, "max(0, %s)", inner_str(ctx, a)));
}

const struct sym *sym_max(struct sym_ctx *ctx, const struct sym *a, const struct sym *b)
{
	if (!a || !b)
		return NULL;
	if (sym_le(ctx, a, b))
		return b;
	if (sym_le(ctx, b, a))
		return a;
	long long c;
	if (sym_is_const(a, &c) && c == 0)
		return sym_max0(ctx, b);
	if (sym_is_const(b, &c) && c == 0)
		return sym_max0(ctx, a);
	const char *ka = inner_str(ctx, a), *kb = inner_str(ctx, b);
	if (strcmp(ka, kb) > 0) {
		const struct sym *t = a;
		const char *tk = ka;
		a = b;
		b = t;
		ka = kb;
		kb = tk;
	}
	struct sym_atom *m = xalloc(ctx, sizeof(*m));
	m->kind = SYM_MAX;
	m->a = a;
	m->b = b;
	m->nonneg = syn_nonneg(a) || syn_nonneg(b);
	m->key = xprintf(ctx, "max(%s, %s)", ka, kb);
	return from_atom(ctx, m);
}

const struct sym *sym_log2(struct sym_ctx *ctx, const struct sym *a)
{
	long long c;
	if (!a)
		return NULL;
	if (sym_is_const(a, &c)) {
		long long l = 0;
		while (l < 63 && (1LL << l) < c)
			l++;
		return sym_const(ctx, l);
	}
	return atom1(ctx, SYM_LOG, a, 0, xprintf(ctx, "log2(%s)", inner_str(ctx, a)));
}

const struct sym *sym_cdiv(struct sym_ctx *ctx, const struct sym *a, long long k)
{
	long long c;
	if (!a || k < 1)
		return NULL;
	if (k == 1)
		return a;
	if (sym_is_const(a, &c))
		return sym_const(ctx, c <= 0 ? 0 : c / k + (c % k != 0));
	return atom1(ctx, SYM_CDIV, a, k, xprintf(ctx, "%s / %lld", inner_str(ctx, a), k));
}

/* ---- Z3 ---------------------------------------------------------------- */

struct z3_enc {
	Z3_context z;
	Z3_solver s;
	Z3_sort sort;
};

static Z3_ast enc_sym(struct z3_enc *e, const struct sym *a);

static Z3_ast enc_atom(struct z3_enc *e, const struct sym_atom *at)
{
	Z3_ast v = Z3_mk_const(e->z, Z3_mk_string_symbol(e->z, at->key), e->sort);
	Z3_ast zero = Z3_mk_int64(e->z, 0, e->sort);
	if (at->nonneg)
		Z3_solver_assert(e->z, e->s, Z3_mk_ge(e->z, v, zero));
	switch (at->kind) {
	case SYM_MAX0:
	case SYM_MAX: {
		Z3_ast x = enc_sym(e, at->a);
		Z3_ast y = at->kind == SYM_MAX ? enc_sym(e, at->b) : zero;
		Z3_ast eqs[2] = { Z3_mk_eq(e->z, v, x), Z3_mk_eq(e->z, v, y) };
		Z3_solver_assert(e->z, e->s, Z3_mk_ge(e->z, v, x));
		Z3_solver_assert(e->z, e->s, Z3_mk_ge(e->z, v, y));
		Z3_solver_assert(e->z, e->s, Z3_mk_or(e->z, 2, eqs));
		break;
	}
	case SYM_CDIV: {
		/* k v >= a and k v < a + k */
		Z3_ast x = enc_sym(e, at->a);
		Z3_ast k = Z3_mk_int64(e->z, at->k, e->sort);
		Z3_ast args[2] = { k, v };
		Z3_ast kv = Z3_mk_mul(e->z, 2, args);
		Z3_ast sum[2] = { x, k };
		Z3_solver_assert(e->z, e->s, Z3_mk_ge(e->z, kv, x));
		Z3_solver_assert(e->z, e->s, Z3_mk_lt(e->z, kv, Z3_mk_add(e->z, 2, sum)));
		break;
	}
	case SYM_LOG: {
		/* monotone in its argument: only what is needed to compare */
		break;
	}
	case SYM_VAR: break;
	}
	return v;
}

static Z3_ast enc_sym(struct z3_enc *e, const struct sym *a)
{
	Z3_ast *parts = calloc(a->n + 1, sizeof(*parts));
	if (!parts)
		abort();
	parts[0] = Z3_mk_int64(e->z, a->c, e->sort);
	for (size_t i = 0; i < a->n; i++) {
		const struct sym_term *t = &a->t[i];
		Z3_ast *f = calloc(t->nf + 1, sizeof(*f));
		if (!f)
			abort();
		f[0] = Z3_mk_int64(e->z, t->coef, e->sort);
		for (size_t j = 0; j < t->nf; j++)
			f[j + 1] = enc_atom(e, t->f[j]);
		parts[i + 1] = Z3_mk_mul(e->z, (unsigned)t->nf + 1, f);
		free(f);
	}
	Z3_ast r = Z3_mk_add(e->z, (unsigned)a->n + 1, parts);
	free(parts);
	return r;
}

/* Z3 proves a >= 0 (unsat of a < 0), within a small time limit. */
static int z3_nonneg(struct sym_ctx *ctx, const struct sym *a)
{
	if (!z3_shared) {
		Z3_config cfg = Z3_mk_config();
		Z3_set_param_value(cfg, "timeout", "200");
		z3_shared = Z3_mk_context(cfg);
		Z3_del_config(cfg);
	}
	struct z3_enc e = { z3_shared, Z3_mk_simple_solver(z3_shared), Z3_mk_int_sort(z3_shared) };
	Z3_solver_inc_ref(e.z, e.s);
	Z3_ast x = enc_sym(&e, a);
	Z3_solver_assert(e.z, e.s, Z3_mk_lt(e.z, x, Z3_mk_int64(e.z, 0, e.sort)));
	ctx->z3_queries++;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	Z3_lbool res = Z3_solver_check(e.z, e.s);
	int proven = res == Z3_L_FALSE;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (getenv("PERUN_BOUNDS_Z3_DEBUG"))
		fprintf(stderr, "z3 %d %.1f ms: %s\n", (int)res,
			(t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6,
			sym_str(ctx, a));
	Z3_solver_dec_ref(e.z, e.s);
	return proven;
}

/*
 * c + Σ k_i x_i over distinct variables is >= 0 everywhere exactly when
 * c >= 0, no k_i of a signed x_i is non-zero and none of an unsigned one
 * negative: decided here, Z3 is not needed.  -1: not of that form.
 */
static int linear_nonneg(const struct sym *a)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->t[i].nf != 1 || a->t[i].f[0]->kind != SYM_VAR)
			return -1;
	if (a->c < 0)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (!a->t[i].f[0]->nonneg || a->t[i].coef < 0)
			return 0;
	return 1;
}

int sym_nonneg(struct sym_ctx *ctx, const struct sym *a)
{
	long long c;
	if (!a)
		return 0;
	if (sym_is_const(a, &c))
		return c >= 0;
	if (syn_nonneg(a))
		return 1;
	int lin = linear_nonneg(a);
	if (lin >= 0)
		return lin;
	return z3_nonneg(ctx, a);
}

int sym_le(struct sym_ctx *ctx, const struct sym *a, const struct sym *b)
{
	if (!a || !b)
		return 0;
	return sym_nonneg(ctx, sym_sub(ctx, b, a));
}

struct sym_class sym_class_of(const struct sym *a)
{
	struct sym_class c = { 0, 0, 0 };
	if (!a) {
		c.inf = 1;
		return c;
	}
	for (size_t i = 0; i < a->n; i++) {
		struct sym_class t = term_class(&a->t[i]);
		if (sym_class_cmp(t, c) > 0)
			c = t;
	}
	return c;
}

int sym_class_cmp(struct sym_class a, struct sym_class b)
{
	if (a.inf != b.inf)
		return a.inf - b.inf;
	if (a.deg != b.deg)
		return a.deg - b.deg;
	return a.logs - b.logs;
}

void sym_class_str(struct sym_class c, char *buf, size_t len)
{
	if (c.inf)
		snprintf(buf, len, "O(∞)");
	else if (!c.deg && !c.logs)
		snprintf(buf, len, "O(1)");
	else if (!c.deg)
		snprintf(buf, len, c.logs == 1 ? "O(log n)" : "O(log^%d n)", c.logs);
	else if (!c.logs)
		snprintf(buf, len, "O(n^%d)", c.deg);
	else
		snprintf(buf, len, c.logs == 1 ? "O(n^%d log n)" : "O(n^%d log^%d n)", c.deg,
			 c.logs);
}
