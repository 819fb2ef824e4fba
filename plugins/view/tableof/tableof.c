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
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>

#define FORMATS                                                                                    \
	"simple|plain|csv|tsv|json|markdown|github|pipe|grid|fancy_grid|"                          \
	"orgtbl|psql|rst|jira|presto|latex|latex_raw|latex_booktabs|"                              \
	"latex_longtable"

static const struct perun_option tableof_options[] = {
	{ "headers", "h", PERUN_OPTION_STRING, NULL, NULL, "<key>",
	  "show only these columns, in this order", PERUN_OPTION_MULTIPLE },
	{ "sort-by", "s", PERUN_OPTION_STRING, NULL, NULL, "<key>", "sort the rows by <key>", 0 },
	{ "filter-by", "f", PERUN_OPTION_STRING, NULL, NULL, "<key> <value>",
	  "keep rows where <key> is <value>; values of one key are alternatives",
	  PERUN_OPTION_PAIR | PERUN_OPTION_MULTIPLE },
	{ "format", NULL, PERUN_OPTION_CHOICE, "simple", FORMATS, NULL, "table format", 0 },
	{ "to-file", "tf", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "write the table to a file instead of the terminal", 0 },
	{ "to-stdout", "ts", PERUN_OPTION_BOOL, NULL, NULL, NULL,
	  "write the table to standard output (the default)", 0 },
	{ "output-file", "of", PERUN_OPTION_STRING, NULL, NULL, "<path>",
	  "the file to write the table to (implies --to-file)", 0 },
	{ NULL, NULL, 0, NULL, NULL, NULL, NULL, 0 },
};

/* ---- cells -------------------------------------------------------------- */

/*
 * A cell is a scalar node of the profile's compact form (perun/jsonview.h):
 * a column's value read in place, where a table of a million resources has
 * most of its cells, or a node of the table's own for the values that come
 * as jansson ones (persistent keys and models, flattened by perun_items_of).
 * NULL is a missing value.  Python's NaN and infinities are reals.
 */

/* A number: integers and reals, NaN and the infinities included. */
static int cell_number(const struct perun_jv *v, double *out)
{
	double unused;
	return perun_jv_number(v, out ? out : &unused) == 0;
}

/* A string cell's text, up to a NUL as C's strings end; its length. */
static size_t cell_string_len(const struct perun_jv *v)
{
	return strnlen(v->u.s, perun_jv_len(v));
}

/* Python's str() of a number cell (an integer or a real) in out; its
 * length. */
static size_t number_str(const struct perun_jv *v, char out[32])
{
	if (perun_jv_type(v) == PERUN_JV_REAL) {
		perun_python_float_str(v->u.d, out);
		return strlen(out);
	}
	/* Not printf: tables have millions of these. */
	unsigned long long u =
		v->u.i < 0 ? 0ull - (unsigned long long)v->u.i : (unsigned long long)v->u.i;
	char digits[24], *p = digits + sizeof(digits);
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v->u.i < 0)
		*--p = '-';
	size_t len = (size_t)(digits + sizeof(digits) - p);
	memcpy(out, p, len);
	out[len] = '\0';
	return len;
}

/* Python's str() of a cell (perun_value_flatten_add's text of the same
 * value), appended to b; nothing for a missing one. */
static void add_cell_str(struct perun_strbuf *b, const struct perun_jv *v)
{
	char num[32];
	switch (perun_jv_type(v)) {
	case PERUN_JV_STRING: perun_strbuf_add(b, v->u.s, cell_string_len(v)); return;
	case PERUN_JV_INTEGER:
	case PERUN_JV_REAL: perun_strbuf_add(b, num, number_str(v, num)); return;
	case PERUN_JV_TRUE: strcpy(num, "True"); break;
	case PERUN_JV_FALSE: strcpy(num, "False"); break;
	default: strcpy(num, v ? "None" : ""); break;
	}
	perun_strbuf_addstr(b, num);
}

/* The same text as a string of its own; NULL without memory. */
static char *cell_str_dup(const struct perun_jv *v)
{
	struct perun_strbuf b = PERUN_STRBUF_INIT;
	perun_strbuf_add(&b, "", 0);
	add_cell_str(&b, v);
	return perun_strbuf_detach(&b, NULL);
}

/* ---- the table ---------------------------------------------------------- */

/*
 * Rows come in segments: a resource type's rows, or a row of its own (a
 * model, a row of a type whose columns hold lists or objects).  A segment's
 * cells by column id, cells[start .. start + len), are its values, or for
 * a type's column of scalars (is_column set) the first row's value: the
 * column's values are nodes one after another, so row r's is that plus r.
 * So a table of a million resources is a few pointers a resource type, not
 * one a cell.  A column first seen after the segment, or one it lacks, is
 * NULL there: missing.
 */
struct segment {
	size_t first; /* its first row */
	size_t start, len;
};

struct table {
	json_t *fields; /* column name -> its id, an integer */
	char **names;	/* column names by id */
	size_t nfields, names_alloc;
	const struct perun_jv **cells;
	unsigned char *is_column;
	size_t ncells, cells_alloc, is_column_alloc;
	struct segment *segs;
	size_t nsegs, segs_alloc;
	uint32_t *row_seg; /* a row's segment */
	size_t nrows, row_seg_alloc;
	size_t *order; /* the rows shown, in order */
	size_t nshown;
	const char **columns; /* the shown columns */
	size_t *colids;	      /* and their ids */
	size_t ncolumns;
	size_t *last_ids; /* ids of the previous row's items, in order */
	size_t nlast, last_alloc, item;
	struct perun_jv **owned; /* the nodes of jansson values */
	size_t nowned, owned_alloc;
};

/* "snapshots" of a row without "snapshot" */
static const struct perun_jv zero_node = { PERUN_JV_INTEGER, 1, { .i = 0 } };

/* Room for need elements of size in *v; 0, or -1 without memory. */
static int reserve(void *v, size_t *alloc, size_t need, size_t size)
{
	if (need <= *alloc)
		return 0;
	size_t n = *alloc ? *alloc : 64;
	while (n < need)
		n *= 2;
	void *grown = realloc(*(void **)v, n * size);
	if (!grown)
		return -1;
	perun_advise_huge_pages(grown, n * size);
	*(void **)v = grown;
	*alloc = n;
	return 0;
}

/* A node of the table's own for an item's value (a scalar or a string, the
 * markers of non-finite numbers as reals); NULL without memory. */
static const struct perun_jv *own_node(struct table *t, const json_t *value)
{
	struct perun_jv *v = calloc(1, sizeof(*v));
	double d;
	if (!v || reserve(&t->owned, &t->owned_alloc, t->nowned + 1, sizeof(*t->owned))) {
		free(v);
		return NULL;
	}
	v->next = 1;
	if (json_is_integer(value)) {
		v->tag = PERUN_JV_INTEGER;
		v->u.i = json_integer_value(value);
	} else if (!perun_json_number(value, &d)) {
		v->tag = PERUN_JV_REAL;
		v->u.d = d;
	} else if (json_is_string(value)) {
		size_t len = json_string_length(value);
		char *s = len <= PERUN_JV_MAX_LEN ? malloc(len + 1) : NULL;
		if (!s) {
			free(v);
			return NULL;
		}
		memcpy(s, json_string_value(value), len + 1);
		v->tag = PERUN_JV_STRING | (uint32_t)len << 3;
		v->u.s = s;
	} else {
		v->tag = json_is_true(value)	? PERUN_JV_TRUE
			 : json_is_false(value) ? PERUN_JV_FALSE
						: PERUN_JV_NULL;
	}
	t->owned[t->nowned++] = v;
	return v;
}

/* The id of column key, or -1 when there is none. */
static long known_id(const struct table *t, const char *key)
{
	json_t *id = json_object_get(t->fields, key);
	return id ? (long)json_integer_value(id) : -1;
}

/* The id of column key, a new one when it is new; -1 without memory. */
static long field_id(struct table *t, const char *key)
{
	long known = known_id(t, key);
	if (known >= 0)
		return known;
	if (reserve(&t->names, &t->names_alloc, t->nfields + 1, sizeof(*t->names)))
		return -1;
	char *name = strdup(key);
	if (!name || json_object_set_new(t->fields, key, json_integer((json_int_t)t->nfields))) {
		free(name);
		return -1;
	}
	t->names[t->nfields] = name;
	return (long)t->nfields++;
}

static const struct perun_jv *cell_of(const struct table *t, size_t row, size_t id)
{
	const struct segment *s = &t->segs[t->row_seg[row]];
	if (id >= s->len)
		return NULL;
	const struct perun_jv *v = t->cells[s->start + id];
	return t->is_column[s->start + id] ? v + (row - s->first) : v;
}

/* Room for the cells of every column known after the last segment's. */
static int reserve_cells(struct table *t, size_t start)
{
	return reserve(&t->cells, &t->cells_alloc, start + t->nfields, sizeof(*t->cells)) ||
	       reserve(&t->is_column, &t->is_column_alloc, start + t->nfields, 1);
}

/* A new last segment of nrows rows, of every column known, all missing. */
static int new_segment(struct table *t, size_t nrows)
{
	if (t->nsegs >= UINT32_MAX ||
	    reserve(&t->segs, &t->segs_alloc, t->nsegs + 1, sizeof(*t->segs)) ||
	    reserve(&t->row_seg, &t->row_seg_alloc, t->nrows + nrows, sizeof(*t->row_seg)) ||
	    reserve_cells(t, t->ncells))
		return -1;
	if (t->nfields) { /* no columns yet: cells may still be NULL */
		memset(t->cells + t->ncells, 0, t->nfields * sizeof(*t->cells));
		memset(t->is_column + t->ncells, 0, t->nfields);
	}
	t->segs[t->nsegs] = (struct segment){ t->nrows, t->ncells, t->nfields };
	for (size_t r = 0; r < nrows; r++)
		t->row_seg[t->nrows + r] = (uint32_t)t->nsegs;
	t->nsegs++;
	t->nrows += nrows;
	t->ncells += t->nfields;
	t->item = 0;
	return 0;
}

static int new_row(struct table *t)
{
	return new_segment(t, 1);
}

/* Set column id of the last segment to value, a column's first value when
 * is_column is set. */
static int set_segment_cell(struct table *t, size_t id, const struct perun_jv *value, int is_column)
{
	struct segment *s = &t->segs[t->nsegs - 1];
	if (id >= s->len) {
		/* The last segment grows in place to every column known. */
		if (reserve_cells(t, s->start))
			return -1;
		memset(t->cells + s->start + s->len, 0, (t->nfields - s->len) * sizeof(*t->cells));
		memset(t->is_column + s->start + s->len, 0, t->nfields - s->len);
		s->len = t->nfields;
		t->ncells = s->start + s->len;
	}
	t->cells[s->start + id] = value;
	t->is_column[s->start + id] = (unsigned char)is_column;
	return 0;
}

static int set_cell(struct table *t, size_t id, const struct perun_jv *value)
{
	return set_segment_cell(t, id, value, 0);
}

static int add_item(const char *key, const json_t *value, void *data)
{
	struct table *t = data;
	size_t i = t->item++;
	long id;
	const struct perun_jv *node = own_node(t, value);
	if (!node)
		return -PERUN_EGENERIC;
	/* Records of one kind have the same items in the same order: the
	 * previous record's column of this item is tried before a lookup. */
	if (i < t->nlast && !strcmp(t->names[t->last_ids[i]], key))
		id = (long)t->last_ids[i];
	else if ((id = field_id(t, key)) < 0)
		return -PERUN_EGENERIC;
	if (reserve(&t->last_ids, &t->last_alloc, i + 1, sizeof(*t->last_ids)))
		return -PERUN_EGENERIC;
	t->last_ids[i] = (size_t)id;
	return set_cell(t, (size_t)id, node) ? -PERUN_EGENERIC : 0;
}

/* The flattened items of record into the last row. */
static int add_items(struct table *t, const json_t *record)
{
	t->item = 0;
	int rc = perun_items_of(record, add_item, t, NULL);
	t->nlast = t->item;
	return rc;
}

/* A model's row. */
static int add_model_row(struct table *t, const json_t *model)
{
	return new_row(t) || add_items(t, model);
}

/* The "snapshots" of the last segment: its "snapshot", or 0. */
static int set_snapshots(struct table *t, size_t snapshots)
{
	const struct segment *s = &t->segs[t->nsegs - 1];
	long id = known_id(t, "snapshot");
	if (id < 0 || (size_t)id >= s->len || !t->cells[s->start + (size_t)id])
		return set_cell(t, snapshots, &zero_node);
	return set_segment_cell(t, snapshots, t->cells[s->start + (size_t)id],
				t->is_column[s->start + (size_t)id]);
}

/*
 * The rows of one resource type, as Python Perun flattens the resources
 * (perun_profile_foreach_resource's rows): the persistent items, then
 * every column's value, then "snapshots", the value of "snapshot" or 0.
 * The persistent items are flattened once.  A type whose columns hold
 * scalars is one segment, its columns read in place; a type with a column
 * holding lists or objects is flattened row by row, a segment a row.
 */
static int add_type_rows(struct table *t, const struct perun_type_ref *type)
{
	const struct perun_jv *cols = type->columns, *name, *values;
	size_t ncols = perun_jv_len(cols), nrows = ncols ? perun_jv_len(cols + 2) : 1, c;
	size_t npersist = 0;
	long *ids = NULL;
	const struct perun_jv **at = NULL, **persist = NULL;
	unsigned char *scalars = NULL;
	json_t *persistent = NULL;
	int rc = -1, all_scalars = 1;
	if (!nrows)
		return 0; /* no row: none of its columns is seen */
	ids = calloc(ncols + 1, sizeof(*ids));
	at = calloc(ncols + 1, sizeof(*at));
	scalars = calloc(ncols + 1, 1);
	persistent = perun_jv_to_json(type->persistent);
	if (!ids || !at || !scalars || !persistent)
		goto out;
	perun_jv_object_foreach(cols, c, name, values)
	{
		size_t i;
		const struct perun_jv *v;
		scalars[c] = perun_jv_len(values) == nrows;
		perun_jv_array_foreach(values, i, v) if (perun_jv_type(v) >= PERUN_JV_ARRAY)
			scalars[c] = 0;
		all_scalars &= scalars[c];
		at[c] = perun_jv_len(values) ? values + 1 : NULL;
	}
	if (new_segment(t, all_scalars ? nrows : 1) || add_items(t, persistent))
		goto out;
	perun_jv_object_foreach(cols, c, name, values)
	{
		if (scalars[c] && (ids[c] = field_id(t, perun_jv_string(name))) < 0)
			goto out;
	}
	long snapshots = field_id(t, "snapshots");
	if (snapshots < 0)
		goto out;
	if (all_scalars) {
		perun_jv_object_foreach(cols, c, name, values)
		{
			if (set_segment_cell(t, (size_t)ids[c], at[c], 1))
				goto out;
		}
		rc = set_snapshots(t, (size_t)snapshots);
		goto out;
	}
	/* The first row's persistent items, which the others copy. */
	npersist = t->segs[t->nsegs - 1].len;
	if (!(persist = malloc((npersist + 1) * sizeof(*persist))))
		goto out;
	memcpy(persist, t->cells + t->segs[t->nsegs - 1].start, npersist * sizeof(*persist));
	for (size_t r = 0; r < nrows; r++) {
		if (r && new_row(t))
			goto out;
		if (r)
			memcpy(t->cells + t->segs[t->nsegs - 1].start, persist,
			       npersist * sizeof(*persist));
		perun_jv_object_foreach(cols, c, name, values)
		{
			const struct perun_jv *v = at[c];
			if (!v)
				continue; /* shorter than the first column */
			at[c] = r + 1 < perun_jv_len(values) ? perun_jv_skip(v) : NULL;
			if (scalars[c]) {
				if (set_cell(t, (size_t)ids[c], v))
					goto out;
				continue;
			}
			json_t *value = perun_jv_to_json(v), *record = json_object();
			int failed = !value || !record ||
				     json_object_set(record, perun_jv_string(name), value) ||
				     add_items(t, record);
			json_decref(value);
			json_decref(record);
			if (failed)
				goto out;
		}
		if (set_snapshots(t, (size_t)snapshots))
			goto out;
	}
	rc = 0;
out:
	free(ids);
	free(at);
	free(persist);
	free(scalars);
	json_decref(persistent);
	return rc;
}

/* The rows of every resource, in the order of "resources". */
static int add_resource_rows(struct table *t, const struct perun_profile *profile,
			     struct perun_error *err)
{
	struct perun_type_list types = { 0 };
	int rc = perun_profile_types(profile, &types, err);
	for (size_t i = 0; !rc && i < types.n; i++)
		if (add_type_rows(t, &types.types[i]))
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
	perun_type_list_release(&types);
	return rc;
}

static void table_release(struct table *t)
{
	for (size_t i = 0; i < t->nowned; i++) {
		if (perun_jv_type(t->owned[i]) == PERUN_JV_STRING)
			free((char *)t->owned[i]->u.s);
		free(t->owned[i]);
	}
	for (size_t i = 0; i < t->nfields; i++)
		free(t->names[i]);
	free(t->owned);
	free(t->cells);
	free(t->is_column);
	free(t->names);
	free(t->segs);
	free(t->row_seg);
	free(t->order);
	free(t->columns);
	free(t->colids);
	free(t->last_ids);
	json_decref(t->fields);
}

/*
 * The values of the shown columns, row by row in the order shown: the row
 * after the one read before, in its segment, has the same values but the
 * next of every column's.
 */
struct row_reader {
	const struct table *t;
	const struct perun_jv **values; /* by shown column */
	unsigned char *is_column;
	size_t row; /* the row read last, or SIZE_MAX */
};

static int row_reader_init(struct row_reader *rd, const struct table *t)
{
	rd->t = t;
	rd->values = calloc(t->ncolumns + 1, sizeof(*rd->values));
	rd->is_column = calloc(t->ncolumns + 1, 1);
	rd->row = SIZE_MAX;
	return rd->values && rd->is_column ? 0 : -1;
}

static void row_reader_release(struct row_reader *rd)
{
	free(rd->values);
	free(rd->is_column);
}

/* The values of row, in rd->values. */
static void row_read_at(struct row_reader *rd, size_t row)
{
	const struct table *t = rd->t;
	if (rd->row != SIZE_MAX && row == rd->row + 1 && t->row_seg[row] == t->row_seg[rd->row]) {
		for (size_t c = 0; c < t->ncolumns; c++)
			rd->values[c] += rd->is_column[c];
		rd->row = row;
		return;
	}
	const struct segment *s = &t->segs[t->row_seg[row]];
	for (size_t c = 0; c < t->ncolumns; c++) {
		size_t id = t->colids[c];
		const struct perun_jv *v = id < s->len ? t->cells[s->start + id] : NULL;
		rd->is_column[c] = v && t->is_column[s->start + id];
		rd->values[c] = rd->is_column[c] ? v + (row - s->first) : v;
	}
	rd->row = row;
}

/* Ask for the values of row, which a later row_read_at reads. */
static void prefetch_row(const struct table *t, size_t row)
{
	const struct segment *s = &t->segs[t->row_seg[row]];
	for (size_t c = 0; c < t->ncolumns; c++) {
		size_t id = t->colids[c];
		if (id < s->len && t->is_column[s->start + id])
			__builtin_prefetch(t->cells[s->start + id] + (row - s->first));
	}
}

/* The values of the r-th row shown, in rd->values.  A sorted table's rows
 * lie all over the profile: what the rows a few ahead need is fetched
 * meanwhile, their segments first. */
static void row_read(struct row_reader *rd, size_t r)
{
	const struct table *t = rd->t;
	if (r + 16 < t->nshown && t->order[r + 16] != t->order[r] + 16)
		__builtin_prefetch(&t->row_seg[t->order[r + 16]]);
	if (r + 8 < t->nshown && t->order[r + 8] != t->order[r] + 8)
		prefetch_row(t, t->order[r + 8]);
	row_read_at(rd, t->order[r]);
}

/*
 * The rows shown, in the order they are stored, for what does not depend
 * on the order shown: a sorted table's rows are read where they lie, one
 * after another, instead of all over the profile.  A bit a row, set for
 * those shown; NULL without memory.
 */
static uint64_t *shown_rows(const struct table *t)
{
	uint64_t *bits = calloc(t->nrows / 64 + 1, sizeof(*bits));
	for (size_t r = 0; bits && r < t->nshown; r++)
		bits[t->order[r] / 64] |= 1ull << (t->order[r] % 64);
	return bits;
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
	json_object_foreach(t->fields, key, unused) names[i++] = key;
	qsort(names, n, sizeof(*names), strcmp_ptr);
	for (i = 0; i < n; i++) {
		if (i)
			perun_strbuf_addstr(&b, ", ");
		perun_strbuf_addstr(&b, names[i]);
	}
	free(names);
	return perun_strbuf_detach(&b, NULL);
}

/* The id of column key in *id, or an error naming the valid ones. */
static int check_key(const struct table *t, const char *key, const char *what, size_t *id,
		     struct perun_error *err)
{
	long known = known_id(t, key);
	if (known >= 0) {
		*id = (size_t)known;
		return 0;
	}
	char *valid = field_list(t);
	int rc = perun_error_set(err, PERUN_EINVAL, "invalid %s: %s (choose from %s)", what, key,
				 valid && *valid ? valid : "nothing: the table is empty");
	free(valid);
	return rc;
}

static int choose_columns(struct table *t, const struct perun_params *params,
			  struct perun_error *err)
{
	size_t n = perun_params_count(params, "headers");
	int chosen = n > 0;
	if (!chosen)
		n = json_object_size(t->fields);
	t->columns = calloc(n + 1, sizeof(*t->columns));
	t->colids = calloc(n + 1, sizeof(*t->colids));
	if (!t->columns || !t->colids)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	if (chosen) {
		for (size_t i = 0; i < n; i++) {
			const char *h = perun_params_string_at(params, "headers", i);
			int rc = check_key(t, h ? h : "", "choice for table header", &t->colids[i],
					   err);
			if (rc)
				return rc;
			t->columns[t->ncolumns++] = h;
		}
		return 0;
	}
	const char *key;
	json_t *unused;
	json_object_foreach(t->fields, key, unused) t->columns[t->ncolumns++] = key;
	qsort(t->columns, t->ncolumns, sizeof(*t->columns), strcmp_ptr);
	for (size_t i = 0; i < n; i++)
		t->colids[i] = (size_t)known_id(t, t->columns[i]);
	return 0;
}

/* Does a cell equal a --filter-by value?  Numbers compare as numbers. */
static int cell_matches(const struct perun_jv *cell, const char *wanted)
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
	char *text = cell_str_dup(cell);
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
	size_t *ids = calloc(npairs + 1, sizeof(*ids));
	const char **keys = calloc(npairs + 1, sizeof(*keys));
	const char **wanted = calloc(npairs + 1, sizeof(*wanted));
	int rc = 0;
	if (!ids || !keys || !wanted) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	for (i = 0; i < npairs; i++) {
		json_t *pair = json_array_get(pairs, i);
		keys[i] = json_string_value(json_array_get(pair, 0));
		wanted[i] = json_string_value(json_array_get(pair, 1));
		rc = check_key(t, keys[i], "key choice for filtering", &ids[i], err);
		if (rc)
			goto out;
	}
	if (!npairs)
		goto out;
	size_t kept = 0;
	for (size_t k = 0; k < t->nshown; k++) {
		size_t r = t->order[k];
		int keep = 1;
		for (i = 0; keep && i < npairs; i++) {
			int any = 0;
			for (size_t j = 0; j < npairs && !any; j++)
				if (!strcmp(keys[j], keys[i]))
					any = cell_matches(cell_of(t, r, ids[j]), wanted[j]);
			keep = any;
		}
		if (keep)
			t->order[kept++] = r;
	}
	t->nshown = kept;
out:
	free(ids);
	free(keys);
	free(wanted);
	return rc;
}

/* A row's sort key: its number, or its text (a string's own, or dup). */
struct sort_key {
	union {
		double x;
		const char *text;
	} u;
	size_t row;
	char *dup;
};

static int number_less(const struct sort_key *a, const struct sort_key *b)
{
	return a->u.x < b->u.x;
}

static int text_less(const struct sort_key *a, const struct sort_key *b)
{
	return strcmp(a->u.text, b->u.text) < 0;
}

/* Sort k[0 .. n) stably (ties keep their order), with tmp as much room:
 * a merge sort, whose keys are read where they lie, one after another. */
static void merge_sort(struct sort_key *k, struct sort_key *tmp, size_t n,
		       int (*less)(const struct sort_key *, const struct sort_key *))
{
	struct sort_key *from = k, *to = tmp, *swap;
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = n - lo > width ? lo + width : n;
			size_t hi = n - mid > width ? mid + width : n;
			size_t i = lo, j = mid, o = lo;
			while (i < mid && j < hi)
				to[o++] = less(&from[j], &from[i]) ? from[j++] : from[i++];
			while (i < mid)
				to[o++] = from[i++];
			while (j < hi)
				to[o++] = from[j++];
		}
		swap = from;
		from = to;
		to = swap;
	}
	if (from != k)
		memcpy(k, from, n * sizeof(*k));
}

/*
 * A stable sort: numerically when every present value is a number, NaN
 * after the other numbers; missing values last, like pandas' NaN.
 */
static int apply_sort(struct table *t, const char *key, struct perun_error *err)
{
	size_t id;
	int rc = check_key(t, key, "key choice for sorting the table", &id, err);
	if (rc)
		return rc;
	size_t n = t->nshown, nkeys = 0, k = 0;
	struct sort_key *keys = malloc((n + 1) * sizeof(*keys));
	struct sort_key *tmp = malloc((n + 1) * sizeof(*tmp));
	size_t *rows = malloc((n + 1) * sizeof(*rows));
	int numeric = 1, oom = !keys || !tmp || !rows;
	for (size_t i = 0; !oom && i < n; i++) {
		const struct perun_jv *cell = cell_of(t, t->order[i], id);
		if (cell && !cell_number(cell, NULL))
			numeric = 0;
	}
	for (size_t i = 0; !oom && i < n; i++) {
		const struct perun_jv *cell = cell_of(t, t->order[i], id);
		struct sort_key *sk = &keys[nkeys];
		rows[i] = t->order[i];
		*sk = (struct sort_key){ .row = rows[i] };
		if (!cell || (numeric && (cell_number(cell, &sk->u.x), isnan(sk->u.x))))
			continue; /* after the rest */
		if (perun_jv_is_string(cell) && !numeric)
			sk->u.text = cell->u.s; /* up to a NUL, as its text */
		else if (!numeric && !(sk->u.text = sk->dup = cell_str_dup(cell)))
			oom = 1;
		nkeys++;
	}
	if (!oom) {
		merge_sort(keys, tmp, nkeys, numeric ? number_less : text_less);
		for (k = 0; k < nkeys; k++)
			t->order[k] = keys[k].row;
		/* NaN, then missing values, in the order they had. */
		for (int missing = 0; missing < 2; missing++)
			for (size_t i = 0; i < n; i++) {
				const struct perun_jv *cell = cell_of(t, rows[i], id);
				double x = 0;
				if (missing ? !cell
					    : cell && numeric && (cell_number(cell, &x), isnan(x)))
					t->order[k++] = rows[i];
			}
	}
	for (size_t i = 0; keys && i < nkeys; i++)
		free(keys[i].dup);
	free(keys);
	free(tmp);
	free(rows);
	return oom ? perun_error_set(err, PERUN_EGENERIC, "out of memory") : 0;
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
	int latex_escape;      /* escape LaTeX specials in cells */
	const char *latex_env; /* tabular or longtable */
	const char *latex_top; /* \hline or \toprule */
	int rst_escape;	       /* empty first cells become ".." */
};

#define NO_LINE                                                                                    \
	{                                                                                          \
		NULL, NULL, NULL, NULL                                                             \
	}
/* The LaTeX formats differ only in their rules and environment. */
#define LATEX_FORMAT(name, below_header, below, escape, env, top)                                  \
	{                                                                                          \
		name, { "", "", "", "" }, { below_header, "", "", "" }, NO_LINE,                   \
			{ below, "", "", "" }, LINE_LATEX_BEGIN, LINE_PLAIN, { "", "&", "\\\\" },  \
			{ "", "&", "\\\\" }, 1, 0, 0, escape, env, top, 0                          \
	}

static const struct table_format formats[] = {
	{ "simple",
	  { "", "-", "  ", "" },
	  { "", "-", "  ", "" },
	  NO_LINE,
	  { "", "-", "  ", "" },
	  LINE_PLAIN,
	  LINE_PLAIN,
	  { "", "  ", "" },
	  { "", "  ", "" },
	  0,
	  1,
	  1,
	  0,
	  NULL,
	  NULL,
	  0 },
	{ "plain",
	  NO_LINE,
	  NO_LINE,
	  NO_LINE,
	  NO_LINE,
	  LINE_PLAIN,
	  LINE_PLAIN,
	  { "", "  ", "" },
	  { "", "  ", "" },
	  0,
	  0,
	  0,
	  0,
	  NULL,
	  NULL,
	  0 },
	{ "tsv",
	  NO_LINE,
	  NO_LINE,
	  NO_LINE,
	  NO_LINE,
	  LINE_PLAIN,
	  LINE_PLAIN,
	  { "", "\t", "" },
	  { "", "\t", "" },
	  0,
	  0,
	  0,
	  0,
	  NULL,
	  NULL,
	  0 },
	{ "grid",
	  { "+", "-", "+", "+" },
	  { "+", "=", "+", "+" },
	  { "+", "-", "+", "+" },
	  { "+", "-", "+", "+" },
	  LINE_PLAIN,
	  LINE_PLAIN,
	  { "|", "|", "|" },
	  { "|", "|", "|" },
	  1,
	  0,
	  0,
	  0,
	  NULL,
	  NULL,
	  0 },
	{ "fancy_grid",
	  { "╒", "═", "╤", "╕" },
	  { "╞", "═", "╪", "╡" },
	  { "├", "─", "┼", "┤" },
	  { "╘", "═", "╧", "╛" },
	  LINE_PLAIN,
	  LINE_PLAIN,
	  { "│", "│", "│" },
	  { "│", "│", "│" },
	  1,
	  0,
	  0,
	  0,
	  NULL,
	  NULL,
	  0 },
	{ "github",
	  { "|", "-", "|", "|" },
	  { "|", "-", "|", "|" },
	  NO_LINE,
	  NO_LINE,
	  LINE_PLAIN,
	  LINE_PLAIN,
	  { "|", "|", "|" },
	  { "|", "|", "|" },
	  1,
	  1,
	  0,
	  0,
	  NULL,
	  NULL,
	  0 },
	{ "pipe",
	  { "", "", "", "" },
	  { "", "", "", "" },
	  NO_LINE,
	  NO_LINE,
	  LINE_PIPE_COLONS,
	  LINE_PIPE_COLONS,
	  { "|", "|", "|" },
	  { "|", "|", "|" },
	  1,
	  1,
	  0,
	  0,
	  NULL,
	  NULL,
	  0 },
	{ "orgtbl",
	  NO_LINE,
	  { "|", "-", "+", "|" },
	  NO_LINE,
	  NO_LINE,
	  LINE_PLAIN,
	  LINE_PLAIN,
	  { "|", "|", "|" },
	  { "|", "|", "|" },
	  1,
	  0,
	  0,
	  0,
	  NULL,
	  NULL,
	  0 },
	{ "jira",
	  NO_LINE,
	  NO_LINE,
	  NO_LINE,
	  NO_LINE,
	  LINE_PLAIN,
	  LINE_PLAIN,
	  { "||", "||", "||" },
	  { "|", "|", "|" },
	  1,
	  0,
	  0,
	  0,
	  NULL,
	  NULL,
	  0 },
	{ "presto",
	  NO_LINE,
	  { "", "-", "+", "" },
	  NO_LINE,
	  NO_LINE,
	  LINE_PLAIN,
	  LINE_PLAIN,
	  { "", "|", "" },
	  { "", "|", "" },
	  1,
	  0,
	  0,
	  0,
	  NULL,
	  NULL,
	  0 },
	{ "psql",
	  { "+", "-", "+", "+" },
	  { "|", "-", "+", "|" },
	  NO_LINE,
	  { "+", "-", "+", "+" },
	  LINE_PLAIN,
	  LINE_PLAIN,
	  { "|", "|", "|" },
	  { "|", "|", "|" },
	  1,
	  0,
	  0,
	  0,
	  NULL,
	  NULL,
	  0 },
	{ "rst",
	  { "", "=", "  ", "" },
	  { "", "=", "  ", "" },
	  NO_LINE,
	  { "", "=", "  ", "" },
	  LINE_PLAIN,
	  LINE_PLAIN,
	  { "", "  ", "" },
	  { "", "  ", "" },
	  0,
	  0,
	  0,
	  0,
	  NULL,
	  NULL,
	  1 },
	LATEX_FORMAT("latex", "\\hline", "\\hline\n\\end{tabular}", 1, "tabular", "\\hline"),
	LATEX_FORMAT("latex_raw", "\\hline", "\\hline\n\\end{tabular}", 0, "tabular", "\\hline"),
	LATEX_FORMAT("latex_booktabs", "\\midrule", "\\bottomrule\n\\end{tabular}", 1, "tabular",
		     "\\toprule"),
	LATEX_FORMAT("latex_longtable", "\\hline\n\\endhead", "\\hline\n\\end{longtable}", 1,
		     "longtable", "\\hline"),
};

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
		if (!(*s >= '0' && *s <= '9') && !(*s == '_' && s[1] >= '0' && s[1] <= '9'))
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
		int ok = t &&
			 (!strcasecmp(t, "inf") || !strcasecmp(t, "-inf") || !strcasecmp(t, "nan"));
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

/* format(float(s), "g") of a number d, appended to b. */
static void add_format_g(struct perun_strbuf *b, double d)
{
	char out[64];
	if (isnan(d))
		perun_strbuf_addstr(b, "nan");
	else
		perun_strbuf_add(b, out, (size_t)snprintf(out, sizeof(out), "%g", d));
}

/*
 * format(d, "g") made from s, the shortest text that reads back as d
 * (Python's repr of it, or an integer's digits when d holds it exactly),
 * without printf's exact arithmetic: the six-digit decimal nearest to d is
 * the nearest to s, unless s lies right between two of them (its digits
 * after the sixth are one 5), where d may lie on either side.  Writes out
 * and returns its length, or returns 0 for such a tie and texts it does not
 * read.
 */
static size_t format_g_of(char out[40], const char *s, size_t len)
{
	char *o = out;
	char m[24];
	size_t n = 0, i = 0;
	long point = -1, exp = 0;
	int negative = s[0] == '-';
	i = negative;
	for (; i < len && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'); i++) {
		if (s[i] == '.')
			point = (long)n;
		else if (n || s[i] != '0' || point >= 0)
			m[n++] = s[i];
		else
			continue;
		if (n == sizeof(m))
			return 0;
	}
	if (i < len && s[i] == 'e') {
		char *end;
		exp = strtol(s + i + 1, &end, 10);
		i = (size_t)(end - s);
	}
	if (i != len || i == (size_t)negative)
		return 0;
	if (point < 0)
		point = (long)n;
	/* Leading zeros (after the point) are no significant digits. */
	size_t lead = 0;
	while (lead < n && m[lead] == '0')
		lead++;
	memmove(m, m + lead, n - lead);
	n -= lead;
	point -= (long)lead;
	while (n && m[n - 1] == '0')
		n--;
	if (!n) {
		strcpy(out, negative ? "-0" : "0");
		return strlen(out);
	}
	long x = point - 1 + exp; /* the exponent of the first digit */
	if (x < -9999 || x > 9999)
		return 0; /* no double's */
	if (n > 6) {
		if (m[6] == '5' && n == 7)
			return 0;
		int up = m[6] >= '5';
		n = 6;
		for (size_t k = 6; up && k-- > 0;) {
			up = m[k] == '9';
			m[k] = up ? '0' : (char)(m[k] + 1);
		}
		if (up) {
			m[0] = '1';
			n = 1;
			x++;
		}
		while (n && m[n - 1] == '0')
			n--;
	}
	/* At most "-d.ddddde-dddd", or "-0.000dddddd", or "-dddddd". */
	if (negative)
		*o++ = '-';
	if (x < -4 || x >= 6) {
		*o++ = m[0];
		if (n > 1) {
			*o++ = '.';
			memcpy(o, m + 1, n - 1);
			o += n - 1;
		}
		o += snprintf(o, 8, "e%c%02ld", x < 0 ? '-' : '+', x < 0 ? -x : x);
	} else if (x < 0) {
		memcpy(o, "0.", 2);
		memset(o + 2, '0', (size_t)(-x - 1));
		o += 2 + (size_t)(-x - 1);
		memcpy(o, m, n);
		o += n;
	} else {
		size_t whole = (size_t)x + 1;
		memcpy(o, m, n < whole ? n : whole);
		o += n < whole ? n : whole;
		memset(o, '0', n < whole ? whole - n : 0);
		o += n < whole ? whole - n : 0;
		if (n > whole) {
			*o++ = '.';
			memcpy(o, m + whole, n - whole);
			o += n - whole;
		}
	}
	return (size_t)(o - out);
}

/* after_point of a text %g made: no number to read again. */
static int after_point_g(const char *s, size_t len)
{
	const char *p = memchr(s, '.', len);
	if (!p)
		p = memchr(s, 'e', len);
	return p ? (int)(len - (size_t)(p - s) - 1) : -1;
}

/* A cell's text: its place in the buffer it was made in. */
struct cell {
	size_t off;
	uint32_t len;
	int32_t after; /* tabulate's _afterpoint, in decimal columns */
};

/*
 * The columns' types and widths.  The cells' texts are not kept: a table of
 * a million rows would hold a hundred megabytes of them.  They are made
 * once to measure them and again as the rows are written, a row's in its
 * columns' buffers, kept while the next row's value is the same.
 */
struct layout {
	size_t ncols, nrows;
	char **headers; /* padded */
	struct perun_strbuf arena;
	struct perun_strbuf scratch;
	size_t *widths;
	int *max_after; /* of the column's cells */
	enum align *aligns;
	enum cell_type *types;
	int have_aligns; /* tabulate has no alignments for an empty table */
	struct row_reader rows;
	/* The row being written: */
	const struct perun_jv **prev;
	struct cell *cells;
	size_t *cell_widths;
	struct perun_strbuf *texts; /* the cells' buffers */
};

static const char *cell_text(const struct perun_strbuf *b, const struct cell *cell)
{
	return cell->len ? b->buf + cell->off : "";
}

/* A cell's text as a string of its own (in the layout's scratch buffer),
 * for the readers of C strings; NULL without memory. */
static const char *cell_string(struct layout *l, const struct perun_strbuf *b,
			       const struct cell *cell)
{
	l->scratch.len = 0;
	perun_strbuf_add(&l->scratch, cell_text(b, cell), cell->len);
	perun_strbuf_add(&l->scratch, "", 0);
	return l->scratch.failed ? NULL : l->scratch.buf;
}

/* Width as Python's len(): code points of UTF-8 text. */
static size_t text_width_n(const char *s, size_t len)
{
	size_t w = 0;
	for (size_t i = 0; i < len; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

static size_t text_width(const char *s)
{
	return text_width_n(s, strlen(s));
}

static char *padded(const char *s, size_t width, int left)
{
	struct perun_strbuf b = PERUN_STRBUF_INIT;
	size_t w = text_width(s);
	if (left)
		perun_strbuf_addrepeat(&b, " ", width > w ? width - w : 0);
	perun_strbuf_addstr(&b, s);
	if (!left)
		perun_strbuf_addrepeat(&b, " ", width > w ? width - w : 0);
	return perun_strbuf_detach(&b, NULL);
}

/* Is s, up to a NUL, only white space (or nothing)? */
static int all_space(const char *s)
{
	while (is_space(*s))
		s++;
	return !*s;
}

/*
 * tabulate's type of a cell by its value (as pandas has it, NaN for a
 * missing one): numbers by their JSON type, whose texts always read back
 * as one, strings by their text; rst's ".." for an empty first cell is text.
 */
static enum cell_type value_type(const struct perun_jv *v, int rst_escape)
{
	switch (perun_jv_type(v)) {
	case PERUN_JV_NULL: return v ? T_NONE : T_FLOAT; /* a missing one is NaN */
	case PERUN_JV_INTEGER: return T_INT;
	case PERUN_JV_REAL: return T_FLOAT; /* "nan" and "inf" too */
	case PERUN_JV_STRING: return rst_escape && all_space(v->u.s) ? T_TEXT : text_type(v->u.s);
	default: return T_BOOL; /* True, False */
	}
}

/*
 * The text tabulate shows for a cell of a column of type and align, into
 * b: Python's str() of its value ("nan" for a missing one, "" for
 * None), as format(float(str), "g") in float columns and stripped in text
 * columns; rst_escape makes an empty first cell "..".
 */
static void cell_format(struct layout *l, struct perun_strbuf *b, struct cell *cell,
			const struct perun_jv *v, enum cell_type type, enum align align,
			int rst_escape)
{
	enum perun_jv_type vt = perun_jv_type(v);
	size_t off = b->len;
	if (v && vt == PERUN_JV_NULL) {
		*cell = (struct cell){ 0, 0, -1 };
		return;
	}
	if (type == T_FLOAT) {
		char source[32], text[40];
		size_t n = 0;
		double d = 0;
		/* Integers beyond 2^53 are not what d holds: printf rounds d.
		 * Subnormal reals have too few digits for six. */
		int exact =
			(vt == PERUN_JV_REAL && (fpclassify(v->u.d) == FP_NORMAL || v->u.d == 0)) ||
			(vt == PERUN_JV_INTEGER && v->u.i < (1ll << 53) && v->u.i > -(1ll << 53));
		if (exact)
			n = format_g_of(text, source, number_str(v, source));
		if (n) {
			perun_strbuf_add(b, text, n);
		} else {
			if (vt == PERUN_JV_INTEGER || vt == PERUN_JV_REAL)
				cell_number(v, &d);
			else if (vt == PERUN_JV_TRUE || vt == PERUN_JV_FALSE)
				d = vt == PERUN_JV_TRUE; /* float(True) is 1.0 */
			else /* a string up to a NUL, or a missing one: "nan" */
				parses_as_number(v ? v->u.s : "nan", &d);
			add_format_g(b, d);
		}
		*cell = (struct cell){ off, (uint32_t)(b->len - off), 0 };
		cell->after = b->failed ? -1 : after_point_g(b->buf + off, cell->len);
		return;
	}
	if (rst_escape && vt == PERUN_JV_STRING && all_space(v->u.s))
		perun_strbuf_addstr(b, "..");
	else if (v)
		add_cell_str(b, v); /* a string up to a NUL */
	else
		perun_strbuf_addstr(b, "nan");
	*cell = (struct cell){ off, (uint32_t)(b->len - off), -1 };
	if (align == ALIGN_LEFT) {
		const char *text = cell_text(b, cell);
		while (cell->len && is_space(*text)) {
			text++;
			cell->off++;
			cell->len--;
		}
		while (cell->len && is_space(text[cell->len - 1]))
			cell->len--;
	} else if (vt != PERUN_JV_INTEGER && cell->len && cell_string(l, b, cell)) {
		cell->after = after_point(l->scratch.buf); /* "" and integers have none */
	}
}

/*
 * The columns' types and widths, in two passes over the rows shown (the
 * types first, then the texts), row by row as they are stored.  Rows of a
 * resource type share its values (uid, type, ...), and rows that lack a
 * column share NULL: a value the row before had is not looked at again.
 */
static int layout_build(struct layout *l, const struct table *t, const struct table_format *fmt)
{
	size_t nc = t->ncolumns;
	l->ncols = nc;
	l->nrows = t->nshown;
	l->headers = calloc(nc + 1, sizeof(*l->headers));
	l->widths = calloc(nc + 1, sizeof(*l->widths));
	l->max_after = calloc(nc + 1, sizeof(*l->max_after));
	l->aligns = calloc(nc + 1, sizeof(*l->aligns));
	l->types = calloc(nc + 1, sizeof(*l->types));
	l->prev = calloc(nc + 1, sizeof(*l->prev));
	l->cells = calloc(nc + 1, sizeof(*l->cells));
	l->cell_widths = calloc(nc + 1, sizeof(*l->cell_widths));
	l->texts = calloc(nc + 1, sizeof(*l->texts));
	const struct perun_jv **prev = calloc(nc + 1, sizeof(*prev));
	/* The widest text of a column, and in decimal columns its digits
	 * before the point (width - after). */
	long *widest = calloc(nc + 1, sizeof(*widest));
	uint64_t *shown = shown_rows(t);
	int rc = -1;
	if (!l->headers || !l->widths || !l->max_after || !l->aligns || !l->types ||
	    row_reader_init(&l->rows, t) || !l->prev || !l->cells || !l->cell_widths || !l->texts ||
	    !prev || !widest || !shown)
		goto out;
	l->have_aligns = l->nrows > 0;
	for (size_t c = 0; c < nc; c++)
		l->types[c] = T_BOOL;
	for (size_t r = 0, first = 1; r < t->nrows; r++) {
		if (!(shown[r / 64] >> (r % 64) & 1))
			continue;
		row_read_at(&l->rows, r);
		for (size_t c = 0; c < nc; c++) {
			const struct perun_jv *v = l->rows.values[c];
			if (!first && v == prev[c])
				continue;
			prev[c] = v;
			enum cell_type ct = value_type(v, fmt->rst_escape && c == 0);
			if (ct > l->types[c])
				l->types[c] = ct;
		}
		first = 0;
	}
	for (size_t c = 0; c < nc; c++) {
		l->aligns[c] =
			l->types[c] == T_INT || l->types[c] == T_FLOAT ? ALIGN_DECIMAL : ALIGN_LEFT;
		l->max_after[c] = -1;
		widest[c] = LONG_MIN;
	}
	for (size_t r = 0, first = 1; r < t->nrows; r++) {
		if (!(shown[r / 64] >> (r % 64) & 1))
			continue;
		row_read_at(&l->rows, r);
		for (size_t c = 0; c < nc; c++) {
			const struct perun_jv *v = l->rows.values[c];
			struct cell cell;
			if (!first && v == prev[c])
				continue;
			prev[c] = v;
			l->arena.len = 0;
			cell_format(l, &l->arena, &cell, v, l->types[c], l->aligns[c],
				    fmt->rst_escape && c == 0);
			if (l->arena.failed || l->scratch.failed)
				goto out;
			long w = (long)text_width_n(cell_text(&l->arena, &cell), cell.len);
			if (l->aligns[c] == ALIGN_DECIMAL) {
				w -= cell.after;
				if (cell.after > l->max_after[c])
					l->max_after[c] = cell.after;
			}
			if (w > widest[c])
				widest[c] = w;
		}
		first = 0;
	}
	for (size_t c = 0; c < nc; c++) {
		const char *name = t->columns[c];
		if (fmt->rst_escape && c == 0 && !*name)
			name = "..";
		size_t width = text_width(name) + 2; /* tabulate's MIN_PADDING */
		long most = widest[c];
		if (l->nrows && l->aligns[c] == ALIGN_DECIMAL)
			most += l->max_after[c];
		if (l->nrows && most > (long)width)
			width = (size_t)most;
		l->widths[c] = width;
		l->headers[c] = padded(name, width, l->nrows && l->aligns[c] == ALIGN_DECIMAL);
		if (!l->headers[c])
			goto out;
	}
	rc = 0;
out:
	free(prev);
	free(widest);
	free(shown);
	return rc;
}

/* The texts of row r in l->cells, made in the columns' buffers unless the
 * row before had the same value; 0, or -1 without memory. */
static int row_texts(struct layout *l, size_t r, int rst_escape)
{
	row_read(&l->rows, r);
	for (size_t c = 0; c < l->ncols; c++) {
		const struct perun_jv *v = l->rows.values[c];
		if (r && v == l->prev[c])
			continue;
		l->prev[c] = v;
		l->texts[c].len = 0;
		cell_format(l, &l->texts[c], &l->cells[c], v, l->types[c], l->aligns[c],
			    rst_escape && c == 0);
		if (l->texts[c].failed || l->scratch.failed)
			return -1;
		l->cell_widths[c] =
			text_width_n(cell_text(&l->texts[c], &l->cells[c]), l->cells[c].len);
	}
	return 0;
}

static void layout_release(struct layout *l)
{
	for (size_t c = 0; l->headers && c < l->ncols; c++)
		free(l->headers[c]);
	free(l->headers);
	for (size_t c = 0; l->texts && c < l->ncols; c++)
		perun_strbuf_release(&l->texts[c]);
	free(l->texts);
	free(l->cells);
	free(l->cell_widths);
	row_reader_release(&l->rows);
	free(l->prev);
	free(l->types);
	free(l->widths);
	free(l->max_after);
	free(l->aligns);
	perun_strbuf_release(&l->arena);
	perun_strbuf_release(&l->scratch);
}

/* End the line begun at start without its trailing white space, as
 * tabulate does. */
static void end_line(struct perun_strbuf *out, size_t start)
{
	while (out->len > start && is_space(out->buf[out->len - 1]))
		out->len--;
	perun_strbuf_addch(out, '\n');
}

static void add_line(struct perun_strbuf *out, const struct layout *l,
		     const struct table_format *fmt, const struct line_fmt *lf,
		     enum line_special special)
{
	size_t pad = 2 * (size_t)fmt->padding;
	if (special == LINE_PIPE_COLONS) {
		perun_strbuf_addstr(out, "|");
		for (size_t c = 0; c < l->ncols; c++) {
			size_t w = l->widths[c] + pad;
			if (!l->have_aligns) {
				perun_strbuf_addrepeat(out, "-", w);
			} else if (l->aligns[c] == ALIGN_DECIMAL) {
				perun_strbuf_addrepeat(out, "-", w - 1);
				perun_strbuf_addstr(out, ":");
			} else {
				perun_strbuf_addstr(out, ":");
				perun_strbuf_addrepeat(out, "-", w - 1);
			}
			perun_strbuf_addstr(out, "|");
		}
		perun_strbuf_addstr(out, "\n");
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
	size_t start = out->len;
	perun_strbuf_addstr(out, lf->begin);
	for (size_t c = 0; c < l->ncols; c++) {
		if (c)
			perun_strbuf_addstr(out, lf->sep);
		perun_strbuf_addrepeat(out, lf->fill, l->widths[c] + pad);
	}
	perun_strbuf_addstr(out, lf->end);
	end_line(out, start);
}

static void add_latex_escaped(struct perun_strbuf *b, const char *s, size_t len)
{
	static const char *const rules[][2] = {
		{ "&", "\\&" },
		{ "%", "\\%" },
		{ "$", "\\$" },
		{ "#", "\\#" },
		{ "_", "\\_" },
		{ "^", "\\^{}" },
		{ "{", "\\{" },
		{ "}", "\\}" },
		{ "~", "\\textasciitilde{}" },
		{ "\\", "\\textbackslash{}" },
		{ "<", "\\ensuremath{<}" },
		{ ">", "\\ensuremath{>}" },
	};
	for (size_t k = 0; k < len; k++) {
		const char *repl = NULL;
		for (size_t i = 0; !repl && i < sizeof(rules) / sizeof(rules[0]); i++)
			if (s[k] == rules[i][0][0])
				repl = rules[i][1];
		if (repl)
			perun_strbuf_addstr(b, repl);
		else
			perun_strbuf_add(b, s + k, 1);
	}
}

/* The header line (row NULL, headers padded already) or a row's line (the
 * cells row_texts made), each cell padded to its column's width as it is
 * written. */
static void add_cells_line(struct perun_strbuf *out, const struct table_format *fmt,
			   const struct row_fmt *rf, const struct layout *l, const struct cell *row)
{
	size_t start = out->len, pad = (size_t)fmt->padding;
	size_t beginlen = strlen(rf->begin), seplen = strlen(rf->sep), endlen = strlen(rf->end);
	/* Rows are written in place, with no call a cell: tables have
	 * millions of cells.  No cell takes more than its text and its
	 * column's width and padding. */
	int in_place = row && !fmt->latex_escape;
	size_t need = beginlen + endlen;
	for (size_t c = 0; in_place && c < l->ncols; c++)
		need += seplen + 2 * pad + l->widths[c] + row[c].len;
	if (in_place && perun_strbuf_grow(out, need))
		return;
	perun_strbuf_add(out, rf->begin, beginlen);
	for (size_t c = 0; c < l->ncols; c++) {
		const char *text = row ? cell_text(&l->texts[c], &row[c]) : l->headers[c];
		size_t len = row ? row[c].len : strlen(text), before = 0, after = 0;
		if (row) {
			/* Decimal columns: right-aligned, points one above another. */
			int decimal = l->aligns[c] == ALIGN_DECIMAL;
			size_t points = decimal ? (size_t)(l->max_after[c] - row[c].after) : 0;
			size_t w = l->cell_widths[c] + points;
			size_t fill = l->widths[c] > w ? l->widths[c] - w : 0;
			before = decimal ? fill : 0;
			after = decimal ? points : fill;
		}
		if (in_place) {
			char *p = out->buf + out->len;
			if (c) {
				memcpy(p, rf->sep, seplen);
				p += seplen;
			}
			memset(p, ' ', pad + before);
			p += pad + before;
			memcpy(p, text, len);
			p += len;
			memset(p, ' ', after + pad);
			out->len = (size_t)(p + after + pad - out->buf);
			continue;
		}
		if (c)
			perun_strbuf_add(out, rf->sep, seplen);
		perun_strbuf_addrepeat(out, " ", pad + before);
		if (fmt->latex_escape)
			add_latex_escaped(out, text, len);
		else
			perun_strbuf_add(out, text, len);
		perun_strbuf_addrepeat(out, " ", after + pad);
	}
	perun_strbuf_add(out, rf->end, endlen);
	end_line(out, start);
}

/*
 * With stream set, what out gathered is written there once it is a
 * megabyte, so that a table of millions of rows is never held whole: the
 * renderers return only the rest.  0, or -1 with *write_errno set when
 * writing failed.
 */
static int flush_out(struct perun_strbuf *out, FILE *stream, int *write_errno)
{
	if (!stream || out->failed || out->len < (1u << 20))
		return 0;
	errno = 0;
	if (fwrite(out->buf, 1, out->len, stream) != out->len) {
		*write_errno = errno ? errno : EIO;
		return -1;
	}
	out->len = 0;
	return 0;
}

/*
 * The table as tabulate would print it; "" for no columns and no rows.
 * With stream set, what is not returned was written there (flush_out);
 * NULL without memory or, with *write_errno set, when writing failed.
 */
static char *render_tabulate(const struct table *t, const struct table_format *fmt, FILE *stream,
			     int *write_errno)
{
	struct layout l = { 0 };
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
		add_cells_line(&out, fmt, &fmt->header, &l, NULL);
		if (fmt->below_header.begin)
			add_line(&out, &l, fmt, &fmt->below_header, fmt->below_header_special);
	}
	for (size_t r = 0; r < l.nrows; r++) {
		if (r && fmt->between.begin)
			add_line(&out, &l, fmt, &fmt->between, LINE_PLAIN);
		if (row_texts(&l, r, fmt->rst_escape)) {
			perun_strbuf_release(&out);
			layout_release(&l);
			return NULL;
		}
		add_cells_line(&out, fmt, &fmt->data, &l, l.cells);
		if (flush_out(&out, stream, write_errno)) {
			perun_strbuf_release(&out);
			layout_release(&l);
			return NULL;
		}
	}
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

/* RFC 4180 fields, raw values (no rounding), missing values empty; with
 * stream set, as render_tabulate. */
static char *render_csv(const struct table *t, FILE *stream, int *write_errno)
{
	struct perun_strbuf b = PERUN_STRBUF_INIT;
	struct row_reader rows;
	if (row_reader_init(&rows, t)) {
		row_reader_release(&rows);
		return NULL;
	}
	for (size_t c = 0; c < t->ncolumns; c++) {
		if (c)
			perun_strbuf_addch(&b, ',');
		add_csv_field(&b, t->columns[c]);
	}
	if (t->ncolumns)
		perun_strbuf_addch(&b, '\n');
	for (size_t r = 0; r < t->nshown; r++) {
		row_read(&rows, r);
		for (size_t c = 0; c < t->ncolumns; c++) {
			const struct perun_jv *v = rows.values[c];
			if (c)
				perun_strbuf_addch(&b, ',');
			/* A string up to a NUL, as its text; other texts need
			 * no quotes. */
			if (perun_jv_is_string(v))
				add_csv_field(&b, v->u.s);
			else if (perun_jv_type(v) != PERUN_JV_NULL)
				add_cell_str(&b, v);
		}
		perun_strbuf_addch(&b, '\n');
		if (flush_out(&b, stream, write_errno))
			break;
	}
	row_reader_release(&rows);
	if (*write_errno)
		perun_strbuf_release(&b);
	return *write_errno ? NULL : perun_strbuf_detach(&b, NULL);
}

/* The JSON text of a string, ASCII only, appended to b. */
static void add_json_string(struct perun_strbuf *b, const char *s, size_t len)
{
	json_t *v = json_stringn(s, len);
	char *text = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : NULL;
	if (text)
		perun_strbuf_addstr(b, text);
	else
		b->failed = 1;
	free(text);
	json_decref(v);
}

static void add_json_value(struct perun_strbuf *b, const struct perun_jv *v)
{
	double d;
	enum perun_jv_type type = perun_jv_type(v);
	if (type == PERUN_JV_NULL || (cell_number(v, &d) && !isfinite(d)))
		perun_strbuf_addstr(b, "null");
	else if (type == PERUN_JV_STRING)
		add_json_string(b, v->u.s, perun_jv_len(v));
	else if (type == PERUN_JV_TRUE || type == PERUN_JV_FALSE)
		perun_strbuf_addstr(b, type == PERUN_JV_TRUE ? "true" : "false");
	else
		add_cell_str(b, v); /* numbers in Python's shortest form */
}

/* The JSON text of a string, for names; NULL without memory. */
static char *json_text(const char *s)
{
	struct perun_strbuf b = PERUN_STRBUF_INIT;
	add_json_string(&b, s, strlen(s));
	return perun_strbuf_detach(&b, NULL);
}

/* {"version": 1, "table": ..., "headers": [...], "rows": [{...}, ...]} */
static char *render_json(const struct table *t, const char *what, FILE *stream, int *write_errno)
{
	struct perun_strbuf b = PERUN_STRBUF_INIT;
	struct row_reader rows;
	char **names = calloc(t->ncolumns + 1, sizeof(*names));
	/* Rows of a type share their persistent values: the text of the
	 * column's last one is kept. */
	const struct perun_jv **last = calloc(t->ncolumns + 1, sizeof(*last));
	struct perun_strbuf *texts = calloc(t->ncolumns + 1, sizeof(*texts));
	char *name = json_text(what);
	if (row_reader_init(&rows, t) || !names || !last || !texts || !name)
		b.failed = 1;
	for (size_t c = 0; !b.failed && c < t->ncolumns; c++)
		if (!(names[c] = json_text(t->columns[c])))
			b.failed = 1;
	perun_strbuf_addstr(&b, "{\n  \"version\": 1,\n  \"table\": ");
	perun_strbuf_addstr(&b, name ? name : "");
	perun_strbuf_addstr(&b, ",\n  \"headers\": [");
	for (size_t c = 0; !b.failed && c < t->ncolumns; c++) {
		perun_strbuf_addstr(&b, c ? ", " : "");
		perun_strbuf_addstr(&b, names[c]);
	}
	perun_strbuf_addstr(&b, "],\n  \"rows\": [");
	for (size_t r = 0; !b.failed && r < t->nshown; r++) {
		perun_strbuf_addstr(&b, r ? ",\n    {" : "\n    {");
		row_read(&rows, r);
		for (size_t c = 0; c < t->ncolumns; c++) {
			const struct perun_jv *v = rows.values[c];
			perun_strbuf_addstr(&b, c ? ", " : "");
			perun_strbuf_addstr(&b, names[c]);
			perun_strbuf_addstr(&b, ": ");
			if (!perun_jv_is_string(v)) {
				add_json_value(&b, v);
				continue;
			}
			if (v != last[c] || !texts[c].buf) {
				texts[c].len = 0;
				add_json_value(&texts[c], v);
				last[c] = v;
			}
			if (texts[c].failed)
				b.failed = 1;
			else
				perun_strbuf_add(&b, texts[c].buf, texts[c].len);
		}
		perun_strbuf_addch(&b, '}');
		if (flush_out(&b, stream, write_errno))
			break;
	}
	perun_strbuf_addstr(&b, t->nshown ? "\n  ]\n}" : "]\n}");
	for (size_t c = 0; names && c < t->ncolumns; c++)
		free(names[c]);
	for (size_t c = 0; texts && c < t->ncolumns; c++)
		perun_strbuf_release(&texts[c]);
	free(names);
	free(last);
	free(texts);
	free(name);
	row_reader_release(&rows);
	if (*write_errno)
		perun_strbuf_release(&b);
	return *write_errno ? NULL : perun_strbuf_detach(&b, NULL);
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
	struct table t = { 0 };
	const struct perun_params *params = ctx->params;
	char *text = NULL, *file = NULL;
	int rc = 0, write_errno = 0;

	if (ctx->argc < 1)
		return perun_error_set(err, PERUN_EINVAL, "say what to show: resources or models");
	const char *what = ctx->argv[0];
	int is_resources = !strcmp(what, "resources");
	if (!is_resources && strcmp(what, "models"))
		return perun_error_set(err, PERUN_EINVAL,
				       "unknown table '%s' (choose from resources, models)", what);
	if (ctx->argc > 1)
		return perun_error_set(err, PERUN_EINVAL, "unexpected argument '%s'", ctx->argv[1]);
	int to_file =
		perun_params_bool(params, "to-file", 0) || perun_params_has(params, "output-file");
	if (to_file && perun_params_bool(params, "to-stdout", 0))
		return perun_error_set(err, PERUN_EINVAL,
				       "'--to-stdout' excludes '--to-file' and "
				       "'--output-file'");

	t.fields = json_object();
	if (!t.fields) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	if (is_resources) {
		/* Python Perun always has the "snapshots" column. */
		if (field_id(&t, "snapshots") < 0) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			goto out;
		}
		if ((rc = add_resource_rows(&t, ctx->profile, err)))
			goto out;
	} else {
		size_t i;
		json_t *model;
		json_array_foreach(perun_profile_get(ctx->profile, "models"), i, model)
		{
			if (json_is_object(model) && (rc = add_model_row(&t, model)))
				break;
		}
	}
	t.order = malloc((t.nrows + 1) * sizeof(*t.order));
	if (!rc && !t.order)
		rc = -1;
	for (size_t i = 0; !rc && i < t.nrows; i++)
		t.order[i] = i;
	t.nshown = t.nrows;
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
		text = render_csv(&t, to_file ? NULL : ctx->out, &write_errno);
	} else if (!strcmp(format, "json")) {
		text = render_json(&t, what, to_file ? NULL : ctx->out, &write_errno);
	} else {
		const struct table_format *fmt = &formats[0];
		if (!strcmp(format, "markdown"))
			format = "pipe";
		for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
			if (!strcmp(formats[i].name, format))
				fmt = &formats[i];
		text = render_tabulate(&t, fmt, to_file ? NULL : ctx->out, &write_errno);
	}
	if (write_errno) {
		rc = perun_error_set_errno(err, PERUN_EGENERIC, write_errno,
					   "cannot write the table");
		goto out;
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
		rc = perun_error_set_errno(err, PERUN_EGENERIC, errno, "cannot write the table");
	}
out:
	free(text);
	free(file);
	table_release(&t);
	return rc;
}

static const struct perun_view_ops tableof_ops = {
	.size = sizeof(struct perun_view_ops),
	.show = tableof_show,
};

PERUN_PLUGIN_DEFINE(tableof, PERUN_KIND_VIEW, .version = "1.0",
		    .summary = "resources and models as tables", .options = tableof_options,
		    .ops = &tableof_ops);
