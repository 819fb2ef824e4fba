/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The bound analysis (analyse.h), in the spirit of Loopus (Sinn, Zuleger
 * and Veith, CAV 2014) and built for soundness: a bound is only ever an
 * over-approximation, anything not understood is O(∞) with a reason.
 *
 * libclang gives the AST.  A function is walked once with an abstract
 * state: for every integer variable a symbolic lower and upper bound over
 * the function's parameters and globals at its entry.  Each loop gets:
 *  - its sites: every place in it that changes a variable;
 *  - its loop-wide state: bounds valid at every point of the loop, from
 *    the entry state and the sites (an increment by c at most c times the
 *    iterations, an assignment the join of its values, ...);
 *  - a ranking function from an atom of its guard: r = b - a for a < b,
 *    and the change of r along every path of one iteration (branches,
 *    continue, nested loops and the guard's own updates); when r drops
 *    by d >= 1 on every path the body runs at most ceil(max(0, r0) / d)
 *    times per entry, r0 bounded above from the entry state; a halved
 *    counter gives 1 + log2(r0), a doubled one 1 + log2 of its limit;
 *  - its local bound: entries times that (a product over nests), or,
 *    amortised over a loop around it, the enclosing one or one further
 *    out (the paper's reset and increment reasoning), the counter's value
 *    where that loop starts plus all increments it gets there and in the
 *    loops between, whichever is of lower class; reported as the tests
 *    of its guard, as Loopus did: those runs, plus the last test for a
 *    loop tested first and not inside another loop.
 * The total bound of a function is the sum of its local bounds.
 * Integers are mathematical (no overflow), except that an unsigned
 * counter counting down must provably stop above zero.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <clang-c/Index.h>

#include "analyse.h"
#include "sym.h"

#define MAX_PATHS 64
#define INF_HI	  LLONG_MAX
#define INF_LO	  LLONG_MIN

/* ---- cursors ------------------------------------------------------------ */

struct kids {
	CXCursor *c;
	size_t n, cap;
};

static enum CXChildVisitResult kid_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct kids *k = data;
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 8;
		k->c = realloc(k->c, k->cap * sizeof(*k->c));
		if (!k->c)
			abort();
	}
	k->c[k->n++] = c;
	return CXChildVisit_Continue;
}

static struct kids kids_of(CXCursor c)
{
	struct kids k = { NULL, 0, 0 };
	clang_visitChildren(c, kid_visit, &k);
	return k;
}

static unsigned offset_of(CXSourceLocation loc)
{
	unsigned off;
	clang_getSpellingLocation(loc, NULL, NULL, NULL, &off);
	return off;
}

static unsigned start_of(CXCursor c)
{
	return offset_of(clang_getRangeStart(clang_getCursorExtent(c)));
}

static unsigned end_of(CXCursor c)
{
	return offset_of(clang_getRangeEnd(clang_getCursorExtent(c)));
}

/* Does the extent of a hold the start of b? */
static int holds(CXCursor a, CXCursor b)
{
	return !clang_Cursor_isNull(a) && !clang_Cursor_isNull(b) && start_of(a) <= start_of(b) &&
	       start_of(b) < end_of(a);
}

static int is_loop(CXCursor c)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	return k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt;
}

/* Implicit casts, parentheses and casts taken off. */
static CXCursor strip(CXCursor c)
{
	for (;;) {
		enum CXCursorKind k = clang_getCursorKind(c);
		if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr &&
		    k != CXCursor_CStyleCastExpr)
			return c;
		struct kids ks = kids_of(c);
		if (!ks.n || (k != CXCursor_CStyleCastExpr && ks.n != 1)) {
			free(ks.c);
			return c;
		}
		CXCursor next = ks.c[ks.n - 1];
		free(ks.c);
		c = next;
	}
}

/* Written by a macro: where its text was spelled is not where the
 * macro was called. */
static int from_macro(CXCursor c)
{
	CXSourceRange r = clang_getCursorExtent(c);
	CXSourceLocation ends[2] = { clang_getRangeStart(r), clang_getRangeEnd(r) };
	for (int i = 0; i < 2; i++) {
		unsigned sp, ex;
		CXFile sf, ef;
		clang_getSpellingLocation(ends[i], &sf, NULL, NULL, &sp);
		clang_getExpansionLocation(ends[i], &ef, NULL, NULL, &ex);
		if (sp != ex || !clang_File_isEqual(sf, ef))
			return 1;
	}
	return 0;
}

static int one_of(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return 1;
	return 0;
}

static const char *const unary_ops[] = { "++", "--", "-", "+", "!", "~", "*", "&", NULL };
static const char *const binary_ops[] = {
	"+",  "-",  "*",   "/",	  "%",	"<<", ">>", "<", ">",  "<=", ">=",
	"==", "!=", "&",   "|",	  "^",	"&&", "||", "=", "+=", "-=", "*=",
	"/=", "%=", "<<=", ">>=", "&=", "|=", "^=", ",", NULL,
};

/*
 * The operator of a binary or unary operator cursor from its tokens; ""
 * when the tokens do not show it plainly, as in a macro expansion (whose
 * extent is the macro's call): the operand(s) must span the expression
 * but for exactly one operator token.  Then nothing may be assumed about
 * the expression, and an assignment is taken to be possible.
 */
static void op_of(CXTranslationUnit tu, CXCursor c, char *op, size_t len)
{
	CXToken *toks = NULL;
	unsigned n = 0;
	struct kids ks = kids_of(c);
	enum CXCursorKind kind = clang_getCursorKind(c);
	unsigned ps = start_of(c), pe = end_of(c);
	op[0] = 0;
	if (from_macro(c)) {
		free(ks.c);
		return;
	}
	clang_tokenize(tu, clang_getCursorExtent(c), &toks, &n);
	if (kind == CXCursor_UnaryOperator && ks.n == 1 && n >= 2) {
		unsigned cs = start_of(ks.c[0]), ce = end_of(ks.c[0]);
		unsigned first = offset_of(clang_getTokenLocation(tu, toks[0]));
		unsigned second = offset_of(clang_getTokenLocation(tu, toks[1]));
		unsigned last = offset_of(clang_getTokenLocation(tu, toks[n - 1]));
		unsigned before_last = offset_of(clang_getTokenLocation(tu, toks[n - 2]));
		CXToken *t = NULL;
		int post = 0;
		if (first == ps && second == cs && ce == pe) {
			t = &toks[0];
		} else if (cs == ps && last >= ce && before_last < ce) {
			t = &toks[n - 1];
			post = 1;
		}
		if (t && clang_getTokenKind(*t) == CXToken_Punctuation) {
			CXString s = clang_getTokenSpelling(tu, *t);
			const char *o = clang_getCString(s);
			if (one_of(o, unary_ops) && (!post || !strcmp(o, "++") || !strcmp(o, "--")))
				snprintf(op, len, "%s%s", post ? "post" : "", o);
			clang_disposeString(s);
		}
	} else if (ks.n == 2 && start_of(ks.c[0]) == ps && end_of(ks.c[1]) == pe) {
		unsigned le = end_of(ks.c[0]), rs = start_of(ks.c[1]), between = 0;
		CXToken *t = NULL;
		for (unsigned i = 0; le < rs && i < n; i++) {
			unsigned o = offset_of(clang_getTokenLocation(tu, toks[i]));
			if (o >= le && o < rs) {
				between++;
				t = &toks[i];
			}
		}
		if (between == 1 && clang_getTokenKind(*t) == CXToken_Punctuation) {
			CXString s = clang_getTokenSpelling(tu, *t);
			if (one_of(clang_getCString(s), binary_ops))
				snprintf(op, len, "%s", clang_getCString(s));
			clang_disposeString(s);
		}
	}
	if (toks)
		clang_disposeTokens(tu, toks, n);
	free(ks.c);
}

static int type_is_int(CXType t, int *is_unsigned)
{
	t = clang_getCanonicalType(t);
	if (t.kind == CXType_Enum) {
		*is_unsigned = 0;
		return 1;
	}
	if (t.kind >= CXType_Bool && t.kind <= CXType_UInt128) {
		*is_unsigned = 1;
		return 1;
	}
	if (t.kind >= CXType_Char_S && t.kind <= CXType_Int128) {
		*is_unsigned = 0;
		return 1;
	}
	return 0;
}

/* ---- variables and states ------------------------------------------------ */

struct var {
	CXCursor decl;
	char *name;
	int is_unsigned, global, param, addr_taken;
	long long size; /* bytes */
};

struct range {
	const struct sym *lb, *ub; /* NULL: unknown */
};

struct loop;

/* A loop made by a goto back to a label: "L: if (c) { ...; goto L; }"
 * (tested first) or "L: ...; if (c) goto L;" (tested last). */
struct gloop {
	CXCursor label, cond, end; /* end: the if holding the goto */
	CXCursor *stmts;
	size_t nstmts;
	int tested_last;
	int done; /* analysed by the walk */
};

struct fn {
	CXTranslationUnit tu;
	struct sym_ctx *sc;
	const char *file;
	char *name;
	struct var *vars;
	size_t nvars, cap;
	char *modified;	      /* vars changed anywhere in the function */
	unsigned *nassigned;  /* how many places change each var */
	int recursive;	      /* on a cycle of calls in its file */
	struct gloop *gloops; /* loops made by a goto, recognised */
	size_t ngloops;
	const struct sym *total;
	const char *total_reason;
	bound_emit_fn emit;
	void *data;
	int stop;
	struct bound_stats *stats;
};

static int var_find(struct fn *f, CXCursor decl)
{
	for (size_t i = 0; i < f->nvars; i++)
		if (clang_equalCursors(f->vars[i].decl, decl))
			return (int)i;
	return -1;
}

static int var_add(struct fn *f, CXCursor decl)
{
	int i = var_find(f, decl);
	int uns;
	if (i >= 0)
		return i;
	if (!type_is_int(clang_getCursorType(decl), &uns))
		return -1;
	if (f->nvars == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		f->vars = realloc(f->vars, f->cap * sizeof(*f->vars));
		if (!f->vars)
			abort();
	}
	struct var *v = &f->vars[f->nvars];
	memset(v, 0, sizeof(*v));
	v->decl = decl;
	CXString s = clang_getCursorSpelling(decl);
	v->name = strdup(clang_getCString(s));
	clang_disposeString(s);
	v->is_unsigned = uns;
	v->size = clang_Type_getSizeOf(clang_getCursorType(decl));
	v->param = clang_getCursorKind(decl) == CXCursor_ParmDecl;
	CXCursor parent = clang_getCursorSemanticParent(decl);
	v->global = clang_getCursorKind(parent) == CXCursor_TranslationUnit ||
		    clang_Cursor_getStorageClass(decl) == CX_SC_Static ||
		    clang_Cursor_getStorageClass(decl) == CX_SC_Extern;
	return (int)f->nvars++;
}

/* The tracked variable an expression names, or -1. */
static int var_of(struct fn *f, CXCursor e)
{
	e = strip(e);
	if (clang_getCursorKind(e) != CXCursor_DeclRefExpr)
		return -1;
	CXCursor d = clang_getCursorReferenced(e);
	enum CXCursorKind k = clang_getCursorKind(d);
	if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl)
		return -1;
	return var_find(f, d);
}

static struct range *state_new(struct fn *f)
{
	struct range *s = calloc(f->nvars + 1, sizeof(*s));
	if (!s)
		abort();
	return s;
}

static struct range *state_dup(struct fn *f, const struct range *s)
{
	struct range *d = state_new(f);
	memcpy(d, s, f->nvars * sizeof(*s));
	return d;
}

/* A lower bound of two: the smaller where provable, else unknown. */
static const struct sym *lb_join(struct fn *f, const struct sym *a, const struct sym *b)
{
	if (!a || !b)
		return NULL;
	if (sym_le(f->sc, a, b))
		return a;
	if (sym_le(f->sc, b, a))
		return b;
	return NULL;
}

static void state_join(struct fn *f, struct range *a, const struct range *b)
{
	for (size_t i = 0; i < f->nvars; i++) {
		if (a[i].lb != b[i].lb)
			a[i].lb = lb_join(f, a[i].lb, b[i].lb);
		if (a[i].ub != b[i].ub)
			a[i].ub = sym_max(f->sc, a[i].ub, b[i].ub);
	}
}

/* A value stored into variable v: unsigned ones stay >= 0, and one that
 * might have wrapped below zero is unknown above. */
static struct range clamp(struct fn *f, int v, struct range r)
{
	if (v >= 0 && f->vars[v].is_unsigned && !(r.lb && sym_nonneg(f->sc, r.lb))) {
		r.lb = sym_const(f->sc, 0);
		r.ub = NULL;
	}
	return r;
}

static void havoc_globals(struct fn *f, struct range *s)
{
	for (size_t i = 0; i < f->nvars; i++)
		if (f->vars[i].global || f->vars[i].addr_taken)
			s[i].lb = s[i].ub = NULL;
}

/* ---- values of expressions ------------------------------------------------ */

static int const_of(CXCursor e, long long *out)
{
	enum CXCursorKind k = clang_getCursorKind(e);
	if (!clang_isExpression(k))
		return 0;
	CXEvalResult r = clang_Cursor_Evaluate(e);
	if (!r)
		return 0;
	int ok = clang_EvalResult_getKind(r) == CXEval_Int;
	if (ok) {
		if (clang_EvalResult_isUnsignedInt(r)) {
			unsigned long long u = clang_EvalResult_getAsUnsigned(r);
			ok = u <= (unsigned long long)LLONG_MAX;
			*out = (long long)u;
		} else {
			*out = clang_EvalResult_getAsLongLong(r);
		}
	}
	clang_EvalResult_dispose(r);
	/* Keep far from overflow in the arithmetic of bounds. */
	return ok && *out > -(1LL << 40) && *out < (1LL << 40);
}

static struct range unknown(void)
{
	struct range r = { NULL, NULL };
	return r;
}

static struct range eval(struct fn *f, const struct range *s, CXCursor e);

static struct range eval_bin(struct fn *f, const struct range *s, CXCursor e, const char *op)
{
	struct kids ks = kids_of(e);
	struct range r = unknown();
	if (ks.n != 2)
		goto out;
	struct range a = eval(f, s, ks.c[0]), b = eval(f, s, ks.c[1]);
	long long k;
	int bk = const_of(strip(ks.c[1]), &k);
	struct sym_ctx *sc = f->sc;
	if (!strcmp(op, "+")) {
		r.lb = sym_add(sc, a.lb, b.lb);
		r.ub = sym_add(sc, a.ub, b.ub);
	} else if (!strcmp(op, "-")) {
		r.lb = sym_sub(sc, a.lb, b.ub);
		r.ub = sym_sub(sc, a.ub, b.lb);
	} else if (!strcmp(op, "*") && !bk && const_of(strip(ks.c[0]), &k)) {
		r.lb = sym_scale(sc, k >= 0 ? b.lb : b.ub, k);
		r.ub = sym_scale(sc, k >= 0 ? b.ub : b.lb, k);
	} else if (!strcmp(op, "*") && bk) {
		r.lb = sym_scale(sc, k >= 0 ? a.lb : a.ub, k);
		r.ub = sym_scale(sc, k >= 0 ? a.ub : a.lb, k);
	} else if (!strcmp(op, "*") && sym_nonneg(sc, a.lb) && sym_nonneg(sc, b.lb)) {
		r.lb = sym_mul(sc, a.lb, b.lb);
		r.ub = sym_mul(sc, a.ub, b.ub);
	} else if ((!strcmp(op, "/") || !strcmp(op, ">>")) && bk && sym_nonneg(sc, a.lb)) {
		long long d = !strcmp(op, "/") ? k : (k >= 0 && k < 40 ? 1LL << k : 0);
		if (d >= 1) {
			r.lb = sym_const(sc, 0);
			r.ub = sym_cdiv(sc, a.ub, d);
		}
	} else if (!strcmp(op, "<<") && bk && k >= 0 && k < 20 && sym_nonneg(sc, a.lb)) {
		r.lb = sym_scale(sc, a.lb, 1LL << k);
		r.ub = sym_scale(sc, a.ub, 1LL << k);
	} else if (!strcmp(op, "%") && bk && k > 0) {
		r.lb = sym_const(sc, sym_nonneg(sc, a.lb) ? 0 : -(k - 1));
		r.ub = sym_const(sc, k - 1);
	} else if (!strcmp(op, "&") && bk && k >= 0) {
		r.lb = sym_const(sc, 0);
		r.ub = sym_const(sc, k);
	} else if (!strcmp(op, "<") || !strcmp(op, ">") || !strcmp(op, "<=") || !strcmp(op, ">=") ||
		   !strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "&&") ||
		   !strcmp(op, "||")) {
		r.lb = sym_const(sc, 0);
		r.ub = sym_const(sc, 1);
	}
out:
	free(ks.c);
	return r;
}

static struct range eval_inner(struct fn *f, const struct range *s, CXCursor e);

/*
 * The value of e (implicit conversions and casts included): where the
 * stripped value of type "from" is converted to type "to" and might not
 * fit, what is known of it is only what any value of "to" satisfies.
 */
static struct range eval(struct fn *f, const struct range *s, CXCursor e)
{
	CXType to = clang_getCursorType(e), from = clang_getCursorType(strip(e));
	struct range r = eval_inner(f, s, e);
	int tu, fu;
	long long ts = clang_Type_getSizeOf(to), fs = clang_Type_getSizeOf(from);
	if (!type_is_int(to, &tu) || !type_is_int(from, &fu) || ts <= 0 || fs <= 0 || ts > 8)
		return r;
	if (tu == fu && ts >= fs)
		return r;
	if (!tu && fu && ts > fs)
		return r; /* unsigned into a wider signed: fits */
	/* the range of "to" */
	long long bits = 8 * ts - (tu ? 0 : 1);
	const struct sym *max = bits >= 63 ? NULL : sym_const(f->sc, (1LL << bits) - 1);
	const struct sym *min =
		tu ? sym_const(f->sc, 0) : (max ? sym_const(f->sc, -(1LL << bits)) : NULL);
	int lb_fits = r.lb && min && sym_le(f->sc, min, r.lb);
	int ub_fits = r.ub && (!max || sym_le(f->sc, r.ub, max));
	if (lb_fits && ub_fits)
		return r;
	if (tu) {
		/* wrapped into [0, max]: x mod 2^k <= x for x >= 0 */
		r.ub = lb_fits ? r.ub : max;
		r.lb = sym_const(f->sc, 0);
	} else {
		/* too large: negative; too small: anything up to max */
		r.ub = lb_fits ? r.ub : max;
		r.lb = min;
	}
	return r;
}

static struct range eval_inner(struct fn *f, const struct range *s, CXCursor e)
{
	long long k;
	struct range r = unknown();
	int uns = 0;
	e = strip(e);
	if (const_of(e, &k)) {
		r.lb = r.ub = sym_const(f->sc, k);
		return r;
	}
	enum CXCursorKind kind = clang_getCursorKind(e);
	if (kind == CXCursor_DeclRefExpr) {
		int v = var_of(f, e);
		if (v >= 0)
			r = s[v];
	} else if (kind == CXCursor_BinaryOperator) {
		char op[8];
		op_of(f->tu, e, op, sizeof(op));
		r = eval_bin(f, s, e, op);
	} else if (kind == CXCursor_UnaryOperator) {
		char op[12];
		op_of(f->tu, e, op, sizeof(op));
		struct kids ks = kids_of(e);
		if (ks.n == 1 && !strcmp(op, "-")) {
			struct range a = eval(f, s, ks.c[0]);
			r.lb = sym_scale(f->sc, a.ub, -1);
			r.ub = sym_scale(f->sc, a.lb, -1);
		} else if (ks.n == 1 && !strcmp(op, "+")) {
			r = eval(f, s, ks.c[0]);
		} else if (ks.n == 1 && !strcmp(op, "!")) {
			r.lb = sym_const(f->sc, 0);
			r.ub = sym_const(f->sc, 1);
		}
		free(ks.c);
	}
	/* A value of unsigned type that might be below zero has wrapped. */
	if (type_is_int(clang_getCursorType(e), &uns) && uns &&
	    !(r.lb && sym_nonneg(f->sc, r.lb))) {
		r.lb = sym_const(f->sc, 0);
		r.ub = NULL;
	}
	return r;
}

/* ---- side effects on the state ------------------------------------------ */

static void exec(struct fn *f, struct range *s, CXCursor e);

static void store(struct fn *f, struct range *s, CXCursor lhs, struct range value)
{
	int v = var_of(f, lhs);
	if (v >= 0) {
		s[v] = clamp(f, v, value);
		return;
	}
	/* A store through a pointer may hit any variable whose address is
	 * taken. */
	for (size_t i = 0; i < f->nvars; i++)
		if (f->vars[i].addr_taken)
			s[i].lb = s[i].ub = NULL;
}

static void exec_kids(struct fn *f, struct range *s, CXCursor e)
{
	struct kids ks = kids_of(e);
	for (size_t i = 0; i < ks.n; i++)
		exec(f, s, ks.c[i]);
	free(ks.c);
}

static void exec(struct fn *f, struct range *s, CXCursor e)
{
	enum CXCursorKind kind = clang_getCursorKind(e);
	char op[12];
	struct kids ks = { NULL, 0, 0 };
	if (kind == CXCursor_BinaryOperator || kind == CXCursor_CompoundAssignOperator) {
		op_of(f->tu, e, op, sizeof(op));
		ks = kids_of(e);
		if (ks.n != 2)
			goto out;
		if (!strcmp(op, "&&") || !strcmp(op, "||")) {
			exec(f, s, ks.c[0]);
			struct range *t = state_dup(f, s);
			exec(f, t, ks.c[1]);
			state_join(f, s, t);
			free(t);
		} else if (!strcmp(op, "=")) {
			exec(f, s, ks.c[1]);
			exec(f, s, ks.c[0]);
			store(f, s, ks.c[0], eval(f, s, ks.c[1]));
		} else if (kind == CXCursor_CompoundAssignOperator) {
			exec(f, s, ks.c[1]);
			exec(f, s, ks.c[0]);
			char bop[8];
			snprintf(bop, sizeof(bop), "%.*s", (int)(strlen(op) ? strlen(op) - 1 : 0),
				 op);
			/* eval_bin reads both operands of e as they are now */
			store(f, s, ks.c[0], op[0] ? eval_bin(f, s, e, bop) : unknown());
		} else if (!op[0]) {
			/* Not readable (a macro): it may assign its left side. */
			exec_kids(f, s, e);
			store(f, s, ks.c[0], unknown());
		} else {
			exec_kids(f, s, e);
		}
	} else if (kind == CXCursor_UnaryOperator) {
		op_of(f->tu, e, op, sizeof(op));
		ks = kids_of(e);
		exec_kids(f, s, e);
		int inc = strstr(op, "++") != NULL, dec = strstr(op, "--") != NULL;
		if (ks.n == 1 && (inc || dec)) {
			struct range a = eval(f, s, ks.c[0]);
			a.lb = sym_add(f->sc, a.lb, sym_const(f->sc, inc ? 1 : -1));
			a.ub = sym_add(f->sc, a.ub, sym_const(f->sc, inc ? 1 : -1));
			store(f, s, ks.c[0], a);
		} else if (ks.n == 1 && !op[0]) {
			store(f, s, ks.c[0], unknown());
		}
	} else if (kind == CXCursor_ConditionalOperator) {
		ks = kids_of(e);
		if (ks.n == 3) {
			exec(f, s, ks.c[0]);
			struct range *t = state_dup(f, s);
			exec(f, s, ks.c[1]);
			exec(f, t, ks.c[2]);
			state_join(f, s, t);
			free(t);
		} else {
			exec_kids(f, s, e);
		}
	} else if (kind == CXCursor_CallExpr) {
		exec_kids(f, s, e);
		havoc_globals(f, s);
	} else if (kind == CXCursor_GCCAsmStmt || kind == CXCursor_AsmStmt) {
		havoc_globals(f, s);
	} else if (clang_isExpression(kind) || kind == CXCursor_UnexposedExpr) {
		exec_kids(f, s, e);
	}
out:
	free(ks.c);
}

/* ---- what a guard tells ---------------------------------------------------- */

/* Signedness of a comparison operand as compared and as written agree, so
 * that the comparison means what it says over the integers. */
static int same_sign(CXCursor as_compared)
{
	long long k;
	int u1 = 0, u2 = 0;
	CXCursor w = strip(as_compared);
	if (!type_is_int(clang_getCursorType(as_compared), &u1) ||
	    !type_is_int(clang_getCursorType(w), &u2))
		return 0;
	return u1 == u2 || (const_of(w, &k) && k >= 0);
}

/* Comparisons: their negation and their mirror (a op b == b mirror a). */
static const struct {
	const char *op, *flip, *swap;
} cmps[] = {
	{ "<", ">=", ">" },  { "<=", ">", ">=" },  { ">", "<=", "<" },
	{ ">=", "<", "<=" }, { "==", "!=", "==" }, { "!=", "==", "!=" },
};

static const char *cmp_flip(const char *op)
{
	for (size_t i = 0; i < sizeof(cmps) / sizeof(cmps[0]); i++)
		if (!strcmp(op, cmps[i].op))
			return cmps[i].flip;
	return NULL;
}

static const char *cmp_swap(const char *op)
{
	for (size_t i = 0; i < sizeof(cmps) / sizeof(cmps[0]); i++)
		if (!strcmp(op, cmps[i].op))
			return cmps[i].swap;
	return op;
}

static const struct sym *ub_pick(struct fn *f, const struct sym *old, const struct sym *new)
{
	if (!old || !new)
		return old ? old : new;
	if (sym_le(f->sc, old, new))
		return old;
	return new;
}

static const struct sym *lb_pick(struct fn *f, const struct sym *old, const struct sym *new)
{
	if (!old || !new)
		return old ? old : new;
	if (sym_le(f->sc, new, old))
		return old;
	return new;
}

/* What cond being (positive) true tells about the variables of s. */
static void refine(struct fn *f, struct range *s, CXCursor cond, int positive)
{
	char op[12];
	cond = strip(cond);
	enum CXCursorKind kind = clang_getCursorKind(cond);
	struct kids ks = kids_of(cond);
	if (kind == CXCursor_UnaryOperator && ks.n == 1) {
		op_of(f->tu, cond, op, sizeof(op));
		if (!strcmp(op, "!"))
			refine(f, s, ks.c[0], !positive);
		goto out;
	}
	if (kind != CXCursor_BinaryOperator || ks.n != 2)
		goto out;
	op_of(f->tu, cond, op, sizeof(op));
	if ((!strcmp(op, "&&") && positive) || (!strcmp(op, "||") && !positive)) {
		refine(f, s, ks.c[0], positive);
		refine(f, s, ks.c[1], positive);
		goto out;
	}
	const char *rel = positive ? op : cmp_flip(op);
	if (!rel || !cmp_flip(rel) || !same_sign(ks.c[0]) || !same_sign(ks.c[1]))
		goto out;
	for (int side = 0; side < 2; side++) {
		int v = var_of(f, ks.c[side]);
		if (v < 0)
			continue;
		const char *r = side ? cmp_swap(rel) : rel;
		struct range o = eval(f, s, ks.c[!side]);
		struct sym_ctx *sc = f->sc;
		if (!strcmp(r, "<"))
			s[v].ub = ub_pick(f, s[v].ub, sym_add(sc, o.ub, sym_const(sc, -1)));
		else if (!strcmp(r, "<="))
			s[v].ub = ub_pick(f, s[v].ub, o.ub);
		else if (!strcmp(r, ">"))
			s[v].lb = lb_pick(f, s[v].lb, sym_add(sc, o.lb, sym_const(sc, 1)));
		else if (!strcmp(r, ">="))
			s[v].lb = lb_pick(f, s[v].lb, o.lb);
		else if (!strcmp(r, "==")) {
			s[v].ub = ub_pick(f, s[v].ub, o.ub);
			s[v].lb = lb_pick(f, s[v].lb, o.lb);
		} else if (!strcmp(r, "!=")) {
			/* not k, and at least k: above it (n != 0, n unsigned) */
			long long k, b;
			if (!o.lb || o.lb != o.ub || !sym_is_const(o.lb, &k))
				continue;
			if (s[v].lb && sym_le(sc, sym_const(sc, k), s[v].lb))
				s[v].lb = sym_max(sc, s[v].lb, sym_const(sc, k + 1));
			if (s[v].ub && sym_is_const(s[v].ub, &b) && b == k)
				s[v].ub = sym_const(sc, k - 1);
		}
	}
out:
	free(ks.c);
}

/* ---- sites: where a loop changes variables ----------------------------- */

enum site_kind { S_ADD, S_ADDE, S_ASSIGN, S_HALVE, S_DOUBLE, S_HAVOC };

struct site {
	int var;
	enum site_kind kind;
	long long c;	 /* S_ADD: the constant added */
	CXCursor expr;	 /* S_ADDE: what is added; S_ASSIGN: the value */
	CXCursor nested; /* outermost inner loop holding it, or null */
	CXCursor inner;	 /* innermost loop holding it, or null */
	int in_cond;	 /* in the guard (runs once more than the body) */
	int pre;	 /* in the guard, before its value is taken */
};

struct sites {
	struct site *s;
	size_t n, cap;
	int has_label, has_call;
};

static void site_add(struct sites *ss, struct site st)
{
	if (ss->n == ss->cap) {
		ss->cap = ss->cap ? 2 * ss->cap : 16;
		ss->s = realloc(ss->s, ss->cap * sizeof(*ss->s));
		if (!ss->s)
			abort();
	}
	ss->s[ss->n++] = st;
}

/* How "x = e" changes x: x + c, x / k, x * k, or another value. */
static enum site_kind assign_kind(struct fn *f, int v, CXCursor e, long long *c)
{
	char op[8];
	long long k;
	e = strip(e);
	if (clang_getCursorKind(e) != CXCursor_BinaryOperator)
		return S_ASSIGN;
	struct kids ks = kids_of(e);
	enum site_kind r = S_ASSIGN;
	op_of(f->tu, e, op, sizeof(op));
	if (ks.n == 2) {
		int l = var_of(f, ks.c[0]) == v, rr = var_of(f, ks.c[1]) == v;
		if (!strcmp(op, "+") && l && const_of(strip(ks.c[1]), &k)) {
			*c = k;
			r = S_ADD;
		} else if (!strcmp(op, "+") && rr && const_of(strip(ks.c[0]), &k)) {
			*c = k;
			r = S_ADD;
		} else if (!strcmp(op, "-") && l && const_of(strip(ks.c[1]), &k)) {
			*c = -k;
			r = S_ADD;
		} else if (l && const_of(strip(ks.c[1]), &k) &&
			   ((!strcmp(op, "/") && k >= 2) || (!strcmp(op, ">>") && k >= 1))) {
			r = S_HALVE;
		} else if (l && const_of(strip(ks.c[1]), &k) &&
			   ((!strcmp(op, "*") && k >= 2) || (!strcmp(op, "<<") && k >= 1))) {
			r = S_DOUBLE;
		} else if (rr && !strcmp(op, "*") && const_of(strip(ks.c[0]), &k) && k >= 2) {
			r = S_DOUBLE;
		} else if (!strcmp(op, "+") && l && rr) {
			r = S_DOUBLE;
		}
	}
	free(ks.c);
	return r;
}

struct site_walk {
	struct fn *f;
	struct sites *ss;
	CXCursor nested;
	int in_cond;
	CXCursor inner;
};

static void sites_in(struct site_walk *w, CXCursor c);

static void site_at(struct site_walk *w, int v, enum site_kind kind, long long c, CXCursor expr,
		    int pre)
{
	struct site st = { v, kind, c, expr, w->nested, w->inner, w->in_cond, pre && w->in_cond };
	site_add(w->ss, st);
}

static void site_store(struct site_walk *w, CXCursor lhs, enum site_kind kind, long long c,
		       CXCursor expr, int pre)
{
	int v = var_of(w->f, lhs);
	if (v >= 0) {
		site_at(w, v, kind, c, expr, pre);
		return;
	}
	for (size_t i = 0; i < w->f->nvars; i++)
		if (w->f->vars[i].addr_taken)
			site_at(w, (int)i, S_HAVOC, 0, clang_getNullCursor(), pre);
}

static enum CXChildVisitResult site_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	sites_in(data, c);
	return CXChildVisit_Continue;
}

static void sites_in(struct site_walk *w, CXCursor c)
{
	struct fn *f = w->f;
	enum CXCursorKind kind = clang_getCursorKind(c);
	char op[12];
	if (is_loop(c)) {
		struct site_walk inner = *w;
		if (clang_Cursor_isNull(w->nested))
			inner.nested = c;
		inner.inner = c;
		inner.in_cond = 0;
		clang_visitChildren(c, site_visit, &inner);
		return;
	}
	if (kind == CXCursor_LabelStmt)
		w->ss->has_label = 1;
	if (kind == CXCursor_CallExpr || kind == CXCursor_GCCAsmStmt || kind == CXCursor_AsmStmt) {
		w->ss->has_call = 1;
		for (size_t i = 0; i < f->nvars; i++)
			if (f->vars[i].global || f->vars[i].addr_taken)
				site_at(w, (int)i, S_HAVOC, 0, clang_getNullCursor(), 1);
	}
	if (kind == CXCursor_VarDecl) {
		int v = var_find(f, c);
		if (v >= 0)
			site_at(w, v, S_ASSIGN, 0, clang_Cursor_getVarDeclInitializer(c), 1);
	}
	if (kind == CXCursor_BinaryOperator || kind == CXCursor_CompoundAssignOperator) {
		struct kids ks = kids_of(c);
		op_of(f->tu, c, op, sizeof(op));
		if (ks.n == 2) {
			long long k = 0;
			int v = var_of(f, ks.c[0]);
			int kc = const_of(strip(ks.c[1]), &k);
			if (!strcmp(op, "=")) {
				enum site_kind sk =
					v >= 0 ? assign_kind(f, v, ks.c[1], &k) : S_HAVOC;
				site_store(w, ks.c[0], sk, k, ks.c[1], 1);
			} else if (!strcmp(op, "+=") || !strcmp(op, "-=")) {
				if (kc)
					site_store(w, ks.c[0], S_ADD, op[0] == '+' ? k : -k,
						   ks.c[1], 1);
				else if (op[0] == '+')
					site_store(w, ks.c[0], S_ADDE, 0, ks.c[1], 1);
				else
					site_store(w, ks.c[0], S_HAVOC, 0, ks.c[1], 1);
			} else if ((!strcmp(op, "/=") && kc && k >= 2) ||
				   (!strcmp(op, ">>=") && kc && k >= 1)) {
				site_store(w, ks.c[0], S_HALVE, 0, ks.c[1], 1);
			} else if ((!strcmp(op, "*=") && kc && k >= 2) ||
				   (!strcmp(op, "<<=") && kc && k >= 1)) {
				site_store(w, ks.c[0], S_DOUBLE, 0, ks.c[1], 1);
			} else if (kind == CXCursor_CompoundAssignOperator || !op[0]) {
				site_store(w, ks.c[0], S_HAVOC, 0, ks.c[1], 1);
			}
		}
		free(ks.c);
	} else if (kind == CXCursor_UnaryOperator) {
		struct kids ks = kids_of(c);
		op_of(f->tu, c, op, sizeof(op));
		if (ks.n == 1) {
			int post = !strncmp(op, "post", 4);
			const char *o = post ? op + 4 : op;
			if (!strcmp(o, "++") || !strcmp(o, "--"))
				site_store(w, ks.c[0], S_ADD, o[0] == '+' ? 1 : -1, ks.c[0], !post);
			else if (!op[0])
				site_store(w, ks.c[0], S_HAVOC, 0, ks.c[0], 1);
		}
		free(ks.c);
	}
	clang_visitChildren(c, site_visit, w);
}

/* ---- paths of one iteration -------------------------------------------- */

enum delta_kind { D_ADD, D_HALVE, D_DOUBLE, D_HAVOC };

struct delta {
	enum delta_kind kind;
	long long lo, hi;
};

struct path {
	struct delta *d;
};

struct paths {
	struct path *p;
	size_t n;
	size_t nvars;
	struct path *cont; /* ended by continue */
	size_t ncont;
};

static long long sat_add(long long a, long long b)
{
	if (a == INF_LO || b == INF_LO)
		return INF_LO;
	if (a == INF_HI || b == INF_HI)
		return INF_HI;
	return a + b;
}

static struct delta *delta_dup(const struct delta *d, size_t n)
{
	struct delta *c = malloc((n + 1) * sizeof(*c));
	if (!c)
		abort();
	memcpy(c, d, n * sizeof(*c));
	return c;
}

static void delta_apply(struct delta *d, enum delta_kind k, long long lo, long long hi)
{
	if (k == D_ADD && d->kind == D_ADD) {
		d->lo = sat_add(d->lo, lo);
		d->hi = sat_add(d->hi, hi);
	} else if ((k == D_HALVE || k == D_DOUBLE) && d->kind == D_ADD && d->lo == 0 &&
		   d->hi == 0) {
		d->kind = k;
	} else if (k == D_ADD && lo == 0 && hi == 0) {
		/* nothing */
	} else {
		d->kind = D_HAVOC;
	}
}

static void paths_apply(struct paths *ps, int v, enum delta_kind k, long long lo, long long hi)
{
	for (size_t i = 0; i < ps->n; i++)
		delta_apply(&ps->p[i].d[v], k, lo, hi);
}

static void paths_free(struct path *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i].d);
	free(p);
}

/* Too many paths: one that stands for all of them. */
static void paths_merge(struct paths *ps)
{
	if (ps->n <= MAX_PATHS)
		return;
	for (size_t i = 1; i < ps->n; i++) {
		for (size_t v = 0; v < ps->nvars; v++) {
			struct delta *a = &ps->p[0].d[v];
			const struct delta *b = &ps->p[i].d[v];
			if (a->kind == D_ADD && b->kind == D_ADD) {
				a->lo = a->lo < b->lo ? a->lo : b->lo;
				a->hi = a->hi > b->hi ? a->hi : b->hi;
			} else if (a->kind != b->kind) {
				a->kind = D_HAVOC;
			}
		}
		free(ps->p[i].d);
	}
	ps->n = 1;
}

static void paths_append(struct path **dst, size_t *n, struct path *src, size_t m)
{
	*dst = realloc(*dst, (*n + m + 1) * sizeof(**dst));
	if (!*dst)
		abort();
	if (m) /* src may be NULL when it is empty */
		memcpy(*dst + *n, src, m * sizeof(*src));
	*n += m;
}

static struct paths paths_copy(const struct paths *ps)
{
	struct paths c = { calloc(ps->n + 1, sizeof(struct path)), ps->n, ps->nvars, NULL, 0 };
	if (!c.p)
		abort();
	for (size_t i = 0; i < ps->n; i++)
		c.p[i].d = delta_dup(ps->p[i].d, ps->nvars);
	return c;
}

/* b's paths (and continued ones) join a's; b is consumed. */
static void paths_union(struct paths *a, struct paths *b)
{
	paths_append(&a->p, &a->n, b->p, b->n);
	paths_append(&a->cont, &a->ncont, b->cont, b->ncont);
	free(b->p);
	free(b->cont);
	paths_merge(a);
}

struct path_walk {
	struct fn *f;
	struct sites *loop_sites; /* of the loop whose iteration this is */
	int depth;		  /* switches entered (break is theirs) */
	CXCursor label;		  /* of a loop made by a goto, or null */
};

/* The same statement, reached by different walks (whose cursors need
 * not compare equal). */
static int same_stmt(CXCursor a, CXCursor b)
{
	return clang_getCursorKind(a) == clang_getCursorKind(b) && start_of(a) == start_of(b) &&
	       end_of(a) == end_of(b);
}

/* Does goto statement g jump to label statement l? */
static int goto_targets(CXCursor g, CXCursor l)
{
	struct kids ks = kids_of(g);
	int r = 0;
	for (size_t i = 0; i < ks.n && !r; i++) {
		if (clang_getCursorKind(ks.c[i]) != CXCursor_LabelRef)
			continue;
		/* by name: labels are the function's, one of each name */
		CXString a = clang_getCursorSpelling(ks.c[i]), b = clang_getCursorSpelling(l);
		r = !strcmp(clang_getCString(a), clang_getCString(b));
		clang_disposeString(a);
		clang_disposeString(b);
	}
	free(ks.c);
	return r;
}

static void walk_paths(struct path_walk *pw, struct paths *ps, CXCursor c);

/* What a site does to the paths, as a delta. */
static void apply_site(struct fn *f, struct paths *ps, const struct site *st, const struct range *w)
{
	switch (st->kind) {
	case S_ADD: paths_apply(ps, st->var, D_ADD, st->c, st->c); break;
	case S_ADDE: {
		struct range r = eval(f, w, st->expr);
		long long lo = INF_LO, hi = INF_HI, k;
		if (r.lb && sym_is_const(r.lb, &k))
			lo = k;
		else if (r.lb && sym_nonneg(f->sc, sym_add(f->sc, r.lb, sym_const(f->sc, -1))))
			lo = 1;
		else if (r.lb && sym_nonneg(f->sc, r.lb))
			lo = 0;
		if (r.ub && sym_is_const(r.ub, &k))
			hi = k;
		paths_apply(ps, st->var, D_ADD, lo, hi);
		break;
	}
	case S_HALVE: paths_apply(ps, st->var, D_HALVE, 0, 0); break;
	case S_DOUBLE: paths_apply(ps, st->var, D_DOUBLE, 0, 0); break;
	default: paths_apply(ps, st->var, D_HAVOC, 0, 0); break;
	}
}

/* The sites directly in c (an expression), applied in order, with the
 * right side of && || ?: optional. */
static void effects_paths(struct path_walk *pw, struct paths *ps, CXCursor c,
			  const struct range *w);

struct eff_walk {
	struct path_walk *pw;
	struct paths *ps;
	const struct range *w;
};

static enum CXChildVisitResult eff_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct eff_walk *ew = data;
	effects_paths(ew->pw, ew->ps, c, ew->w);
	return CXChildVisit_Continue;
}

static const struct range *cur_w;

static void effects_paths(struct path_walk *pw, struct paths *ps, CXCursor c, const struct range *w)
{
	struct fn *f = pw->f;
	enum CXCursorKind kind = clang_getCursorKind(c);
	char op[12] = "";
	struct kids ks = kids_of(c);
	struct eff_walk ew = { pw, ps, w };
	if (kind == CXCursor_BinaryOperator)
		op_of(f->tu, c, op, sizeof(op));
	if (kind == CXCursor_ConditionalOperator && ks.n == 3) {
		effects_paths(pw, ps, ks.c[0], w);
		struct paths alt = paths_copy(ps);
		effects_paths(pw, ps, ks.c[1], w);
		effects_paths(pw, &alt, ks.c[2], w);
		paths_union(ps, &alt);
	} else if ((!strcmp(op, "&&") || !strcmp(op, "||")) && ks.n == 2) {
		effects_paths(pw, ps, ks.c[0], w);
		struct paths alt = paths_copy(ps);
		effects_paths(pw, &alt, ks.c[1], w);
		paths_union(ps, &alt);
	} else {
		/* operands first, then this node's own change */
		clang_visitChildren(c, eff_visit, &ew);
		struct sites own = { NULL, 0, 0, 0, 0 };
		struct site_walk sw = { f, &own, clang_getNullCursor(), 0, clang_getNullCursor() };
		if (kind == CXCursor_BinaryOperator || kind == CXCursor_CompoundAssignOperator ||
		    kind == CXCursor_UnaryOperator || kind == CXCursor_CallExpr ||
		    kind == CXCursor_VarDecl || kind == CXCursor_GCCAsmStmt) {
			/* sites_in lists the node's own sites before those of its
			 * operands, which were applied above */
			struct sites sub = { NULL, 0, 0, 0, 0 };
			struct site_walk sw2 = { f, &sub, clang_getNullCursor(), 0,
						 clang_getNullCursor() };
			sites_in(&sw, c);
			for (size_t i = 0; i < ks.n; i++)
				sites_in(&sw2, ks.c[i]);
			for (size_t i = 0; i + sub.n < own.n; i++)
				apply_site(f, ps, &own.s[i], w);
			free(sub.s);
		}
		free(own.s);
	}
	free(ks.c);
}

static void walk_kids(struct path_walk *pw, struct paths *ps, CXCursor c)
{
	struct kids ks = kids_of(c);
	for (size_t i = 0; i < ks.n; i++)
		walk_paths(pw, ps, ks.c[i]);
	free(ks.c);
}

/* Has c a continue or break of the loop or switch around it (not of an
 * inner one)? */
static int has_jump(CXCursor c, enum CXCursorKind jump)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	if (k == jump)
		return 1;
	if (is_loop(c) || (jump == CXCursor_BreakStmt && k == CXCursor_SwitchStmt))
		return 0;
	struct kids ks = kids_of(c);
	int r = 0;
	for (size_t i = 0; i < ks.n && !r; i++)
		r = has_jump(ks.c[i], jump);
	free(ks.c);
	return r;
}

static void walk_paths(struct path_walk *pw, struct paths *ps, CXCursor c)
{
	struct fn *f = pw->f;
	enum CXCursorKind kind = clang_getCursorKind(c);
	if (!ps->n)
		return;
	switch (kind) {
	case CXCursor_CompoundStmt:
	case CXCursor_DeclStmt:
	case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt:
	case CXCursor_LabelStmt: walk_kids(pw, ps, c); return;
	case CXCursor_NullStmt: return;
	case CXCursor_IfStmt: {
		struct kids ks = kids_of(c);
		if (ks.n >= 2) {
			effects_paths(pw, ps, ks.c[0], cur_w);
			struct paths alt = paths_copy(ps);
			walk_paths(pw, ps, ks.c[1]);
			if (ks.n >= 3)
				walk_paths(pw, &alt, ks.c[2]);
			paths_union(ps, &alt);
		}
		free(ks.c);
		return;
	}
	case CXCursor_BreakStmt:
		if (pw->depth == 0) {
			paths_free(ps->p, ps->n);
			ps->p = NULL;
			ps->n = 0;
		}
		return;
	case CXCursor_GotoStmt:
		if (!clang_Cursor_isNull(pw->label) && goto_targets(c, pw->label)) {
			/* back to the head of the loop it makes */
			paths_append(&ps->cont, &ps->ncont, ps->p, ps->n);
			free(ps->p);
			ps->p = NULL;
			ps->n = 0;
			return;
		}
		/* fall through */
	case CXCursor_ReturnStmt:
	case CXCursor_IndirectGotoStmt:
		paths_free(ps->p, ps->n);
		ps->p = NULL;
		ps->n = 0;
		return;
	case CXCursor_ContinueStmt:
		if (!clang_Cursor_isNull(pw->label)) {
			/* the continue of a loop around: leaves this one */
			paths_free(ps->p, ps->n);
			ps->p = NULL;
			ps->n = 0;
			return;
		}
		paths_append(&ps->cont, &ps->ncont, ps->p, ps->n);
		free(ps->p);
		ps->p = NULL;
		ps->n = 0;
		return;
	case CXCursor_ForStmt:
	case CXCursor_WhileStmt:
	case CXCursor_DoStmt:
	case CXCursor_SwitchStmt: {
		/* Runs its body any number of times (or one case of it): each
		 * variable it changes moves by any amount its sites allow. */
		struct sites ss = { NULL, 0, 0, 0, 0 };
		struct site_walk sw = { f, &ss, clang_getNullCursor(), 0, clang_getNullCursor() };
		struct kids ks = kids_of(c);
		for (size_t i = 0; i < ks.n; i++)
			sites_in(&sw, ks.c[i]);
		free(ks.c);
		for (size_t v = 0; v < f->nvars; v++) {
			int up = 0, down = 0, other = 0;
			for (size_t i = 0; i < ss.n; i++) {
				if ((size_t)ss.s[i].var != v)
					continue;
				if (ss.s[i].kind == S_ADD && ss.s[i].c >= 0)
					up = 1;
				else if (ss.s[i].kind == S_ADD)
					down = 1;
				else
					other = 1;
			}
			if (other || (up && down))
				paths_apply(ps, (int)v, D_HAVOC, 0, 0);
			else if (up)
				paths_apply(ps, (int)v, D_ADD, 0, INF_HI);
			else if (down)
				paths_apply(ps, (int)v, D_ADD, INF_LO, 0);
		}
		free(ss.s);
		/* A continue in a switch is the loop's: those paths, with the
		 * switch's changes, end the iteration too. */
		if (kind == CXCursor_SwitchStmt && has_jump(c, CXCursor_ContinueStmt)) {
			struct paths c2 = paths_copy(ps);
			paths_append(&ps->cont, &ps->ncont, c2.p, c2.n);
			free(c2.p);
		}
		return;
	}
	default:
		if (clang_isExpression(kind) || kind == CXCursor_UnexposedExpr ||
		    kind == CXCursor_GCCAsmStmt || kind == CXCursor_VarDecl)
			effects_paths(pw, ps, c, cur_w);
		else
			walk_kids(pw, ps, c);
		return;
	}
}

/* ---- loops ------------------------------------------------------------------ */

struct loop {
	CXCursor cur;		/* the loop statement, or the label of a goto loop */
	enum CXCursorKind kind; /* CXCursor_DoStmt for a goto loop tested last */
	struct loop *parent;
	CXCursor init, cond, inc, body; /* null when absent */
	CXCursor *stmts;		/* the body, as statements */
	size_t nstmts;
	CXCursor label;		     /* of a goto loop, else null */
	const struct sym *E, *P, *T; /* entries, per entry, total */
	struct range *entry;	     /* state where it starts */
	struct range *wide;	     /* state at every point of it */
	struct sites sites;
	int ok;
};

static int modified_in(const struct loop *l, int v)
{
	for (size_t i = 0; i < l->sites.n; i++)
		if (l->sites.s[i].var == v)
			return 1;
	return 0;
}

/* Parts of a for statement by the semicolons of its header: libclang
 * leaves out the absent ones. */
static int for_parts(struct fn *f, struct loop *l)
{
	CXToken *toks = NULL;
	unsigned n = 0, semi[2] = { 0, 0 }, ns = 0, close = 0;
	int depth = 0;
	clang_tokenize(f->tu, clang_getCursorExtent(l->cur), &toks, &n);
	for (unsigned i = 1; i < n; i++) {
		CXString s = clang_getTokenSpelling(f->tu, toks[i]);
		const char *t = clang_getCString(s);
		unsigned o = offset_of(clang_getTokenLocation(f->tu, toks[i]));
		if (!strcmp(t, "("))
			depth++;
		else if (!strcmp(t, ")") && --depth == 0)
			close = o;
		else if (!strcmp(t, ";") && depth == 1 && ns < 2)
			semi[ns++] = o;
		clang_disposeString(s);
		if (close)
			break;
	}
	if (toks)
		clang_disposeTokens(f->tu, toks, n);
	if (ns != 2 || !close)
		return -1;
	struct kids ks = kids_of(l->cur);
	int rc = 0;
	for (size_t i = 0; i < ks.n; i++) {
		unsigned o = start_of(ks.c[i]);
		if (o < semi[0])
			l->init = ks.c[i];
		else if (o < semi[1])
			l->cond = ks.c[i];
		else if (o < close)
			l->inc = ks.c[i];
		else
			l->body = ks.c[i];
	}
	if (clang_Cursor_isNull(l->body))
		rc = -1;
	free(ks.c);
	return rc;
}

/* A linear form over tracked variables: c + Σ coef[v] v + an opaque part
 * invariant in the loop, known by its bounds at the loop's entry. */
struct lin {
	long long c;
	long long *coef;
	const struct sym *olb, *oub; /* NULL: unknown; both 0 when none */
	int opaque;
	struct loop *loop;
};

struct opaque_check {
	struct fn *f;
	struct loop *loop;
	int ok;
};

static int modified_in(const struct loop *l, int v);

static enum CXChildVisitResult opaque_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct opaque_check *oc = data;
	enum CXCursorKind k = clang_getCursorKind(c);
	if (k == CXCursor_CallExpr || k == CXCursor_MemberRefExpr ||
	    k == CXCursor_ArraySubscriptExpr) {
		oc->ok = 0;
	} else if (k == CXCursor_DeclRefExpr) {
		CXCursor d = clang_getCursorReferenced(c);
		int v = var_of(oc->f, c);
		if (clang_getCursorKind(d) != CXCursor_EnumConstantDecl &&
		    (v < 0 || modified_in(oc->loop, v) || oc->f->vars[v].addr_taken))
			oc->ok = 0;
	}
	return oc->ok ? CXChildVisit_Recurse : CXChildVisit_Break;
}

static struct range eval(struct fn *f, const struct range *s, CXCursor e);

/* e as an opaque part: reads only variables the loop leaves alone. */
static int lin_opaque(struct fn *f, CXCursor e, long long scale, struct lin *out)
{
	struct opaque_check oc = { f, out->loop, out->loop != NULL };
	if (!oc.ok)
		return -1;
	opaque_visit(e, e, &oc);
	if (oc.ok)
		clang_visitChildren(e, opaque_visit, &oc);
	if (!oc.ok)
		return -1;
	struct range r = eval(f, out->loop->entry, e);
	const struct sym *lo = scale > 0 ? r.lb : r.ub, *hi = scale > 0 ? r.ub : r.lb;
	out->olb = sym_add(f->sc, out->olb, sym_scale(f->sc, lo, scale));
	out->oub = sym_add(f->sc, out->oub, sym_scale(f->sc, hi, scale));
	out->opaque = 1;
	return 0;
}

static int linearize(struct fn *f, CXCursor e, long long scale, struct lin *out)
{
	long long k;
	e = strip(e);
	if (const_of(e, &k)) {
		out->c += scale * k;
		return 0;
	}
	int v = var_of(f, e);
	if (v >= 0) {
		out->coef[v] += scale;
		return 0;
	}
	if (!lin_opaque(f, e, scale, out))
		return 0;
	enum CXCursorKind kind = clang_getCursorKind(e);
	char op[12];
	struct kids ks = kids_of(e);
	int rc = -1, uns = 1;
	if (kind == CXCursor_BinaryOperator && ks.n == 2) {
		op_of(f->tu, e, op, sizeof(op));
		if (!strcmp(op, "+"))
			rc = linearize(f, ks.c[0], scale, out) ?: linearize(f, ks.c[1], scale, out);
		else if (!strcmp(op, "-") && !type_is_int(clang_getCursorType(e), &uns))
			rc = -1;
		else if (!strcmp(op, "-") && !uns) /* unsigned ones may wrap */
			rc = linearize(f, ks.c[0], scale, out)
				     ?: linearize(f, ks.c[1], -scale, out);
		else if (!strcmp(op, "*") && const_of(strip(ks.c[1]), &k) && k > -1000 && k < 1000)
			rc = linearize(f, ks.c[0], scale * k, out);
		else if (!strcmp(op, "*") && const_of(strip(ks.c[0]), &k) && k > -1000 && k < 1000)
			rc = linearize(f, ks.c[1], scale * k, out);
	} else if (kind == CXCursor_UnaryOperator && ks.n == 1) {
		op_of(f->tu, e, op, sizeof(op));
		if (!strcmp(op, "-") && type_is_int(clang_getCursorType(e), &uns) && !uns)
			rc = linearize(f, ks.c[0], -scale, out);
		else if (!strcmp(op, "+"))
			rc = linearize(f, ks.c[0], scale, out);
		else if (!strcmp(op, "post++") || !strcmp(op, "post--"))
			rc = linearize(f, ks.c[0], scale, out); /* the old value */
	}
	free(ks.c);
	return rc;
}

/* Bounds of a linear form in a state: ub when upper. */
static const struct sym *lin_bound(struct fn *f, const struct lin *l, const struct range *s,
				   int upper)
{
	const struct sym *r = sym_add(f->sc, sym_const(f->sc, l->c), upper ? l->oub : l->olb);
	for (size_t v = 0; v < f->nvars && r; v++) {
		if (!l->coef[v])
			continue;
		int use_ub = (l->coef[v] > 0) == upper;
		r = sym_add(f->sc, r, sym_scale(f->sc, use_ub ? s[v].ub : s[v].lb, l->coef[v]));
	}
	return r;
}

struct rank {
	const struct sym *P; /* per entry */
	long long d;	     /* decrease of r per iteration */
	struct lin r;	     /* linear ranks only */
	int linear;
	const char *why;
};

/* Do the guard's own updates of r's variables come before its test? */
static int pre_updates(const struct loop *l, const struct lin *r)
{
	for (size_t i = 0; i < l->sites.n; i++) {
		const struct site *st = &l->sites.s[i];
		if (st->in_cond && st->pre && clang_Cursor_isNull(st->nested) && r->coef[st->var])
			return 1;
	}
	return 0;
}

/* The rank of one atom "a op b" of the guard. */
static void rank_atom(struct fn *f, struct loop *l, struct paths *it, CXCursor atom, int positive,
		      struct rank *rk)
{
	char op[12] = "";
	CXCursor a = strip(atom), lhs, rhs;
	struct kids ks = kids_of(a);
	struct lin r = { 0, calloc(f->nvars + 1, sizeof(long long)), NULL, NULL, 0, l };
	const char *rel;
	rk->why = "its guard compares nothing this analysis follows";
	if (!r.coef)
		abort();
	if (clang_getCursorKind(a) == CXCursor_BinaryOperator && ks.n == 2)
		op_of(f->tu, a, op, sizeof(op));
	if (cmp_flip(op)) {
		lhs = ks.c[0];
		rhs = ks.c[1];
		rel = positive ? op : cmp_flip(op);
		if (!same_sign(lhs) || !same_sign(rhs)) {
			rk->why = "its guard compares signed with unsigned";
			goto out;
		}
	} else {
		/* a truth value: a != 0 */
		lhs = a;
		rhs = clang_getNullCursor();
		rel = positive ? "!=" : "==";
		int u;
		if (!type_is_int(clang_getCursorType(a), &u))
			goto out;
	}
	/* r >= 1 while the loop runs (or r != 0 for "!=") */
	const struct sym *zero = sym_const(f->sc, 0);
	struct lin L = { 0, calloc(f->nvars + 1, sizeof(long long)), zero, zero, 0, l };
	struct lin R = { 0, calloc(f->nvars + 1, sizeof(long long)), zero, zero, 0, l };
	if (!L.coef || !R.coef)
		abort();
	int bad =
		linearize(f, lhs, 1, &L) || (!clang_Cursor_isNull(rhs) && linearize(f, rhs, 1, &R));
	int ne = 0;
	if (!bad) {
		int less = !strcmp(rel, "<") || !strcmp(rel, "<=");
		ne = !strcmp(rel, "!=");
		const struct lin *big = less ? &R : &L, *small = less ? &L : &R;
		r.c = big->c - small->c + (!strcmp(rel, "<=") || !strcmp(rel, ">=") ? 1 : 0);
		for (size_t v = 0; v < f->nvars; v++)
			r.coef[v] = big->coef[v] - small->coef[v];
		r.oub = sym_sub(f->sc, big->oub, small->olb);
		r.olb = sym_sub(f->sc, big->olb, small->oub);
		r.opaque = big->opaque || small->opaque;
		if (!strcmp(rel, "==")) {
			bad = 1;
			rk->why = "its guard is an equality";
		}
	}
	free(L.coef);
	free(R.coef);
	if (bad)
		goto out;
	if (pre_updates(l, &r)) {
		rk->why = "its guard updates its counter before the test";
		goto out;
	}

	/* A moving counter narrower than the comparison wraps before it
	 * reaches a limit beyond its range (unsigned char c < 300). */
	long long cmp_size = clang_Type_getSizeOf(clang_getCursorType(lhs));
	for (size_t v = 0; v < f->nvars; v++) {
		int moves = 0;
		for (size_t i = 0; i < it->n && r.coef[v]; i++)
			moves |=
				it->p[i].d[v].kind != D_ADD || it->p[i].d[v].lo || it->p[i].d[v].hi;
		if (moves && (f->vars[v].size <= 0 || f->vars[v].size < cmp_size)) {
			rk->why = "a counter narrower than its comparison may wrap";
			goto out;
		}
	}

	/* Halving or doubling counters: one variable, logarithmic. */
	int nv = 0, the = -1;
	for (size_t v = 0; v < f->nvars; v++) {
		int moves = 0;
		for (size_t i = 0; i < it->n; i++) {
			const struct delta *dl = &it->p[i].d[v];
			moves |= dl->kind != D_ADD || dl->lo || dl->hi;
		}
		if (r.coef[v] && moves) {
			nv++;
			the = (int)v;
		}
	}
	int halve = nv == 1, dbl = nv == 1;
	for (size_t i = 0; i < it->n && nv == 1; i++) {
		halve &= it->p[i].d[the].kind == D_HALVE;
		dbl &= it->p[i].d[the].kind == D_DOUBLE;
	}
	if (nv == 1 && it->n && (halve || dbl)) {
		long long coef = r.coef[the];
		/* the rest of r, invariant */
		r.coef[the] = 0;
		int inv = 1;
		for (size_t i = 0; i < it->n; i++)
			for (size_t v = 0; v < f->nvars; v++)
				if (v != (size_t)the && r.coef[v] &&
				    (it->p[i].d[v].kind != D_ADD || it->p[i].d[v].lo ||
				     it->p[i].d[v].hi))
					inv = 0;
		const struct sym *rest_ub = lin_bound(f, &r, l->entry, 1);
		r.coef[the] = coef;
		const struct range *x = &l->entry[the];
		if (halve && coef == 1 && inv && !ne) {
			/* x >= 1 - rest while it runs: rest <= 0 keeps x >= 1 */
			if (rest_ub && sym_nonneg(f->sc, sym_scale(f->sc, rest_ub, -1)) && x->ub) {
				rk->P = sym_add(f->sc, sym_const(f->sc, 1), sym_log2(f->sc, x->ub));
				goto out;
			}
			rk->why = "a halved counter not kept above zero";
		} else if (halve && coef == 1 && ne && r.c == 0 && x->lb &&
			   sym_nonneg(f->sc, x->lb) && x->ub) {
			rk->P = sym_add(f->sc, sym_const(f->sc, 1), sym_log2(f->sc, x->ub));
			goto out;
		} else if (dbl && coef == -1 && inv && !ne && x->lb &&
			   sym_nonneg(f->sc, sym_add(f->sc, x->lb, sym_const(f->sc, -1))) &&
			   rest_ub) {
			/* x <= rest - 1 while it runs */
			rk->P = sym_add(f->sc, sym_const(f->sc, 1), sym_log2(f->sc, rest_ub));
			goto out;
		} else if (dbl) {
			rk->why = "a doubled counter that may start at zero or below";
			goto out;
		} else {
			rk->why = "a counter halved on some paths only";
			goto out;
		}
	}

	/* Linear: the greatest change of r on any path of an iteration. */
	long long dmax = INF_LO;
	int havoc = 0, flipped = 0;
	if (!it->n) {
		/* no path comes back: runs at most once */
		rk->P = sym_const(f->sc, 1);
		goto out;
	}
	for (size_t i = 0; i < it->n; i++) {
		long long sum = 0, lo = 0;
		for (size_t v = 0; v < f->nvars; v++) {
			if (!r.coef[v])
				continue;
			const struct delta *dl = &it->p[i].d[v];
			if (dl->kind != D_ADD) {
				havoc = 1;
				break;
			}
			long long hi = r.coef[v] > 0 ? dl->hi : dl->lo;
			long long low = r.coef[v] > 0 ? dl->lo : dl->hi;
			long long c = r.coef[v] < 0 ? -r.coef[v] : r.coef[v];
			if (hi == INF_HI || hi == INF_LO)
				sum = INF_HI;
			else if (sum != INF_HI)
				sum += (r.coef[v] > 0 ? hi : -hi) * c;
			if (low == INF_HI || low == INF_LO)
				lo = INF_LO;
			else if (lo != INF_LO)
				lo += (r.coef[v] > 0 ? low : -low) * c;
		}
		if (havoc)
			break;
		if (ne && sum == 1 && lo == 1 && i == 0 && !flipped) {
			/* a != b counting up: r = b - a */
			const struct sym *t = r.olb;
			r.c = -r.c;
			for (size_t v = 0; v < f->nvars; v++)
				r.coef[v] = -r.coef[v];
			r.olb = sym_scale(f->sc, r.oub, -1);
			r.oub = sym_scale(f->sc, t, -1);
			flipped = 1;
			i = (size_t)-1;
			continue;
		}
		if (ne && (sum != -1 || lo != -1)) {
			rk->why = "a != guard whose counter does not move by exactly one";
			goto out;
		}
		if (sum > dmax)
			dmax = sum;
	}
	if (havoc) {
		rk->why = "its counter is assigned or changed in a way not followed";
		goto out;
	}
	if (dmax >= 0 || dmax == INF_HI) {
		rk->why = "no counter of its guard moves towards its limit on every path";
		goto out;
	}
	/* Unsigned counters counting down must not wrap below zero. */
	for (size_t v = 0; v < f->nvars; v++) {
		if (!r.coef[v] || !f->vars[v].is_unsigned)
			continue;
		long long most = 0;
		for (size_t i = 0; i < it->n; i++)
			if (it->p[i].d[v].lo < most)
				most = it->p[i].d[v].lo;
		if (!most)
			continue;
		/* x >= 1 - rest: need 1 - ub(rest) >= -most */
		long long coef = r.coef[v];
		r.coef[v] = 0;
		const struct sym *rest_ub = lin_bound(f, &r, l->wide, 1);
		r.coef[v] = coef;
		/* a do loop's first run is not guarded: x must start >= -most */
		int first_ok =
			l->kind != CXCursor_DoStmt ||
			(l->entry[v].lb &&
			 sym_nonneg(f->sc, sym_add(f->sc, l->entry[v].lb, sym_const(f->sc, most))));
		if (coef != 1 || most == INF_LO || !rest_ub || !first_ok ||
		    !sym_nonneg(f->sc, sym_add(f->sc, sym_scale(f->sc, rest_ub, -1),
					       sym_const(f->sc, 1 + most)))) {
			rk->why = "an unsigned counter might wrap below zero";
			goto out;
		}
	}
	const struct sym *r0 = lin_bound(f, &r, l->entry, 1);
	if (!r0) {
		rk->why = "the start of its counter or its limit is unknown";
		/* no bound per entry, but one amortised over a loop around
		 * it may still be found from the rank (run_loop) */
		if (!ne) {
			rk->d = -dmax;
			rk->linear = 1;
			rk->r = r;
			r.coef = NULL;
		}
		goto out;
	}
	if (ne && l->kind == CXCursor_DoStmt) {
		rk->why = "a != guard of a do loop";
		goto out;
	}
	if (ne) {
		const struct sym *low = lin_bound(f, &r, l->entry, 0);
		if (!low || !sym_nonneg(f->sc, low)) {
			rk->why = "a != guard whose counter may start beyond its limit";
			goto out;
		}
	}
	rk->d = -dmax;
	rk->P = sym_cdiv(f->sc, sym_max0(f->sc, r0), rk->d);
	rk->linear = 1;
	rk->r = r;
	r.coef = NULL;
out:
	free(r.coef);
	free(ks.c);
}

/* The atoms of a guard that all must hold (a && b), or those of which one
 * must (a || b). */
static void rank_guard(struct fn *f, struct loop *l, struct paths *it, CXCursor cond, int positive,
		       struct rank *best)
{
	char op[12] = "";
	CXCursor c = strip(cond);
	struct kids ks = kids_of(c);
	if (clang_getCursorKind(c) == CXCursor_BinaryOperator && ks.n == 2)
		op_of(f->tu, c, op, sizeof(op));
	else if (clang_getCursorKind(c) == CXCursor_UnaryOperator && ks.n == 1) {
		op_of(f->tu, c, op, sizeof(op));
		if (!strcmp(op, "!")) {
			rank_guard(f, l, it, ks.c[0], !positive, best);
			free(ks.c);
			return;
		}
		op[0] = 0;
	}
	int conj = (!strcmp(op, "&&") && positive) || (!strcmp(op, "||") && !positive);
	int disj = (!strcmp(op, "||") && positive) || (!strcmp(op, "&&") && !positive);
	if (conj) {
		/* either atom bounds the loop: the one of lower class */
		struct rank a = { 0 }, b = { 0 };
		rank_guard(f, l, it, ks.c[0], positive, &a);
		rank_guard(f, l, it, ks.c[1], positive, &b);
		/* neither bounded per entry: one that may be amortised */
		int pick_b =
			!a.P && !b.P ? !a.linear && b.linear
			: !a.P	     ? 1
			       : b.P && sym_class_cmp(sym_class_of(b.P), sym_class_of(a.P)) < 0;
		*best = pick_b ? b : a;
		free(pick_b ? a.r.coef : b.r.coef);
		if (!best->P)
			best->why = a.why;
	} else if (disj) {
		/* runs while either holds: at most the sum */
		struct rank a = { 0 }, b = { 0 };
		rank_guard(f, l, it, ks.c[0], positive, &a);
		rank_guard(f, l, it, ks.c[1], positive, &b);
		memset(best, 0, sizeof(*best));
		best->P = sym_add(f->sc, a.P, b.P);
		best->why = a.P ? b.why : a.why;
		free(a.r.coef);
		free(b.r.coef);
	} else {
		memset(best, 0, sizeof(*best));
		rank_atom(f, l, it, c, positive, best);
	}
	free(ks.c);
}

/* Is the decrement st of an unsigned variable kept from wrapping by the
 * guard of its innermost loop (v > k, v >= k, v != 0, v), the loop
 * lowering v by no more than that per iteration and changing it no other
 * way? */
static int guarded_decrement(struct fn *f, const struct site *st)
{
	if (clang_Cursor_isNull(st->inner) || f->vars[st->var].global ||
	    f->vars[st->var].addr_taken)
		return 0;
	CXCursor loop = st->inner, cond = clang_getNullCursor();
	struct kids ks = kids_of(loop);
	enum CXCursorKind lk = clang_getCursorKind(loop);
	if (lk == CXCursor_WhileStmt && ks.n == 2)
		cond = ks.c[0];
	free(ks.c);
	if (clang_Cursor_isNull(cond))
		return 0;
	/* the margin its guard keeps v above zero */
	long long margin = 0;
	/* the atoms of the guard's && still to look at; grows as needed */
	size_t npending = 0, cap = 8;
	CXCursor *pending = malloc(cap * sizeof(*pending));
	if (!pending)
		abort();
	pending[npending++] = cond;
	while (npending) {
		CXCursor a = strip(pending[--npending]);
		char op[12] = "";
		struct kids ak = kids_of(a);
		if (clang_getCursorKind(a) == CXCursor_BinaryOperator && ak.n == 2)
			op_of(f->tu, a, op, sizeof(op));
		long long k;
		if (!strcmp(op, "&&")) {
			if (npending + 2 > cap) {
				cap *= 2;
				pending = realloc(pending, cap * sizeof(*pending));
				if (!pending)
					abort();
			}
			pending[npending++] = ak.c[0];
			pending[npending++] = ak.c[1];
		} else if (ak.n == 2 && var_of(f, ak.c[0]) == st->var &&
			   const_of(strip(ak.c[1]), &k)) {
			long long m = !strcmp(op, ">")		    ? k + 1
				      : !strcmp(op, ">=")	    ? k
				      : !strcmp(op, "!=") && k == 0 ? 1
								    : 0;
			margin = m > margin ? m : margin;
		} else if (!op[0] && var_of(f, a) == st->var) {
			margin = margin > 1 ? margin : 1;
		}
		free(ak.c);
	}
	free(pending);
	if (margin < 1)
		return 0;
	struct sites ss = { NULL, 0, 0, 0, 0 };
	struct site_walk sw = { f, &ss, clang_getNullCursor(), 0, clang_getNullCursor() };
	ks = kids_of(loop);
	for (size_t i = 0; i < ks.n; i++)
		sites_in(&sw, ks.c[i]);
	free(ks.c);
	long long sum = 0;
	int ok = 1;
	for (size_t i = 0; i < ss.n && ok; i++) {
		if (ss.s[i].var != st->var)
			continue;
		if (ss.s[i].kind != S_ADD || ss.s[i].c > 0 || !clang_Cursor_isNull(ss.s[i].nested))
			ok = 0;
		else
			sum -= ss.s[i].c;
	}
	free(ss.s);
	return ok && sum <= margin;
}

/*
 * The state where the assignment st of loop l takes its value, from the
 * loop-wide one: a variable raised only by constants, each time after st
 * in the body (or in the increment of a for), has had at most P - 1
 * iterations' increments there (st runs, so the loop does, P >= 1):
 * "x = i + 2; i++;" gives x <= i0 + (P - 1) + 2, not i0 + P + 2.  NULL
 * when that tells nothing new.
 */
static struct range *before_increments(struct fn *f, const struct loop *l, const struct site *st,
				       const struct range *base, const struct sym *P)
{
	struct sym_ctx *sc = f->sc;
	if (!P || !clang_Cursor_isNull(l->label) || !clang_Cursor_isNull(st->nested) ||
	    st->in_cond || clang_Cursor_isNull(st->expr))
		return NULL;
	int in_body = 0;
	for (size_t i = 0; i < l->nstmts && !in_body; i++)
		in_body = holds(l->stmts[i], st->expr);
	if (!in_body)
		return NULL;
	unsigned after = end_of(st->expr);
	struct range *pre = NULL;
	for (size_t v = 0; v < f->nvars; v++) {
		long long up = 0;
		int ok = base[v].ub != NULL;
		for (size_t i = 0; i < l->sites.n && ok; i++) {
			const struct site *u = &l->sites.s[i];
			if ((size_t)u->var != v)
				continue;
			ok = u->kind == S_ADD && clang_Cursor_isNull(u->nested) && !u->in_cond &&
			     !clang_Cursor_isNull(u->expr) &&
			     (holds(l->inc, u->expr) || start_of(u->expr) >= after);
			if (ok && u->c > 0)
				up += u->c;
		}
		if (!ok || !up)
			continue;
		if (!pre)
			pre = state_dup(f, base);
		pre[v].ub = sym_add(sc, base[v].ub, sym_const(sc, -up));
	}
	return pre;
}

/* The loop-wide state: bounds valid wherever in the loop, from the entry
 * state, the sites and P iterations per entry (NULL: unknown). */
static struct range *loop_wide(struct fn *f, struct loop *l, const struct sym *P)
{
	struct range *w = state_dup(f, l->entry);
	struct sym_ctx *sc = f->sc;
	const struct sym *P1 = P ? sym_add(sc, P, sym_const(sc, 1)) : NULL;
	char *done = calloc(f->nvars + 1, 1), *complex = calloc(f->nvars + 1, 1);
	if (!done || !complex)
		abort();
	for (int pass = 0; pass < 2; pass++) {
		struct range *base = state_dup(f, w);
		for (size_t i = 0; i < l->sites.n; i++) {
			enum site_kind k = l->sites.s[i].kind;
			if (k == S_ASSIGN || k == S_ADDE)
				complex[l->sites.s[i].var] = 1;
		}
		for (size_t v = 0; v < f->nvars; v++) {
			int touched = 0;
			struct range r = l->entry[v];
			for (size_t i = 0; i < l->sites.n; i++) {
				const struct site *st = &l->sites.s[i];
				if ((size_t)st->var != v)
					continue;
				touched = 1;
				const struct sym *cnt = clang_Cursor_isNull(st->nested)
								? (st->in_cond ? P1 : P)
								: NULL;
				switch (st->kind) {
				case S_ADD:
					if (st->c > 0)
						r.ub = sym_add(sc, r.ub, sym_scale(sc, cnt, st->c));
					else if (st->c < 0)
						r.lb = sym_add(sc, r.lb, sym_scale(sc, cnt, st->c));
					break;
				case S_HALVE:
					if (l->entry[v].lb && sym_nonneg(sc, l->entry[v].lb))
						r.lb = sym_const(sc, 0);
					else
						r = unknown();
					break;
				case S_DOUBLE:
					if (!(l->entry[v].lb && sym_nonneg(sc, l->entry[v].lb)))
						r.lb = NULL;
					r.ub = NULL;
					break;
				case S_ASSIGN:
				case S_ADDE: {
					if (pass == 0) {
						r = unknown();
						break;
					}
					struct range *pre =
						st->kind == S_ASSIGN
							? before_increments(f, l, st, base, P)
							: NULL;
					struct range e = eval(f, pre ? pre : base, st->expr);
					free(pre);
					if (st->kind == S_ADDE) {
						if (e.lb && sym_nonneg(sc, e.lb))
							r.ub = sym_add(sc, r.ub,
								       sym_mul(sc, cnt, e.ub));
						else
							r = unknown();
					} else {
						r.lb = lb_join(f, r.lb, e.lb);
						r.ub = sym_max(sc, r.ub, e.ub);
					}
					break;
				}
				default: r = unknown(); break;
				}
			}
			if (!touched)
				continue;
			/* An unsigned variable that might go below zero wraps,
			 * unless every decrement of it is guarded. */
			int guarded = f->vars[v].is_unsigned;
			for (size_t i = 0; i < l->sites.n && guarded; i++) {
				const struct site *st = &l->sites.s[i];
				if ((size_t)st->var == v && (st->kind != S_ADD || st->c < 0) &&
				    !(st->kind == S_ADD && guarded_decrement(f, st)))
					guarded = 0;
			}
			if (guarded && !(r.lb && sym_nonneg(sc, r.lb)))
				r.lb = sym_const(sc, 0);
			if (f->vars[v].is_unsigned && !(r.lb && sym_nonneg(sc, r.lb))) {
				r.lb = sym_const(sc, 0);
				r.ub = NULL;
			}
			if (pass == 0 || complex[v])
				w[v] = r;
			/* assigned values may use others: second pass for those */
			if (pass == 0 && complex[v])
				w[v] = unknown();
		}
		free(base);
	}
	free(done);
	free(complex);
	return w;
}

static void emit_loop(struct fn *f, CXCursor at, int total, const struct sym *b, const char *why)
{
	char klass[32];
	unsigned line, col;
	if (f->stop)
		return;
	clang_getSpellingLocation(clang_getCursorLocation(at), NULL, &line, &col, NULL);
	sym_class_str(sym_class_of(b), klass, sizeof(klass));
	struct bound_result r = { f->file, f->name,	      line,  col,
				  total,   sym_str(f->sc, b), klass, b ? NULL : why };
	f->stop = f->emit(&r, f->data);
	if (!total) {
		f->stats->loops++;
		if (b)
			f->stats->bounded_loops++;
	}
}

static int walk(struct fn *f, struct range *s, CXCursor c, struct loop *ctx);

/*
 * How often, in one call, a site of ancestor a runs that is not in l:
 * directly in a, a's runs (one more each entry in its guard); in a loop q
 * between a and l (an enclosing loop of l), q's runs (one more each entry
 * outside its body and increment); NULL in any other loop (its runs are
 * not known here).
 */
static const struct sym *site_runs(struct fn *f, const struct loop *l, const struct loop *a,
				   const struct site *st)
{
	struct sym_ctx *sc = f->sc;
	if (clang_Cursor_isNull(st->nested))
		return st->in_cond ? sym_add(sc, a->T, a->E) : a->T;
	for (const struct loop *q = l->parent; q && q != a; q = q->parent) {
		if (!same_stmt(st->inner, q->cur))
			continue;
		if (!q->T || !q->E)
			return NULL;
		if (holds(q->body, st->expr) || holds(q->inc, st->expr))
			return q->T;
		return sym_add(sc, q->T, q->E);
	}
	return NULL;
}

/*
 * Amortised over a, the parent of l or a loop around it (the paper's
 * reasoning over difference constraints, through any depth of nesting):
 * r's value where a starts, at each of a's entries, plus all that a adds
 * to it outside l, directly or in the loops between a and l, is shared
 * by all of l's runs in a.  Anything else in a that resets or raises r
 * (an assignment, a change not followed, an increment in a loop beside
 * l) and a is not used.
 */
static const struct sym *amortised_over(struct fn *f, struct loop *l, const struct rank *rk,
					struct loop *a)
{
	struct sym_ctx *sc = f->sc;
	if (!a->T || !a->E)
		return NULL;
	const struct sym *r0 = lin_bound(f, &rk->r, a->entry, 1);
	if (!r0)
		return NULL;
	const struct sym *sum = sym_mul(sc, a->E, sym_max0(sc, r0));
	for (size_t i = 0; i < a->sites.n && sum; i++) {
		const struct site *st = &a->sites.s[i];
		long long coef = rk->r.coef[st->var];
		if (!coef || holds(l->cur, st->expr) ||
		    (!clang_Cursor_isNull(st->nested) && same_stmt(st->nested, l->cur)))
			continue;
		if (st->kind != S_ADD)
			return NULL;
		long long up = coef * st->c;
		if (up <= 0)
			continue;
		const struct sym *cnt = site_runs(f, l, a, st);
		if (!cnt)
			return NULL;
		sum = sym_add(sc, sum, sym_scale(sc, cnt, up));
	}
	return sum ? sym_cdiv(sc, sum, rk->d) : NULL;
}

/* Amortised over the enclosing loop, or one further out, whichever
 * gives the lowest class (the nearest of equal ones). */
static const struct sym *amortised(struct fn *f, struct loop *l, const struct rank *rk)
{
	if (!l->parent || !rk->linear || rk->r.opaque)
		return NULL;
	/* The init of a for loop runs at each of its entries: a reset. */
	if (!clang_Cursor_isNull(l->init)) {
		struct sites is = { NULL, 0, 0, 0, 0 };
		struct site_walk sw = { f, &is, clang_getNullCursor(), 0, clang_getNullCursor() };
		int reset = 0;
		sites_in(&sw, l->init);
		for (size_t i = 0; i < is.n; i++)
			reset |= rk->r.coef[is.s[i].var] != 0;
		free(is.s);
		if (reset)
			return NULL;
	}
	const struct sym *best = NULL;
	for (struct loop *a = l->parent; a; a = a->parent) {
		const struct sym *b = amortised_over(f, l, rk, a);
		if (b && (!best || sym_class_cmp(sym_class_of(b), sym_class_of(best)) < 0))
			best = b;
		/* a goto loop's parts are not those of a statement */
		if (!clang_Cursor_isNull(a->label))
			break;
	}
	return best;
}

static void run_loop(struct fn *f, struct range *s, struct loop *lp, struct loop *ctx,
		     const char *why);
static int walk_list(struct fn *f, struct range *s, const CXCursor *c, size_t n, struct loop *ctx);

static void loop_init(struct loop *l, CXCursor c, struct loop *ctx)
{
	memset(l, 0, sizeof(*l));
	l->cur = c;
	l->kind = clang_getCursorKind(c);
	l->parent = ctx;
	l->init = l->cond = l->inc = l->body = l->label = clang_getNullCursor();
}

static void analyse_loop(struct fn *f, struct range *s, CXCursor c, struct loop *ctx)
{
	struct loop l;
	enum CXCursorKind kind = clang_getCursorKind(c);
	const char *why = NULL;
	loop_init(&l, c, ctx);
	if (from_macro(c)) {
		why = "a loop written by a macro";
	} else if (kind == CXCursor_ForStmt) {
		if (for_parts(f, &l))
			why = "a for loop whose header could not be read (a macro?)";
	} else {
		struct kids ks = kids_of(c);
		if (ks.n == 2) {
			l.cond = kind == CXCursor_WhileStmt ? ks.c[0] : ks.c[1];
			l.body = kind == CXCursor_WhileStmt ? ks.c[1] : ks.c[0];
		} else {
			why = "a loop whose parts could not be read";
		}
		free(ks.c);
	}
	if (!clang_Cursor_isNull(l.body)) {
		l.stmts = &l.body;
		l.nstmts = 1;
	}
	run_loop(f, s, &l, ctx, why);
}

/* The body's statements: sites, walked states, paths. */
static void body_sites(struct site_walk *sw, const struct loop *l)
{
	for (size_t i = 0; i < l->nstmts; i++)
		sites_in(sw, l->stmts[i]);
}

static int body_has_jump(const struct loop *l, enum CXCursorKind jump)
{
	int r = 0;
	for (size_t i = 0; i < l->nstmts && !r; i++)
		r = has_jump(l->stmts[i], jump);
	return r;
}

static void run_loop(struct fn *f, struct range *s, struct loop *lp, struct loop *ctx,
		     const char *why)
{
	struct loop l = *lp;
	CXCursor c = l.cur;
	enum CXCursorKind kind = l.kind;
	l.E = ctx ? ctx->T : sym_const(f->sc, 1);
	if (!clang_Cursor_isNull(l.init))
		walk(f, s, l.init, ctx);
	l.entry = state_dup(f, s);

	struct site_walk sw = { f, &l.sites, clang_getNullCursor(), 1, clang_getNullCursor() };
	if (!clang_Cursor_isNull(l.cond))
		sites_in(&sw, l.cond);
	sw.in_cond = 0;
	body_sites(&sw, &l);
	if (!clang_Cursor_isNull(l.inc))
		sites_in(&sw, l.inc);

	/*
	 * A local variable of unknown value (set by a call, say) that is
	 * changed in one place only, not in this outermost loop: its name
	 * stands for its value, the same all through the loop.
	 */
	if (!ctx) {
		for (size_t v = 0; v < f->nvars; v++) {
			const struct var *x = &f->vars[v];
			if (x->global || x->param || x->addr_taken || f->nassigned[v] > 1 ||
			    modified_in(&l, (int)v) || (l.entry[v].lb && l.entry[v].ub))
				continue;
			int unique = 1;
			for (size_t o = 0; o < f->nvars && unique; o++)
				unique = o == v || strcmp(f->vars[o].name, x->name);
			if (!unique)
				continue;
			const struct sym *val = sym_var(f->sc, x->name, x->is_unsigned);
			if (!l.entry[v].lb || (x->is_unsigned && sym_is_const(l.entry[v].lb, NULL)))
				l.entry[v].lb = val;
			if (!l.entry[v].ub)
				l.entry[v].ub = val;
		}
	}

	struct rank rk = { 0 };
	struct range *w0 = loop_wide(f, &l, NULL);
	l.wide = w0;
	if (!why && clang_Cursor_isNull(l.cond))
		why = "no guard: it ends only by break, return or goto";
	if (!why && l.sites.has_label)
		why = "its body has a label, a goto may enter it";
	if (!why) {
		/* The paths of one iteration: guard, body, increment. */
		struct paths it = { calloc(1, sizeof(struct path)), 1, f->nvars, NULL, 0 };
		struct path_walk pw = { f, &l.sites, 0, l.label };
		if (!it.p)
			abort();
		it.p[0].d = calloc(f->nvars + 1, sizeof(struct delta));
		if (!it.p[0].d)
			abort();
		const struct range *saved = cur_w;
		cur_w = w0;
		effects_paths(&pw, &it, l.cond, w0);
		for (size_t i = 0; i < l.nstmts; i++)
			walk_paths(&pw, &it, l.stmts[i]);
		paths_append(&it.p, &it.n, it.cont, it.ncont);
		free(it.cont);
		it.cont = NULL;
		it.ncont = 0;
		if (!clang_Cursor_isNull(l.inc))
			effects_paths(&pw, &it, l.inc, w0);
		cur_w = saved;
		paths_merge(&it);
		rank_guard(f, &l, &it, l.cond, 1, &rk);
		paths_free(it.p, it.n);
		if (!rk.P)
			why = rk.why;
	}
	/* A do loop runs its body once before the first test. */
	if (kind == CXCursor_DoStmt) {
		if (rk.P)
			rk.P = sym_add(f->sc, rk.P, sym_const(f->sc, 1));
		rk.linear = 0;
	}
	l.P = rk.P;
	const struct sym *prod = sym_mul(f->sc, l.E, l.P);
	const struct sym *am = rk.linear ? amortised(f, &l, &rk) : NULL;
	l.T = prod;
	if (am && (!prod || sym_class_cmp(sym_class_of(am), sym_class_of(prod)) < 0))
		l.T = am;
	if (!l.T && !why)
		why = "it runs in a loop that is not bounded";
	/*
	 * The local bound counts the tests of the guard the loop pays for,
	 * as Loopus did: each one that lets the body run (l.T, which the
	 * loops inside take as their entries), and the last one that ends
	 * it, once, for a loop tested first and not inside another loop.
	 * A nested loop's last tests, one per run of the loop around it at
	 * most, are paid by those runs.  A do loop's tests are its runs.
	 */
	const struct sym *tests = l.T;
	if (tests && !ctx && kind != CXCursor_DoStmt)
		tests = sym_add(f->sc, tests, sym_const(f->sc, 1));
	emit_loop(f, c, 0, tests, why);
	if (!tests) {
		f->total = NULL;
		if (!f->total_reason)
			f->total_reason = "a loop of it is not bounded";
	} else {
		f->total = sym_add(f->sc, f->total, tests);
	}

	l.wide = loop_wide(f, &l, l.P);
	free(w0);
	/* Inner loops, with the state of the loop where its guard holds. */
	struct range *in = state_dup(f, l.wide);
	/* A do loop's body runs once before its guard is tested. */
	if (!clang_Cursor_isNull(l.cond) && kind != CXCursor_DoStmt) {
		exec(f, in, l.cond);
		refine(f, in, l.cond, 1);
	}
	walk_list(f, in, l.stmts, l.nstmts, &l);
	if (!clang_Cursor_isNull(l.inc))
		walk(f, in, l.inc, &l);
	free(in);
	/* After it: what holds in it, where the guard failed. */
	memcpy(s, l.wide, f->nvars * sizeof(*s));
	if (!clang_Cursor_isNull(l.cond) && clang_Cursor_isNull(l.label) &&
	    !body_has_jump(&l, CXCursor_BreakStmt))
		refine(f, s, l.cond, 0);
	free(l.wide);
	free(l.entry);
	free(l.sites.s);
	free(rk.r.coef);
}

static void havoc_modified(struct fn *f, struct range *s, CXCursor c)
{
	struct sites ss = { NULL, 0, 0, 0, 0 };
	struct site_walk sw = { f, &ss, clang_getNullCursor(), 0, clang_getNullCursor() };
	sites_in(&sw, c);
	for (size_t i = 0; i < ss.n; i++)
		s[ss.s[i].var] = unknown();
	free(ss.s);
}

static struct gloop *gloop_of(struct fn *f, CXCursor c)
{
	if (clang_getCursorKind(c) != CXCursor_LabelStmt)
		return NULL;
	for (size_t i = 0; i < f->ngloops; i++)
		if (same_stmt(f->gloops[i].label, c))
			return &f->gloops[i];
	return NULL;
}

static void run_gloop(struct fn *f, struct range *s, struct gloop *g, struct loop *ctx)
{
	g->done = 1;
	struct loop l;
	loop_init(&l, g->label, ctx);
	l.kind = g->tested_last ? CXCursor_DoStmt : CXCursor_WhileStmt;
	l.cond = g->cond;
	l.stmts = g->stmts;
	l.nstmts = g->nstmts;
	l.label = g->label;
	run_loop(f, s, &l, ctx, NULL);
}

static int walk(struct fn *f, struct range *s, CXCursor c, struct loop *ctx);

/* A list of statements, in order; a loop made by a goto tested last
 * takes the statements from its label to its if. */
static int walk_list(struct fn *f, struct range *s, const CXCursor *c, size_t n, struct loop *ctx)
{
	int falls = 1;
	for (size_t i = 0; i < n; i++) {
		struct gloop *g = gloop_of(f, c[i]);
		if (g && g->tested_last) {
			run_gloop(f, s, g, ctx);
			while (i < n && !same_stmt(c[i], g->end))
				i++;
			continue;
		}
		int r = walk(f, s, c[i], ctx);
		enum CXCursorKind k = clang_getCursorKind(c[i]);
		/* a label (or case) is reachable again */
		if (k == CXCursor_LabelStmt || k == CXCursor_CaseStmt || k == CXCursor_DefaultStmt)
			falls = r;
		else if (!r)
			falls = 0;
	}
	return falls;
}

/* Walks statement c from state s; 0 when it never falls through to what
 * follows (return, break, continue, goto), so its state is left out of
 * joins. */
static int walk(struct fn *f, struct range *s, CXCursor c, struct loop *ctx)
{
	enum CXCursorKind kind = clang_getCursorKind(c);
	struct kids ks = { NULL, 0, 0 };
	int falls = 1;
	if (f->stop)
		return 1;
	switch (kind) {
	case CXCursor_ForStmt:
	case CXCursor_WhileStmt:
	case CXCursor_DoStmt: analyse_loop(f, s, c, ctx); return 1;
	case CXCursor_IfStmt: {
		ks = kids_of(c);
		if (ks.n >= 2) {
			exec(f, s, ks.c[0]);
			struct range *e = state_dup(f, s);
			refine(f, s, ks.c[0], 1);
			refine(f, e, ks.c[0], 0);
			int t = walk(f, s, ks.c[1], ctx);
			int el = ks.n >= 3 ? walk(f, e, ks.c[2], ctx) : 1;
			if (t && el)
				state_join(f, s, e);
			else if (el)
				memcpy(s, e, f->nvars * sizeof(*s));
			falls = t || el;
			free(e);
		}
		break;
	}
	case CXCursor_SwitchStmt:
		ks = kids_of(c);
		if (ks.n >= 1)
			exec(f, s, ks.c[0]);
		havoc_modified(f, s, c);
		for (size_t i = 1; i < ks.n; i++)
			walk(f, s, ks.c[i], ctx);
		havoc_modified(f, s, c);
		break;
	case CXCursor_LabelStmt: {
		struct gloop *g = gloop_of(f, c);
		if (g && !g->tested_last) {
			run_gloop(f, s, g, ctx);
			return 1;
		}
	}
		/* reached by a goto from anywhere */
		for (size_t i = 0; i < f->nvars; i++)
			if (f->modified[i])
				s[i] = unknown();
		ks = kids_of(c);
		for (size_t i = 0; i < ks.n; i++)
			falls = walk(f, s, ks.c[i], ctx);
		break;
	case CXCursor_VarDecl: {
		int v = var_find(f, c);
		CXCursor init = clang_Cursor_getVarDeclInitializer(c);
		if (!clang_Cursor_isNull(init))
			exec(f, s, init);
		if (v >= 0)
			s[v] = clang_Cursor_isNull(init) || f->vars[v].global
				       ? unknown()
				       : clamp(f, v, eval(f, s, init));
		break;
	}
	case CXCursor_ReturnStmt:
	case CXCursor_BreakStmt:
	case CXCursor_ContinueStmt:
	case CXCursor_GotoStmt:
	case CXCursor_IndirectGotoStmt:
		ks = kids_of(c);
		for (size_t i = 0; i < ks.n; i++)
			walk(f, s, ks.c[i], ctx);
		falls = 0;
		break;
	case CXCursor_CompoundStmt:
	case CXCursor_DeclStmt:
	case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt:
		ks = kids_of(c);
		falls = walk_list(f, s, ks.c, ks.n, ctx);
		break;
	default:
		if (clang_isExpression(kind) || kind == CXCursor_UnexposedExpr ||
		    kind == CXCursor_GCCAsmStmt)
			exec(f, s, c);
		else {
			ks = kids_of(c);
			for (size_t i = 0; i < ks.n; i++)
				walk(f, s, ks.c[i], ctx);
		}
		break;
	}
	free(ks.c);
	return falls;
}

/* ---- functions ----------------------------------------------------------- */

struct prepass {
	struct fn *f;
	CXCursor self;
	int recursive;
	struct goto_loop {
		CXCursor label;
		unsigned start;
	} * labels;
	size_t nlabels;
	CXCursor *gotos;
	size_t ngotos;
	CXCursor *blocks; /* compound statements */
	size_t nblocks;
};

static enum CXChildVisitResult pre_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct prepass *pp = data;
	struct fn *f = pp->f;
	enum CXCursorKind kind = clang_getCursorKind(c);
	if (kind == CXCursor_DeclRefExpr || kind == CXCursor_VarDecl) {
		CXCursor d = kind == CXCursor_VarDecl ? c : clang_getCursorReferenced(c);
		enum CXCursorKind dk = clang_getCursorKind(d);
		if (dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl)
			var_add(f, d);
	} else if (kind == CXCursor_CallExpr) {
		CXCursor d = clang_getCursorReferenced(c);
		if (clang_equalCursors(clang_getCanonicalCursor(d),
				       clang_getCanonicalCursor(pp->self)))
			pp->recursive = 1;
	} else if (kind == CXCursor_LabelStmt) {
		pp->labels = realloc(pp->labels, (pp->nlabels + 1) * sizeof(*pp->labels));
		if (!pp->labels)
			abort();
		pp->labels[pp->nlabels].label = c;
		pp->labels[pp->nlabels++].start = start_of(c);
	} else if (kind == CXCursor_CompoundStmt) {
		pp->blocks = realloc(pp->blocks, (pp->nblocks + 1) * sizeof(*pp->blocks));
		if (!pp->blocks)
			abort();
		pp->blocks[pp->nblocks++] = c;
	} else if (kind == CXCursor_GotoStmt) {
		pp->gotos = realloc(pp->gotos, (pp->ngotos + 1) * sizeof(*pp->gotos));
		if (!pp->gotos)
			abort();
		pp->gotos[pp->ngotos++] = c;
	}
	return CXChildVisit_Recurse;
}

static enum CXChildVisitResult addr_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct fn *f = data;
	if (clang_getCursorKind(c) == CXCursor_UnaryOperator) {
		char op[12];
		op_of(f->tu, c, op, sizeof(op));
		struct kids ks = kids_of(c);
		if (ks.n == 1 && (!strcmp(op, "&") || !op[0])) {
			int v = var_of(f, ks.c[0]);
			if (v >= 0)
				f->vars[v].addr_taken = 1;
		}
		free(ks.c);
	}
	return CXChildVisit_Recurse;
}

/* The if statement "if (c) goto <label>;" (the goto alone or in braces)
 * whose goto is g, or null. */
static int is_if_goto(CXCursor st, CXCursor g, CXCursor *cond)
{
	if (clang_getCursorKind(st) != CXCursor_IfStmt)
		return 0;
	struct kids ks = kids_of(st);
	int ok = 0;
	if (ks.n == 2) {
		CXCursor then = ks.c[1];
		if (clang_getCursorKind(then) == CXCursor_CompoundStmt) {
			struct kids tk = kids_of(then);
			if (tk.n == 1)
				then = tk.c[0];
			free(tk.c);
		}
		ok = same_stmt(then, g);
		*cond = ks.c[0];
	}
	free(ks.c);
	return ok;
}

static void gloop_add(struct fn *f, struct gloop g)
{
	f->gloops = realloc(f->gloops, (f->ngloops + 1) * sizeof(*f->gloops));
	if (!f->gloops)
		abort();
	f->gloops[f->ngloops++] = g;
}

/* The labels with one goto, back to them, in one of the two forms. */
static void find_gloops(struct fn *f, struct prepass *pp)
{
	for (size_t i = 0; i < pp->nlabels; i++) {
		CXCursor label = pp->labels[i].label, g = clang_getNullCursor();
		size_t n = 0;
		for (size_t k = 0; k < pp->ngotos; k++)
			if (goto_targets(pp->gotos[k], label)) {
				g = pp->gotos[k];
				n++;
			}
		if (n != 1 || start_of(g) < pp->labels[i].start)
			continue;
		struct kids lk = kids_of(label);
		CXCursor sub = lk.n == 1 ? lk.c[0] : clang_getNullCursor(), cond;
		free(lk.c);
		if (clang_Cursor_isNull(sub))
			continue;
		/* tested first: L: if (c) { ...; goto L; } */
		struct kids ik = kids_of(sub);
		if (clang_getCursorKind(sub) == CXCursor_IfStmt && ik.n == 2 &&
		    clang_getCursorKind(ik.c[1]) == CXCursor_CompoundStmt) {
			struct kids tk = kids_of(ik.c[1]);
			if (tk.n && same_stmt(tk.c[tk.n - 1], g)) {
				struct gloop gl = { label, ik.c[0], sub, NULL, 1, 0, 0 };
				gl.stmts = malloc(sizeof(*gl.stmts));
				if (!gl.stmts)
					abort();
				gl.stmts[0] = ik.c[1];
				gloop_add(f, gl);
			}
			free(tk.c);
		}
		free(ik.c);
		if (gloop_of(f, label))
			continue;
		/* tested last: L: s1; s2; ...; if (c) goto L; in one block */
		for (size_t b = 0; b < pp->nblocks; b++) {
			struct kids bk = kids_of(pp->blocks[b]);
			size_t a = 0;
			while (a < bk.n && !same_stmt(bk.c[a], label))
				a++;
			for (size_t e = a + 1; e < bk.n; e++) {
				enum CXCursorKind ek = clang_getCursorKind(bk.c[e]);
				/* a case in it: the switch may jump in */
				if (ek == CXCursor_CaseStmt || ek == CXCursor_DefaultStmt)
					break;
				if (!is_if_goto(bk.c[e], g, &cond))
					continue;
				struct gloop gl = { label, cond, bk.c[e], NULL, e - a, 1, 0 };
				gl.stmts = malloc(gl.nstmts * sizeof(*gl.stmts));
				if (!gl.stmts)
					abort();
				gl.stmts[0] = sub;
				for (size_t k = a + 1; k < e; k++)
					gl.stmts[k - a] = bk.c[k];
				gloop_add(f, gl);
				break;
			}
			free(bk.c);
		}
	}
}

static void analyse_function(struct fn *f, CXCursor fc, CXCursor body)
{
	struct prepass pp = { f, fc, 0, NULL, 0, NULL, 0, NULL, 0 };
	struct sites all = { NULL, 0, 0, 0, 0 };
	f->stats->functions++;
	/* parameters first, so that they are known even when unused */
	int nargs = clang_Cursor_getNumArguments(fc);
	for (int i = 0; i < nargs; i++)
		var_add(f, clang_Cursor_getArgument(fc, (unsigned)i));
	clang_visitChildren(body, pre_visit, &pp);
	clang_visitChildren(body, addr_visit, f);
	f->modified = calloc(f->nvars + 1, 1);
	if (!f->modified)
		abort();
	struct site_walk sw = { f, &all, clang_getNullCursor(), 0, clang_getNullCursor() };
	sites_in(&sw, body);
	f->nassigned = calloc(f->nvars + 1, sizeof(*f->nassigned));
	if (!f->nassigned)
		abort();
	for (size_t i = 0; i < all.n; i++) {
		f->modified[all.s[i].var] = 1;
		f->nassigned[all.s[i].var]++;
	}
	free(all.s);

	struct range *s = state_new(f);
	for (size_t i = 0; i < f->nvars; i++) {
		const struct var *v = &f->vars[i];
		if (v->param ||
		    (v->global && clang_Cursor_getStorageClass(v->decl) != CX_SC_Static))
			s[i].lb = s[i].ub = sym_var(f->sc, v->name, v->is_unsigned);
		else if (v->global)
			s[i] = unknown();
		if (v->is_unsigned && !s[i].lb)
			s[i].lb = sym_const(f->sc, 0);
	}
	f->total = sym_const(f->sc, 0);
	f->total_reason = NULL;
	pp.blocks = realloc(pp.blocks, (pp.nblocks + 1) * sizeof(*pp.blocks));
	if (!pp.blocks)
		abort();
	pp.blocks[pp.nblocks++] = body;
	find_gloops(f, &pp);
	/* Other loops made of a goto back to a label: unbounded. */
	for (size_t g = 0; g < pp.ngotos; g++) {
		unsigned at = start_of(pp.gotos[g]);
		for (size_t i = 0; i < pp.nlabels; i++) {
			if (!goto_targets(pp.gotos[g], pp.labels[i].label))
				continue;
			if (pp.labels[i].start < at && !gloop_of(f, pp.labels[i].label)) {
				emit_loop(f, pp.labels[i].label, 0, NULL,
					  "a loop made by a goto back to a label: not analysed");
				f->total = NULL;
				f->total_reason = "a loop of it is not bounded";
			}
		}
	}
	walk(f, s, body, NULL);
	/* A goto loop the walk did not reach as one: not analysed. */
	for (size_t i = 0; i < f->ngloops; i++) {
		if (f->gloops[i].done)
			continue;
		emit_loop(f, f->gloops[i].label, 0, NULL,
			  "a loop made by a goto back to a label: not analysed");
		f->total = NULL;
		f->total_reason = "a loop of it is not bounded";
	}
	free(s);
	if (pp.recursive || f->recursive) {
		f->total = NULL;
		f->total_reason = pp.recursive ? "it is recursive: calls itself"
					       : "it is recursive: calls itself through others";
	}
	emit_loop(f, fc, 1, f->total, f->total_reason);
	free(pp.labels);
	free(pp.gotos);
	free(pp.blocks);
	for (size_t i = 0; i < f->ngloops; i++)
		free(f->gloops[i].stmts);
	free(f->gloops);
}

/* ---- files --------------------------------------------------------------------- */

struct file_walk {
	const char *path;
	CXTranslationUnit tu;
	bound_emit_fn emit;
	void *data;
	struct bound_stats *stats;
	int stop;
	struct callgraph *cg;
};

/*
 * The call graph of the file's functions, by name (C has one function of
 * a name in a file): a function on a cycle is recursive, directly or
 * through others.  Calls through pointers are not seen.
 */
struct cg_fn {
	char *name;
	char **callees;
	size_t ncallees;
	int state; /* seen in the current search */
	int recursive;
};

struct callgraph {
	struct cg_fn *fns;
	size_t n;
};

static enum CXChildVisitResult cg_calls(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct cg_fn *fn = data;
	if (clang_getCursorKind(c) == CXCursor_CallExpr) {
		CXCursor d = clang_getCursorReferenced(c);
		if (clang_getCursorKind(d) == CXCursor_FunctionDecl) {
			CXString s = clang_getCursorSpelling(d);
			fn->callees = realloc(fn->callees, (fn->ncallees + 1) * sizeof(char *));
			if (!fn->callees)
				abort();
			fn->callees[fn->ncallees++] = strdup(clang_getCString(s));
			clang_disposeString(s);
		}
	}
	return CXChildVisit_Recurse;
}

static enum CXChildVisitResult cg_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct callgraph *cg = data;
	if (clang_getCursorKind(c) != CXCursor_FunctionDecl || !clang_isCursorDefinition(c))
		return CXChildVisit_Continue;
	cg->fns = realloc(cg->fns, (cg->n + 1) * sizeof(*cg->fns));
	if (!cg->fns)
		abort();
	struct cg_fn *fn = &cg->fns[cg->n++];
	memset(fn, 0, sizeof(*fn));
	CXString s = clang_getCursorSpelling(c);
	fn->name = strdup(clang_getCString(s));
	clang_disposeString(s);
	clang_visitChildren(c, cg_calls, fn);
	return CXChildVisit_Continue;
}

static struct cg_fn *cg_find(struct callgraph *cg, const char *name)
{
	for (size_t i = 0; i < cg->n; i++)
		if (!strcmp(cg->fns[i].name, name))
			return &cg->fns[i];
	return NULL;
}

/* Marks the functions that reach themselves through calls. */
static void cg_build(struct callgraph *cg, CXTranslationUnit tu)
{
	clang_visitChildren(clang_getTranslationUnitCursor(tu), cg_visit, cg);
	struct cg_fn **stack = calloc(cg->n + 1, sizeof(*stack));
	if (!stack)
		abort();
	for (size_t i = 0; i < cg->n; i++) {
		for (size_t k = 0; k < cg->n; k++)
			cg->fns[k].state = 0;
		size_t top = 0;
		stack[top++] = &cg->fns[i];
		cg->fns[i].state = 1;
		while (top && !cg->fns[i].recursive) {
			struct cg_fn *fn = stack[--top];
			for (size_t c = 0; c < fn->ncallees; c++) {
				struct cg_fn *to = cg_find(cg, fn->callees[c]);
				if (to == &cg->fns[i])
					cg->fns[i].recursive = 1;
				else if (to && !to->state) {
					to->state = 1;
					stack[top++] = to;
				}
			}
		}
	}
	free(stack);
}

static void cg_free(struct callgraph *cg)
{
	for (size_t i = 0; i < cg->n; i++) {
		for (size_t k = 0; k < cg->fns[i].ncallees; k++)
			free(cg->fns[i].callees[k]);
		free(cg->fns[i].callees);
		free(cg->fns[i].name);
	}
	free(cg->fns);
}

static enum CXChildVisitResult top_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	struct file_walk *fw = data;
	if (fw->stop)
		return CXChildVisit_Break;
	if (clang_getCursorKind(c) != CXCursor_FunctionDecl || !clang_isCursorDefinition(c) ||
	    !clang_Location_isFromMainFile(clang_getCursorLocation(c)))
		return CXChildVisit_Continue;
	struct kids ks = kids_of(c);
	CXCursor body = clang_getNullCursor();
	for (size_t i = 0; i < ks.n; i++)
		if (clang_getCursorKind(ks.c[i]) == CXCursor_CompoundStmt)
			body = ks.c[i];
	free(ks.c);
	if (clang_Cursor_isNull(body))
		return CXChildVisit_Continue;
	struct fn f;
	memset(&f, 0, sizeof(f));
	f.tu = fw->tu;
	f.sc = sym_ctx_new();
	if (!f.sc)
		abort();
	f.file = fw->path;
	CXString name = clang_getCursorSpelling(c);
	f.name = strdup(clang_getCString(name));
	clang_disposeString(name);
	struct cg_fn *node = cg_find(fw->cg, f.name);
	f.recursive = node && node->recursive;
	f.emit = fw->emit;
	f.data = fw->data;
	f.stats = fw->stats;
	analyse_function(&f, c, body);
	fw->stop = f.stop;
	fw->stats->z3_queries += sym_ctx_z3_queries(f.sc);
	for (size_t i = 0; i < f.nvars; i++)
		free(f.vars[i].name);
	free(f.vars);
	free(f.modified);
	free(f.nassigned);
	free(f.name);
	sym_ctx_free(f.sc);
	return CXChildVisit_Continue;
}

int bounds_analyse_file(const char *path, const char *const *args, int nargs, bound_emit_fn emit,
			void *data, char **diag, struct bound_stats *stats)
{
	CXIndex idx = clang_createIndex(0, 0);
	CXTranslationUnit tu = NULL;
	int rc = 0;
	*diag = NULL;
	stats->files++;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	enum CXErrorCode ec = clang_parseTranslationUnit2(idx, path, args, nargs, NULL, 0,
							  CXTranslationUnit_KeepGoing, &tu);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	stats->parse_s += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (ec != CXError_Success || !tu) {
		if (asprintf(diag, "%s: error: libclang cannot parse it (error %d)\n", path,
			     (int)ec) < 0)
			*diag = NULL;
		stats->failed_files++;
		clang_disposeIndex(idx);
		return 1;
	}
	size_t len = 0;
	FILE *out = open_memstream(diag, &len);
	int errors = 0;
	unsigned nd = clang_getNumDiagnostics(tu);
	for (unsigned i = 0; i < nd; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
			CXString s = clang_formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation |
								       CXDiagnostic_DisplayColumn);
			if (out)
				fprintf(out, "%s\n", clang_getCString(s));
			clang_disposeString(s);
			errors++;
		}
		clang_disposeDiagnostic(d);
	}
	if (out)
		fclose(out);
	if (errors) {
		stats->failed_files++;
		rc = 1;
	} else {
		free(*diag);
		*diag = NULL;
		struct callgraph cg = { NULL, 0 };
		cg_build(&cg, tu);
		struct file_walk fw = { path, tu, emit, data, stats, 0, &cg };
		clang_visitChildren(clang_getTranslationUnitCursor(tu), top_visit, &fw);
		rc = fw.stop ? fw.stop : 0;
		cg_free(&cg);
	}
	clang_disposeTranslationUnit(tu);
	clang_disposeIndex(idx);
	return rc;
}
