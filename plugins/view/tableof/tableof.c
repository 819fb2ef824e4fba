/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tableof - a profile's resources or models as a table.
 *
 *   perun show <profile> tableof [options] resources|models
 *
 * Python Perun builds a pandas frame of the flattened resources (or models)
 * and prints it with the tabulate library.  This view builds the same rows
 * (Python Perun's flattening of nested values, the same column set, sorted
 * column names by default) and lays them out with tabulate's rules for the
 * text formats, so "simple" output matches Python Perun's line for line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>

#define FORMATS "simple|plain|csv|tsv|json|markdown|github|pipe|grid|fancy_grid|" \
		"orgtbl|psql|rst|jira|presto|latex|latex_raw|latex_booktabs|"     \
		"latex_longtable"

static const struct perun_option tableof_options[] = {
	{"headers", "h", PERUN_OPTION_STRING, NULL, NULL, "<key>",
	 "show only these columns, in this order", PERUN_OPTION_MULTIPLE},
	{"sort-by", "s", PERUN_OPTION_STRING, NULL, NULL, "<key>",
	 "sort the rows by <key>", 0},
	{"filter-by", "f", PERUN_OPTION_STRING, NULL, NULL, "<key> <value>",
	 "keep rows where <key> is <value>; values of one key are alternatives",
	 PERUN_OPTION_PAIR | PERUN_OPTION_MULTIPLE},
	{"format", NULL, PERUN_OPTION_CHOICE, "simple", FORMATS, NULL,
	 "table format", 0},
	{"to-file", "tf", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	 "write the table to a file instead of the terminal", 0},
	{"to-stdout", "ts", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	 "write the table to standard output (the default)", 0},
	{"output-file", "of", PERUN_OPTION_STRING, NULL, NULL, "<path>",
	 "the file to write the table to (implies --to-file)", 0},
	{NULL, NULL, 0, NULL, NULL, NULL, NULL, 0},
};

/* ---- cells -------------------------------------------------------------- */

/* A number, including the NaN/Infinity markers of loaded profiles. */
static int cell_number(const json_t *v, double *out)
{
	double unused;
	return v && perun_json_number(v, out ? out : &unused) == 0;
}

/* ---- the table ---------------------------------------------------------- */

struct table {
	json_t *rows;     /* array of flat objects: column -> value */
	json_t *fields;   /* object used as a set of the column names */
	const char **columns; /* the shown columns */
	size_t ncolumns;
};

struct row_ctx {
	struct table *t;
	json_t *row;
};

static int add_item(const char *key, const json_t *value, void *data)
{
	struct row_ctx *r = data;
	if (json_object_set(r->row, key, (json_t *)value) ||
	    json_object_set(r->t->fields, key, json_null()))
		return -PERUN_EGENERIC;
	return 0;
}

/* Flatten one record into a row; resources also get "snapshots". */
static int add_row(struct table *t, const json_t *record, int is_resource)
{
	struct row_ctx r = {t, json_object()};
	int rc = r.row ? perun_items_of(record, add_item, &r, NULL) : -1;
	if (!rc && is_resource) {
		json_t *snapshot = json_object_get(r.row, "snapshot");
		if (json_object_set_new(r.row, "snapshots",
					snapshot ? json_incref(snapshot) : json_integer(0)) ||
		    json_object_set(t->fields, "snapshots", json_null()))
			rc = -1;
	}
	if (!rc)
		rc = json_array_append(t->rows, r.row);
	json_decref(r.row);
	return rc;
}

static int add_resource_row(const json_t *row, void *data)
{
	return add_row(data, row, 1);
}

static int strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Comma-separated sorted column names, for error messages; caller frees. */
static char *field_list(const struct table *t)
{
	size_t n = json_object_size(t->fields), i = 0;
	const char **names = calloc(n + 1, sizeof(*names));
	struct perun_strbuf b = PERUN_STRBUF_INIT;
	const char *key;
	json_t *unused;
	if (!names)
		return NULL;
	json_object_foreach(t->fields, key, unused)
		names[i++] = key;
	qsort(names, n, sizeof(*names), strcmp_ptr);
	for (i = 0; i < n; i++) {
		if (i)
			perun_strbuf_addstr(&b, ", ");
		perun_strbuf_addstr(&b, names[i]);
	}
	free(names);
	return perun_strbuf_detach(&b, NULL);
}

static int check_key(const struct table *t, const char *key, const char *what,
		     struct perun_error *err)
{
	if (json_object_get(t->fields, key))
		return 0;
	char *valid = field_list(t);
	int rc = perun_error_set(err, PERUN_EINVAL, "invalid %s: %s (choose from %s)", what,
				 key, valid && *valid ? valid : "nothing: the table is empty");
	free(valid);
	return rc;
}

static int choose_columns(struct table *t, const struct perun_params *params,
			  struct perun_error *err)
{
	size_t n = perun_params_count(params, "headers");
	if (n) {
		t->columns = calloc(n, sizeof(*t->columns));
		if (!t->columns)
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		for (size_t i = 0; i < n; i++) {
			const char *h = perun_params_string_at(params, "headers", i);
			int rc = check_key(t, h ? h : "", "choice for table header", err);
			if (rc)
				return rc;
			t->columns[t->ncolumns++] = h;
		}
		return 0;
	}
	n = json_object_size(t->fields);
	t->columns = calloc(n + 1, sizeof(*t->columns));
	if (!t->columns)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	const char *key;
	json_t *unused;
	json_object_foreach(t->fields, key, unused)
		t->columns[t->ncolumns++] = key;
	qsort(t->columns, t->ncolumns, sizeof(*t->columns), strcmp_ptr);
	return 0;
}

/* Does a cell equal a --filter-by value?  Numbers compare as numbers. */
static int cell_matches(const json_t *cell, const char *wanted)
{
	if (!cell)
		return 0;
	double d;
	if (cell_number(cell, &d)) {
		char *end;
		errno = 0;
		double w = strtod(wanted, &end);
		return *wanted && !*end && !errno && w == d;
	}
	char *text = perun_value_flatten_dup(cell);
	int same = text && !strcmp(text, wanted);
	free(text);
	return same;
}

/* Rows match when, for every filtered key, one of its values matches. */
static int apply_filters(struct table *t, const struct perun_params *params,
			 struct perun_error *err)
{
	json_t *pairs = json_object_get(perun_params_json(params), "filter-by");
	size_t npairs = json_array_size(pairs), i;
	for (i = 0; i < npairs; i++) {
		json_t *pair = json_array_get(pairs, i);
		int rc = check_key(t, json_string_value(json_array_get(pair, 0)),
				   "key choice for filtering", err);
		if (rc)
			return rc;
	}
	if (!npairs)
		return 0;
	json_t *kept = json_array();
	json_t *row;
	size_t r;
	if (!kept)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	json_array_foreach(t->rows, r, row) {
		int keep = 1;
		for (i = 0; keep && i < npairs; i++) {
			const char *key = json_string_value(json_array_get(json_array_get(pairs, i), 0));
			int any = 0;
			for (size_t j = 0; j < npairs && !any; j++) {
				json_t *p = json_array_get(pairs, j);
				if (!strcmp(json_string_value(json_array_get(p, 0)), key))
					any = cell_matches(json_object_get(row, key),
							   json_string_value(json_array_get(p, 1)));
			}
			keep = any;
		}
		if (keep && json_array_append(kept, row)) {
			json_decref(kept);
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		}
	}
	json_decref(t->rows);
	t->rows = kept;
	return 0;
}

struct sort_entry {
	json_t *row;
	const json_t *cell;
	char *text;
	size_t pos;
};

static int sort_cmp(const void *pa, const void *pb, void *numeric)
{
	const struct sort_entry *a = pa, *b = pb;
	int sort_numeric = *(const int *)numeric;
	/* Missing values last, like pandas' NaN. */
	if (!a->cell != !b->cell)
		return a->cell ? -1 : 1;
	if (a->cell) {
		int c;
		if (sort_numeric) {
			double x = 0, y = 0;
			cell_number(a->cell, &x);
			cell_number(b->cell, &y);
			/* NaN sorts last, as pandas puts it. */
			if (isnan(x) || isnan(y))
				c = isnan(x) - isnan(y);
			else
				c = x < y ? -1 : x > y;
		} else {
			c = strcmp(a->text ? a->text : "", b->text ? b->text : "");
		}
		if (c)
			return c;
	}
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* A stable sort: numerically when every present value is a number. */
static int apply_sort(struct table *t, const char *key, struct perun_error *err)
{
	int rc = check_key(t, key, "key choice for sorting the table", err);
	if (rc)
		return rc;
	size_t n = json_array_size(t->rows);
	struct sort_entry *e = calloc(n + 1, sizeof(*e));
	if (!e)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	int sort_numeric = 1;
	for (size_t i = 0; i < n; i++) {
		e[i].row = json_array_get(t->rows, i);
		e[i].cell = json_object_get(e[i].row, key);
		e[i].pos = i;
		if (e[i].cell && !cell_number(e[i].cell, NULL))
			sort_numeric = 0;
	}
	for (size_t i = 0; !sort_numeric && i < n; i++)
		e[i].text = e[i].cell ? perun_value_flatten_dup(e[i].cell) : NULL;
	qsort_r(e, n, sizeof(*e), sort_cmp, &sort_numeric);
	json_t *sorted = json_array();
	for (size_t i = 0; sorted && i < n; i++)
		if (json_array_append(sorted, e[i].row)) {
			json_decref(sorted);
			sorted = NULL;
		}
	for (size_t i = 0; i < n; i++)
		free(e[i].text);
	free(e);
	if (!sorted)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	json_decref(t->rows);
	t->rows = sorted;
	return 0;
}

/* ---- tabulate's layout -------------------------------------------------- */

enum cell_type { T_NONE, T_BOOL, T_INT, T_FLOAT, T_TEXT }; /* by generality */

enum align { ALIGN_LEFT, ALIGN_DECIMAL };

/* Line of a format: begin, fill, separator, end; NULL begin = no line. */
struct line_fmt {
	const char *begin, *fill, *sep, *end;
};

struct row_fmt {
	const char *begin, *sep, *end;
};

enum line_special { LINE_PLAIN, LINE_PIPE_COLONS, LINE_LATEX_BEGIN };

struct table_format {
	const char *name;
	struct line_fmt above, below_header, between, below;
	enum line_special above_special, below_header_special;
	struct row_fmt header, data;
	int padding;
	int hide_above_with_headers, hide_below_with_headers;
	int latex_escape;          /* escape LaTeX specials in cells */
	const char *latex_env;     /* tabular or longtable */
	const char *latex_top;     /* \hline or \toprule */
	int rst_escape;            /* empty first cells become ".." */
};

#define NO_LINE {NULL, NULL, NULL, NULL}
/* The LaTeX formats differ only in their rules and environment. */
#define LATEX_FORMAT(name, below_header, below, escape, env, top)                \
	{name, {"", "", "", ""}, {below_header, "", "", ""}, NO_LINE,             \
	 {below, "", "", ""}, LINE_LATEX_BEGIN, LINE_PLAIN, {"", "&", "\\\\"},      \
	 {"", "&", "\\\\"}, 1, 0, 0, escape, env, top, 0}

static const struct table_format formats[] = {
	{"simple", {"", "-", "  ", ""}, {"", "-", "  ", ""}, NO_LINE, {"", "-", "  ", ""},
	 LINE_PLAIN, LINE_PLAIN, {"", "  ", ""}, {"", "  ", ""}, 0, 1, 1, 0, NULL, NULL, 0},
	{"plain", NO_LINE, NO_LINE, NO_LINE, NO_LINE, LINE_PLAIN, LINE_PLAIN,
	 {"", "  ", ""}, {"", "  ", ""}, 0, 0, 0, 0, NULL, NULL, 0},
	{"tsv", NO_LINE, NO_LINE, NO_LINE, NO_LINE, LINE_PLAIN, LINE_PLAIN,
	 {"", "\t", ""}, {"", "\t", ""}, 0, 0, 0, 0, NULL, NULL, 0},
	{"grid", {"+", "-", "+", "+"}, {"+", "=", "+", "+"}, {"+", "-", "+", "+"},
	 {"+", "-", "+", "+"}, LINE_PLAIN, LINE_PLAIN, {"|", "|", "|"}, {"|", "|", "|"},
	 1, 0, 0, 0, NULL, NULL, 0},
	{"fancy_grid", {"╒", "═", "╤", "╕"}, {"╞", "═", "╪", "╡"}, {"├", "─", "┼", "┤"},
	 {"╘", "═", "╧", "╛"}, LINE_PLAIN, LINE_PLAIN, {"│", "│", "│"}, {"│", "│", "│"},
	 1, 0, 0, 0, NULL, NULL, 0},
	{"github", {"|", "-", "|", "|"}, {"|", "-", "|", "|"}, NO_LINE, NO_LINE,
	 LINE_PLAIN, LINE_PLAIN, {"|", "|", "|"}, {"|", "|", "|"}, 1, 1, 0, 0, NULL, NULL, 0},
	{"pipe", {"", "", "", ""}, {"", "", "", ""}, NO_LINE, NO_LINE, LINE_PIPE_COLONS,
	 LINE_PIPE_COLONS, {"|", "|", "|"}, {"|", "|", "|"}, 1, 1, 0, 0, NULL, NULL, 0},
	{"orgtbl", NO_LINE, {"|", "-", "+", "|"}, NO_LINE, NO_LINE, LINE_PLAIN, LINE_PLAIN,
	 {"|", "|", "|"}, {"|", "|", "|"}, 1, 0, 0, 0, NULL, NULL, 0},
	{"jira", NO_LINE, NO_LINE, NO_LINE, NO_LINE, LINE_PLAIN, LINE_PLAIN,
	 {"||", "||", "||"}, {"|", "|", "|"}, 1, 0, 0, 0, NULL, NULL, 0},
	{"presto", NO_LINE, {"", "-", "+", ""}, NO_LINE, NO_LINE, LINE_PLAIN, LINE_PLAIN,
	 {"", "|", ""}, {"", "|", ""}, 1, 0, 0, 0, NULL, NULL, 0},
	{"psql", {"+", "-", "+", "+"}, {"|", "-", "+", "|"}, NO_LINE, {"+", "-", "+", "+"},
	 LINE_PLAIN, LINE_PLAIN, {"|", "|", "|"}, {"|", "|", "|"}, 1, 0, 0, 0, NULL, NULL, 0},
	{"rst", {"", "=", "  ", ""}, {"", "=", "  ", ""}, NO_LINE, {"", "=", "  ", ""},
	 LINE_PLAIN, LINE_PLAIN, {"", "  ", ""}, {"", "  ", ""}, 0, 0, 0, 0, NULL, NULL, 1},
	LATEX_FORMAT("latex", "\\hline", "\\hline\n\\end{tabular}", 1, "tabular", "\\hline"),
	LATEX_FORMAT("latex_raw", "\\hline", "\\hline\n\\end{tabular}", 0, "tabular", "\\hline"),
	LATEX_FORMAT("latex_booktabs", "\\midrule", "\\bottomrule\n\\end{tabular}", 1,
		     "tabular", "\\toprule"),
	LATEX_FORMAT("latex_longtable", "\\hline\n\\endhead", "\\hline\n\\end{longtable}", 1,
		     "longtable", "\\hline"),
};

/* Width as Python's len(): code points of UTF-8 text. */
static size_t text_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static int is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* s without leading and trailing white space; a new string. */
static char *strip_dup(const char *s)
{
	while (is_space(*s))
		s++;
	size_t n = strlen(s);
	while (n && is_space(s[n - 1]))
		n--;
	return strndup(s, n);
}

/* Python's int(s) accepts it (white space, sign, digits, '_' between). */
static int parses_as_int(const char *s)
{
	while (is_space(*s))
		s++;
	if (*s == '+' || *s == '-')
		s++;
	if (!(*s >= '0' && *s <= '9'))
		return 0;
	for (; *s && !is_space(*s); s++)
		if (!(*s >= '0' && *s <= '9') &&
		    !(*s == '_' && s[1] >= '0' && s[1] <= '9'))
			return 0;
	while (is_space(*s))
		s++;
	return !*s;
}

/* tabulate's _isnumber: float() accepts it, and inf/nan only spelled so. */
static int parses_as_number(const char *s, double *out)
{
	char *end;
	if (strpbrk(s, "xXpP_"))
		return 0; /* hex floats are C's, not Python's */
	errno = 0;
	double d = strtod(s, &end);
	if (end == s)
		return 0;
	while (is_space(*end))
		end++;
	if (*end)
		return 0;
	if (isinf(d) || isnan(d)) {
		char *t = strip_dup(s);
		int ok = t && (!strcasecmp(t, "inf") || !strcasecmp(t, "-inf") ||
			       !strcasecmp(t, "nan"));
		free(t);
		if (!ok)
			return 0;
	}
	if (out)
		*out = d;
	return 1;
}

static enum cell_type text_type(const char *s)
{
	if (!strcmp(s, "True") || !strcmp(s, "False"))
		return T_BOOL;
	if (parses_as_int(s))
		return T_INT;
	if (parses_as_number(s, NULL))
		return T_FLOAT;
	return T_TEXT;
}

/* tabulate's _afterpoint: digits after the decimal point, or -1. */
static int after_point(const char *s)
{
	if (!parses_as_number(s, NULL) || parses_as_int(s))
		return -1;
	const char *p = strrchr(s, '.');
	if (!p) {
		p = strrchr(s, 'e');
		const char *upper = strrchr(s, 'E');
		if (!p || (upper && upper > p))
			p = upper;
	}
	return p ? (int)(strlen(s) - (size_t)(p - s) - 1) : -1;
}

/* format(float(s), "g") */
static char *format_g(const char *s)
{
	double d = 0;
	char out[64];
	parses_as_number(s, &d);
	if (isnan(d))
		return strdup("nan");
	snprintf(out, sizeof(out), "%g", d);
	return strdup(out);
}

struct cell {
	char *text;         /* as tabulate formats it, then padded */
	enum cell_type type;
	int missing;        /* None: tabulate's missingval "" */
};

struct layout {
	size_t ncols, nrows;
	char **headers;     /* padded */
	struct cell *cells; /* nrows * ncols */
	size_t *widths;
	enum align *aligns;
	int have_aligns;    /* tabulate has no alignments for an empty table */
};

static void pad_to(struct perun_strbuf *b, const char *s, size_t width, int left)
{
	size_t w = text_width(s);
	if (left)
		perun_strbuf_addrepeat(b, " ", width > w ? width - w : 0);
	perun_strbuf_addstr(b, s);
	if (!left)
		perun_strbuf_addrepeat(b, " ", width > w ? width - w : 0);
}

static char *padded(const char *s, size_t width, int left)
{
	struct perun_strbuf b = PERUN_STRBUF_INIT;
	pad_to(&b, s, width, left);
	return perun_strbuf_detach(&b, NULL);
}

/* Python's str() of a cell value; NaN for a missing one, as pandas has. */
static char *cell_source(const json_t *v, int *missing)
{
	*missing = json_is_null(v);
	if (!v)
		return strdup("nan");
	if (json_is_null(v))
		return strdup("");
	return perun_value_flatten_dup(v);
}

static int layout_build(struct layout *l, const struct table *t,
			const struct table_format *fmt)
{
	l->ncols = t->ncolumns;
	l->nrows = json_array_size(t->rows);
	l->headers = calloc(l->ncols + 1, sizeof(*l->headers));
	l->cells = calloc(l->ncols * l->nrows + 1, sizeof(*l->cells));
	l->widths = calloc(l->ncols + 1, sizeof(*l->widths));
	l->aligns = calloc(l->ncols + 1, sizeof(*l->aligns));
	if (!l->headers || !l->cells || !l->widths || !l->aligns)
		return -1;
	l->have_aligns = l->nrows > 0;
	for (size_t c = 0; c < l->ncols; c++) {
		const char *name = t->columns[c];
		if (fmt->rst_escape && c == 0 && !*name)
			name = "..";
		size_t width = text_width(name) + 2; /* tabulate's MIN_PADDING */
		enum cell_type type = T_BOOL;
		for (size_t r = 0; r < l->nrows; r++) {
			struct cell *cell = &l->cells[r * l->ncols + c];
			json_t *v = json_object_get(json_array_get(t->rows, r), t->columns[c]);
			cell->text = cell_source(v, &cell->missing);
			if (!cell->text)
				return -1;
			if (fmt->rst_escape && c == 0 && json_is_string(v)) {
				char *s = strip_dup(cell->text);
				if (s && !*s) {
					free(cell->text);
					cell->text = strdup("..");
				}
				free(s);
				if (!cell->text)
					return -1;
			}
			cell->type = cell->missing ? T_NONE : text_type(cell->text);
			if (cell->type > type)
				type = cell->type;
		}
		enum align align = type == T_INT || type == T_FLOAT ? ALIGN_DECIMAL : ALIGN_LEFT;
		int max_after = -1;
		for (size_t r = 0; r < l->nrows; r++) {
			struct cell *cell = &l->cells[r * l->ncols + c];
			char *formatted = cell->missing ? strdup("")
					  : type == T_FLOAT ? format_g(cell->text)
					  : align == ALIGN_LEFT ? strip_dup(cell->text)
					  : strdup(cell->text);
			if (!formatted)
				return -1;
			free(cell->text);
			cell->text = formatted;
			if (align == ALIGN_DECIMAL && after_point(formatted) > max_after)
				max_after = after_point(formatted);
		}
		for (size_t r = 0; r < l->nrows; r++) {
			struct cell *cell = &l->cells[r * l->ncols + c];
			if (align == ALIGN_DECIMAL) {
				struct perun_strbuf b = PERUN_STRBUF_INIT;
				perun_strbuf_addstr(&b, cell->text);
				perun_strbuf_addrepeat(&b, " ", (size_t)(max_after - after_point(cell->text)));
				char *s = perun_strbuf_detach(&b, NULL);
				if (!s)
					return -1;
				free(cell->text);
				cell->text = s;
			}
			if (text_width(cell->text) > width)
				width = text_width(cell->text);
		}
		for (size_t r = 0; r < l->nrows; r++) {
			struct cell *cell = &l->cells[r * l->ncols + c];
			char *s = padded(cell->text, width, align == ALIGN_DECIMAL);
			if (!s)
				return -1;
			free(cell->text);
			cell->text = s;
		}
		l->widths[c] = width;
		l->aligns[c] = align;
		l->headers[c] = padded(name, width, l->nrows && align == ALIGN_DECIMAL);
		if (!l->headers[c])
			return -1;
	}
	return 0;
}

static void layout_release(struct layout *l)
{
	for (size_t c = 0; l->headers && c < l->ncols; c++)
		free(l->headers[c]);
	for (size_t i = 0; l->cells && i < l->ncols * l->nrows; i++)
		free(l->cells[i].text);
	free(l->headers);
	free(l->cells);
	free(l->widths);
	free(l->aligns);
}

/* Append a line without its trailing white space, as tabulate does. */
static void add_stripped(struct perun_strbuf *out, struct perun_strbuf *line)
{
	size_t n = line->len;
	while (n && is_space(line->buf[n - 1]))
		n--;
	if (line->buf)
		perun_strbuf_add(out, line->buf, n);
	if (line->failed)
		out->failed = 1;
	perun_strbuf_addstr(out, "\n");
	perun_strbuf_release(line);
}

static void add_line(struct perun_strbuf *out, const struct layout *l,
		     const struct table_format *fmt, const struct line_fmt *lf,
		     enum line_special special)
{
	struct perun_strbuf line = PERUN_STRBUF_INIT;
	size_t pad = 2 * (size_t)fmt->padding;
	if (special == LINE_PIPE_COLONS) {
		perun_strbuf_addstr(&line, "|");
		for (size_t c = 0; c < l->ncols; c++) {
			size_t w = l->widths[c] + pad;
			if (!l->have_aligns) {
				perun_strbuf_addrepeat(&line, "-", w);
			} else if (l->aligns[c] == ALIGN_DECIMAL) {
				perun_strbuf_addrepeat(&line, "-", w - 1);
				perun_strbuf_addstr(&line, ":");
			} else {
				perun_strbuf_addstr(&line, ":");
				perun_strbuf_addrepeat(&line, "-", w - 1);
			}
			perun_strbuf_addstr(&line, "|");
		}
		perun_strbuf_addstr(&line, "\n");
		if (line.failed)
			out->failed = 1;
		else
			perun_strbuf_add(out, line.buf, line.len);
		perun_strbuf_release(&line);
		return;
	}
	if (special == LINE_LATEX_BEGIN) {
		perun_strbuf_addstr(out, "\\begin{");
		perun_strbuf_addstr(out, fmt->latex_env);
		perun_strbuf_addstr(out, "}{");
		for (size_t c = 0; l->have_aligns && c < l->ncols; c++)
			perun_strbuf_addstr(out, l->aligns[c] == ALIGN_DECIMAL ? "r" : "l");
		perun_strbuf_addstr(out, "}\n");
		perun_strbuf_addstr(out, fmt->latex_top);
		perun_strbuf_addstr(out, "\n");
		return;
	}
	perun_strbuf_addstr(&line, lf->begin);
	for (size_t c = 0; c < l->ncols; c++) {
		if (c)
			perun_strbuf_addstr(&line, lf->sep);
		perun_strbuf_addrepeat(&line, lf->fill, l->widths[c] + pad);
	}
	perun_strbuf_addstr(&line, lf->end);
	add_stripped(out, &line);
}

static void add_latex_escaped(struct perun_strbuf *b, const char *s)
{
	static const char *const rules[][2] = {
		{"&", "\\&"}, {"%", "\\%"}, {"$", "\\$"}, {"#", "\\#"}, {"_", "\\_"},
		{"^", "\\^{}"}, {"{", "\\{"}, {"}", "\\}"}, {"~", "\\textasciitilde{}"},
		{"\\", "\\textbackslash{}"}, {"<", "\\ensuremath{<}"},
		{">", "\\ensuremath{>}"},
	};
	for (; *s; s++) {
		const char *repl = NULL;
		for (size_t i = 0; !repl && i < sizeof(rules) / sizeof(rules[0]); i++)
			if (*s == rules[i][0][0])
				repl = rules[i][1];
		if (repl)
			perun_strbuf_addstr(b, repl);
		else
			perun_strbuf_add(b, s, 1);
	}
}

static void add_row_line(struct perun_strbuf *out, const struct table_format *fmt,
			 const struct row_fmt *rf, char *const *cells, size_t stride,
			 size_t ncols)
{
	struct perun_strbuf line = PERUN_STRBUF_INIT;
	perun_strbuf_addstr(&line, rf->begin);
	for (size_t c = 0; c < ncols; c++) {
		const char *text = cells[c * stride];
		if (c)
			perun_strbuf_addstr(&line, rf->sep);
		perun_strbuf_addrepeat(&line, " ", (size_t)fmt->padding);
		if (fmt->latex_escape)
			add_latex_escaped(&line, text);
		else
			perun_strbuf_addstr(&line, text);
		perun_strbuf_addrepeat(&line, " ", (size_t)fmt->padding);
	}
	perun_strbuf_addstr(&line, rf->end);
	add_stripped(out, &line);
}

/* The table as tabulate would print it; "" for no columns and no rows. */
static char *render_tabulate(const struct table *t, const struct table_format *fmt)
{
	struct layout l = {0};
	struct perun_strbuf out = PERUN_STRBUF_INIT;
	int has_headers = t->ncolumns > 0;
	if (layout_build(&l, t, fmt)) {
		layout_release(&l);
		return NULL;
	}
	if (!has_headers && !l.nrows) {
		layout_release(&l);
		return strdup("");
	}
	if (fmt->above.begin && !(has_headers && fmt->hide_above_with_headers))
		add_line(&out, &l, fmt, &fmt->above, fmt->above_special);
	if (has_headers) {
		add_row_line(&out, fmt, &fmt->header, l.headers, 1, l.ncols);
		if (fmt->below_header.begin)
			add_line(&out, &l, fmt, &fmt->below_header, fmt->below_header_special);
	}
	/* Cells are stored row-major: pass each row as a strided array. */
	char **row = calloc(l.ncols + 1, sizeof(*row));
	for (size_t r = 0; row && r < l.nrows; r++) {
		for (size_t c = 0; c < l.ncols; c++)
			row[c] = l.cells[r * l.ncols + c].text;
		if (r && fmt->between.begin)
			add_line(&out, &l, fmt, &fmt->between, LINE_PLAIN);
		add_row_line(&out, fmt, &fmt->data, row, 1, l.ncols);
	}
	if (!row)
		out.failed = 1;
	free(row);
	if (fmt->below.begin && !(has_headers && fmt->hide_below_with_headers))
		add_line(&out, &l, fmt, &fmt->below, LINE_PLAIN);
	layout_release(&l);
	return perun_strbuf_detach(&out, NULL);
}

/* ---- csv and json ------------------------------------------------------- */

static void add_csv_field(struct perun_strbuf *b, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		perun_strbuf_addstr(b, s);
		return;
	}
	perun_strbuf_addstr(b, "\"");
	for (; *s; s++) {
		if (*s == '"')
			perun_strbuf_addstr(b, "\"\"");
		else
			perun_strbuf_add(b, s, 1);
	}
	perun_strbuf_addstr(b, "\"");
}

/* RFC 4180 fields, raw values (no rounding), missing values empty. */
static char *render_csv(const struct table *t)
{
	struct perun_strbuf b = PERUN_STRBUF_INIT;
	size_t r;
	json_t *row;
	for (size_t c = 0; c < t->ncolumns; c++) {
		if (c)
			perun_strbuf_addstr(&b, ",");
		add_csv_field(&b, t->columns[c]);
	}
	if (t->ncolumns)
		perun_strbuf_addstr(&b, "\n");
	json_array_foreach(t->rows, r, row) {
		for (size_t c = 0; c < t->ncolumns; c++) {
			json_t *v = json_object_get(row, t->columns[c]);
			char *text = v && !json_is_null(v) ? perun_value_flatten_dup(v) : strdup("");
			if (c)
				perun_strbuf_addstr(&b, ",");
			if (text)
				add_csv_field(&b, text);
			else
				b.failed = 1;
			free(text);
		}
		perun_strbuf_addstr(&b, "\n");
	}
	return perun_strbuf_detach(&b, NULL);
}

static void add_json_value(struct perun_strbuf *b, const json_t *v)
{
	double d;
	if (!v || json_is_null(v) || (cell_number(v, &d) && !isfinite(d))) {
		perun_strbuf_addstr(b, "null");
	} else if (json_is_string(v)) {
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_ENSURE_ASCII);
		if (s)
			perun_strbuf_addstr(b, s);
		else
			b->failed = 1;
		free(s);
	} else {
		/* Numbers in Python's shortest form, booleans lowercase. */
		char *s = json_is_boolean(v) ? strdup(json_is_true(v) ? "true" : "false")
					     : perun_value_flatten_dup(v);
		if (s)
			perun_strbuf_addstr(b, s);
		else
			b->failed = 1;
		free(s);
	}
}

/* {"version": 1, "table": ..., "headers": [...], "rows": [{...}, ...]} */
static char *render_json(const struct table *t, const char *what)
{
	struct perun_strbuf b = PERUN_STRBUF_INIT;
	json_t *name = json_string(what);
	perun_strbuf_addstr(&b, "{\n  \"version\": 1,\n  \"table\": ");
	add_json_value(&b, name);
	perun_strbuf_addstr(&b, ",\n  \"headers\": [");
	for (size_t c = 0; c < t->ncolumns; c++) {
		json_t *h = json_string(t->columns[c]);
		perun_strbuf_addstr(&b, c ? ", " : "");
		add_json_value(&b, h);
		json_decref(h);
	}
	perun_strbuf_addstr(&b, "],\n  \"rows\": [");
	size_t r;
	json_t *row;
	json_array_foreach(t->rows, r, row) {
		perun_strbuf_addstr(&b, r ? ",\n    {" : "\n    {");
		for (size_t c = 0; c < t->ncolumns; c++) {
			json_t *h = json_string(t->columns[c]);
			perun_strbuf_addstr(&b, c ? ", " : "");
			add_json_value(&b, h);
			perun_strbuf_addstr(&b, ": ");
			add_json_value(&b, json_object_get(row, t->columns[c]));
			json_decref(h);
		}
		perun_strbuf_addstr(&b, "}");
	}
	perun_strbuf_addstr(&b, json_array_size(t->rows) ? "\n  ]\n}" : "]\n}");
	json_decref(name);
	return perun_strbuf_detach(&b, NULL);
}

/* ---- output ------------------------------------------------------------- */

/* Python Perun's default name: "<what>_of_" + the profile name template
 * "%collector%-%cmd%-%workload%", without the date that would make it
 * differ on every run. */
static char *default_file_name(const struct perun_profile *p, const char *what)
{
	const char *cmd = perun_profile_header(p, "cmd");
	const char *workload = perun_profile_header(p, "workload");
	const char *collector = perun_profile_collector(p);
	const char *cmd_base = strrchr(cmd, '/') ? strrchr(cmd, '/') + 1 : cmd;
	const char *wl_base = strrchr(workload, '/') ? strrchr(workload, '/') + 1 : workload;
	char *name;
	if (asprintf(&name, "%s_of_%s-[%s]-[%s]", what, *collector ? collector : "_",
		     *cmd_base ? cmd_base : "_", *wl_base ? wl_base : "_") < 0)
		return NULL;
	/* Perun's sanitize_filepart, on the parts taken from the profile. */
	for (char *s = name + strlen(what) + 4; *s; s++)
		if (*s != '[' && *s != ']' && strchr("# %&{}\\<>*?/ $!'\":@", *s))
			*s = '_';
	return name;
}

static int tableof_show(struct perun_view_ctx *ctx, struct perun_error *err)
{
	struct table t = {0};
	const struct perun_params *params = ctx->params;
	char *text = NULL, *file = NULL;
	int rc = 0;

	if (ctx->argc < 1)
		return perun_error_set(err, PERUN_EINVAL,
				       "say what to show: resources or models");
	const char *what = ctx->argv[0];
	int is_resources = !strcmp(what, "resources");
	if (!is_resources && strcmp(what, "models"))
		return perun_error_set(err, PERUN_EINVAL,
				       "unknown table '%s' (choose from resources, models)",
				       what);
	if (ctx->argc > 1)
		return perun_error_set(err, PERUN_EINVAL,
				       "unexpected argument '%s'", ctx->argv[1]);
	int to_file = perun_params_bool(params, "to-file", 0) ||
		      perun_params_has(params, "output-file");
	if (to_file && perun_params_bool(params, "to-stdout", 0))
		return perun_error_set(err, PERUN_EINVAL,
				       "'--to-stdout' excludes '--to-file' and "
				       "'--output-file'");

	t.rows = json_array();
	t.fields = json_object();
	if (!t.rows || !t.fields) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	if (is_resources) {
		/* Python Perun always has the "snapshots" column. */
		rc = json_object_set(t.fields, "snapshots", json_null());
		if (!rc)
			rc = perun_profile_foreach_resource(ctx->profile, add_resource_row, &t);
	} else {
		size_t i;
		json_t *model;
		json_array_foreach(json_object_get(perun_profile_json(ctx->profile), "models"),
				   i, model) {
			if (json_is_object(model) && (rc = add_row(&t, model, 0)))
				break;
		}
	}
	if (rc) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	rc = choose_columns(&t, params, err);
	if (!rc && perun_params_has(params, "sort-by"))
		rc = apply_sort(&t, perun_params_string(params, "sort-by", ""), err);
	if (!rc)
		rc = apply_filters(&t, params, err);
	if (rc)
		goto out;

	const char *format = perun_params_string(params, "format", "simple");
	if (!strcmp(format, "csv")) {
		text = render_csv(&t);
	} else if (!strcmp(format, "json")) {
		text = render_json(&t, what);
	} else {
		const struct table_format *fmt = &formats[0];
		if (!strcmp(format, "markdown"))
			format = "pipe";
		for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
			if (!strcmp(formats[i].name, format))
				fmt = &formats[i];
		text = render_tabulate(&t, fmt);
	}
	if (!text) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	/* Every line ends with a newline; tabulate leaves the last one off. */
	size_t len = strlen(text);
	if (len && text[len - 1] != '\n') {
		char *nl = realloc(text, len + 2);
		if (!nl) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			goto out;
		}
		text = nl;
		memcpy(text + len, "\n", 2);
		len++;
	}
	if (to_file) {
		const char *path = perun_params_string(params, "output-file", NULL);
		if (!path) {
			file = default_file_name(ctx->profile, what);
			path = file;
		}
		if (!path)
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		else
			rc = perun_file_write_atomic(path, text, len, err);
	} else if (fwrite(text, 1, len, ctx->out) != len || fflush(ctx->out)) {
		rc = perun_error_set_errno(err, PERUN_EGENERIC, errno,
					   "cannot write the table");
	}
out:
	free(text);
	free(file);
	free(t.columns);
	json_decref(t.rows);
	json_decref(t.fields);
	return rc;
}

static const struct perun_view_ops tableof_ops = {
	.size = sizeof(struct perun_view_ops),
	.show = tableof_show,
};

PERUN_PLUGIN_DEFINE(tableof, PERUN_KIND_VIEW, .version = "1.0",
		    .summary = "resources and models as tables",
		    .options = tableof_options, .ops = &tableof_ops);
