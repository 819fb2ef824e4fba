/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests of libperun's flattening (perun_value_flatten_dup,
 * perun_items_of) and of its string buffer (perun_strbuf).
 *
 * The expected strings were computed by running the same values through
 * Python Perun's own convert.flatten and query.all_items_of (Python 3,
 * upstream perun/profile/{convert,query}.py).  In the inputs below,
 * "\u0000NaN" and friends are libperun's markers of Python's NaN/Infinity
 * (see perun_json_number); Python read those values as bare NaN, Infinity.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>

#include "tap.h"

static json_t *parse(const char *text)
{
	json_error_t jerr;
	json_t *v = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	if (!v) {
		fprintf(stderr, "bad test input %s: %s\n", text, jerr.text);
		abort();
	}
	return v;
}

static void check_flatten(const char *input, const char *want)
{
	json_t *v = parse(input);
	char *got = perun_value_flatten_dup(v);
	tap_is_str(got, want, "flatten %s", input);
	free(got);
	json_decref(v);
}

/* "key=str(value)" lines, the value's JSON type in brackets. */
static int collect_item(const char *key, const json_t *value, void *data)
{
	static const char *const types[] = { "object", "array", "str",	 "int",
					     "float",  "True",	"False", "None" };
	double unused;
	char *text = perun_value_flatten_dup(value);
	perun_strbuf_addf(data, "%s=%s[%s]\n", key, text ? text : "(null)",
			  json_is_string(value) && !perun_json_number(value, &unused)
				  ? "float"
				  : types[json_typeof(value)]);
	free(text);
	return 0;
}

static void check_items(const char *input, const char *want)
{
	json_t *v = parse(input);
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	struct perun_error err = { 0 };
	int rc = perun_items_of(v, collect_item, &sb, &err);
	char *got = perun_strbuf_detach(&sb, NULL);
	tap_ok(rc == 0, "items of %s: no error", input);
	tap_is_str(got, want, "items of %s", input);
	free(got);
	json_decref(v);
}

static void test_flatten(void)
{
	/* uid parts in Perun's order: bin, file/source/package, module, class,
	 * function, line, instruction */
	check_flatten(
		"{\"line\": 3, \"function\": \"main\", \"source\": \"a.c\", \"bin\": \"./x\"}",
		"./x:a.c:main:3");
	check_flatten(
		"{\"instruction\": \"mov\", \"line\": 7, \"method\": \"m\", \"class\": \"C\", "
		"\"module\": \"mod\", \"package\": \"p\", \"file\": \"f.c\"}",
		"p:f.c:mod:C:m:7:mov");
	/* unknown keys after the known ones, by the integer of their code
	 * points + 6 ("b" 104 < "ab" 103104 < "zeta" < "alpha"), not by place */
	check_flatten("{\"zeta\": \"z\", \"line\": 3, \"alpha\": 1.5, \"ab\": \"q\", \"b\": 2, "
		      "\"function\": \"f\"}",
		      "f:3:2:q:z:1.5");
	/* code points, not bytes: y 127 < z 128 < e-acute 239 < U+1F600 */
	check_flatten("{\"\\u00e9\": 1, \"z\": 2, \"\\ud83d\\ude00\": 3, \"y\": 4}", "4:2:1:3");
	/* a nested dict adds its items ("x:y", "x:function") and its own text */
	check_flatten("{\"x\": {\"y\": 1, \"function\": \"f\"}, \"source\": \"s.c\"}",
		      "s.c:f:1:1:f");
	/* str() of scalars */
	check_flatten("{\"i\": 1, \"f\": 0.1, \"e\": 1e16, \"s\": 1e-05, \"n\": -0.0, \"t\": true, "
		      "\"u\": false, \"v\": null, \"big\": 4611686018427387904, \"w\": 3.0}",
		      "1e+16:0.1:1:-0.0:1e-05:True:False:None:3.0:4611686018427387904");
	/* NaN/Infinity markers are floats; the string "NaN" stays a string */
	check_flatten("{\"a\": \"\\u0000NaN\", \"b\": \"\\u0000Infinity\", "
		      "\"c\": \"\\u0000-Infinity\", \"d\": \"NaN\"}",
		      "nan:inf:-inf:NaN");
	/* lists */
	check_flatten("[1, \"a\", 2.5, null, true, \"\\u0000NaN\"]", "1,a,2.5,None,True,nan");
	/* dicts in a list are under an index: not sorted, not joined twice */
	check_flatten("[{\"line\": 1, \"file\": \"a\"}, {\"function\": \"g\", \"source\": \"b\"}]",
		      "1:a,g:b");
	check_flatten("[[1, 2], [3, [4, 5]], [], {\"k\": [6, 7]}]", "1,2,3,4,5,,6,7");
	/* a top-level name/value list is a plain list ... */
	check_flatten("[{\"name\": \"b0\", \"value\": 1.5}, {\"name\": \"b1\", \"value\": 0.0}]",
		      "b0:1.5,b1:0.0");
	/* ... but a nested one is the dict {name: value} */
	check_flatten("{\"coeffs\": [{\"name\": \"b0\", \"value\": 1.5}, {\"name\": \"b1\", "
		      "\"value\": 0.0}], \"model\": \"linear\"}",
		      "linear:1.5:0.0:1.5:0.0");
	/* a repeated name keeps its first place and its last value */
	check_flatten("{\"c\": [{\"name\": \"b\", \"value\": 1}, {\"name\": \"a\", \"value\": 2}, "
		      "{\"name\": \"b\", \"value\": 3}]}",
		      "2:3:2:3");
	/* a third key makes it a plain list */
	check_flatten("{\"c\": [{\"name\": \"a\", \"value\": 1, \"x\": 0}]}", "a:1:0");
	/* a name/value list inside a list is a dict under an index */
	check_flatten("{\"l\": [[{\"name\": \"b0\", \"value\": 1.5}, {\"name\": \"b1\", "
		      "\"value\": 2}]]}",
		      "1.5:2");
	check_flatten("{\"l\": [{\"uid\": {\"line\": 1, \"file\": \"a\"}}]}", "1:a:a:1");
	/* empty containers are empty texts */
	check_flatten("{\"e\": {}, \"l\": [], \"s\": \"\", \"d\": {\"x\": []}}", "::::");
	check_flatten("{}", "");
	check_flatten("[]", "");
	check_flatten("\"a:b\"", "a:b");
	check_flatten("42", "42");
	check_flatten("-0.5", "-0.5");
	check_flatten("null", "None");
	check_flatten("false", "False");
	/* Python fails on names that are not strings; here it stays a list */
	check_flatten("{\"c\": [{\"name\": 1, \"value\": 1}, {\"name\": \"a\", \"value\": 2}]}",
		      "1:1,a:2");
}

static void test_items(void)
{
	check_items("{\"uid\": {\"line\": 3, \"zeta\": \"z\", \"source\": \"a.c\", "
		    "\"function\": \"main\"}, \"amount\": \"\\u0000NaN\", \"type\": \"memory\"}",
		    "uid:line=3[int]\n"
		    "uid:zeta=z[str]\n"
		    "uid:source=a.c[str]\n"
		    "uid:function=main[str]\n"
		    "uid=a.c:main:3:z[str]\n"
		    "amount=nan[float]\n"
		    "type=memory[str]\n");
	check_items("{\"coeffs\": [{\"name\": \"b0\", \"value\": 1.5}, {\"name\": \"b1\", "
		    "\"value\": 0.0}], \"model\": \"linear\", \"r_square\": 1}",
		    "coeffs:b0=1.5[float]\n"
		    "coeffs:b1=0.0[float]\n"
		    "coeffs=1.5:0.0[str]\n"
		    "model=linear[str]\n"
		    "r_square=1[int]\n");
	check_items("{\"x\": {\"y\": {\"line\": 2, \"file\": \"f\"}}, \"l\": [1, {\"a\": 2}], "
		    "\"e\": {}, \"t\": true, \"n\": null}",
		    "x:y:line=2[int]\n"
		    "x:y:file=f[str]\n"
		    "x:y=f:2[str]\n"
		    "x=f:2:f:2[str]\n"
		    "l=1,2[str]\n"
		    "e=[str]\n"
		    "t=True[True]\n"
		    "n=None[None]\n");
	check_items("{}", "");
	/* the same records as whole values */
	check_flatten("{\"uid\": {\"line\": 3, \"zeta\": \"z\", \"source\": \"a.c\", "
		      "\"function\": \"main\"}, \"amount\": \"\\u0000NaN\", \"type\": \"memory\"}",
		      "a.c:main:3:z:memory:nan:3:z:a.c:main");
	check_flatten("{\"x\": {\"y\": {\"line\": 2, \"file\": \"f\"}}, \"l\": [1, {\"a\": 2}], "
		      "\"e\": {}, \"t\": true, \"n\": null}",
		      ":1,2:None:True:f:2:f:2:f:2:f:2");
}

static int stop_at_second(const char *key, const json_t *value, void *data)
{
	(void)key;
	(void)value;
	return ++*(int *)data == 2 ? 7 : 0;
}

static void test_items_errors(void)
{
	struct perun_error err = { 0 };
	json_t *list = parse("[1, 2]");
	tap_ok(perun_items_of(list, collect_item, NULL, &err) == -PERUN_EINVAL,
	       "items of a list: -PERUN_EINVAL");
	tap_is_str(err.message, "cannot flatten: not an object", "items of a list: the message");
	json_decref(list);

	/* fn's own value comes back as it is, and nothing follows it */
	json_t *record = parse("{\"a\": 1, \"b\": {\"c\": 2}, \"d\": 3}");
	int calls = 0;
	perun_error_clear(&err);
	tap_ok(perun_items_of(record, stop_at_second, &calls, &err) == 7 && calls == 2,
	       "a non-zero return from fn stops the walk and is returned");
	tap_ok(!err.message[0], "a stop by fn leaves err alone");
	json_decref(record);
}

static int first_value(const char *key, const json_t *value, void *data)
{
	(void)key;
	*(const json_t **)data = value;
	return 1;
}

static void test_items_borrow(void)
{
	json_t *record = parse("{\"amount\": 2.5}");
	const json_t *seen = NULL;
	perun_items_of(record, first_value, &seen, NULL);
	tap_ok(seen == json_object_get(record, "amount"),
	       "a scalar item is the record's own value");
	json_decref(record);
}

static void test_strbuf(void)
{
	struct perun_strbuf sb = PERUN_STRBUF_INIT;
	char *s = perun_strbuf_detach(&sb, NULL);
	tap_is_str(s, "", "an untouched buffer detaches as \"\"");
	free(s);

	size_t len = 0;
	perun_strbuf_addstr(&sb, "ab");
	perun_strbuf_addch(&sb, 'c');
	perun_strbuf_add(&sb, "d\0e", 3);
	perun_strbuf_addf(&sb, "%s-%d",
			  "0123456789012345678901234567890123456789"
			  "0123456789012345678901234567890123456789",
			  42);
	perun_strbuf_addrepeat(&sb, "=-", 3);
	perun_strbuf_addrepeat(&sb, "x", 0);
	perun_strbuf_addrepeat(&sb, "", 5);
	s = perun_strbuf_detach(&sb, &len);
	tap_ok(len == 6 + 80 + 3 + 6 && s && !memcmp(s, "abcd\0e0123", 10) &&
		       !strcmp(s + len - 9, "-42=-=-=-") && !s[len],
	       "add, addch, addf beyond the first guess, addrepeat, embedded NUL kept, length");
	free(s);
	tap_ok(!sb.buf && !sb.len && !sb.failed, "detach leaves the buffer empty");

	perun_strbuf_addstr(&sb, "kept?");
	tap_ok(perun_strbuf_grow(&sb, SIZE_MAX - 2) == -1 && sb.failed,
	       "an impossible size fails and marks the buffer");
	perun_strbuf_addstr(&sb, "more");
	perun_strbuf_addrepeat(&sb, "-", 3);
	perun_strbuf_addf(&sb, "%d", 1);
	tap_ok(sb.len == 5, "a failed buffer ignores additions");
	tap_ok(perun_strbuf_detach(&sb, NULL) == NULL, "a failed buffer detaches as NULL");
	tap_ok(!sb.buf && !sb.failed, "and is empty and usable again");
	perun_strbuf_addrepeat(&sb, "ab", SIZE_MAX / 2);
	tap_ok(sb.failed && !sb.len, "a repeat too long to hold fails");
	perun_strbuf_release(&sb);
	perun_strbuf_addstr(&sb, "x");
	perun_strbuf_release(&sb);
	tap_ok(!sb.buf && !sb.len && !sb.alloc, "release frees and resets");
}

int main(void)
{
	test_flatten();
	test_items();
	test_items_errors();
	test_items_borrow();
	test_strbuf();
	return tap_done();
}
