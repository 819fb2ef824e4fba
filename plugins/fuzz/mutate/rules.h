/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Mutation rules of the mutate fuzzer: text (T.1-T.15), binary (B.1-B.6),
 * XML/HTML (D.1-D.4) and regex rules read from YAML.  A rule set is a plain
 * array, so another set is a table more, not a change of the loop.
 */
#ifndef PERUN_FUZZ_MUTATE_RULES_H
#define PERUN_FUZZ_MUTATE_RULES_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include <perun/plugin.h>

/* splitmix64: small, fast and the same on every machine, so --seed
 * repeats a run. */
struct mut_rng {
	uint64_t s;
};
uint64_t mut_rng_next(struct mut_rng *r);
/* Uniform in [lo, hi] (inclusive). */
size_t mut_rng_range(struct mut_rng *r, size_t lo, size_t hi);
double mut_rng_unit(struct mut_rng *r);

/* A growable byte buffer (mutants may hold NUL bytes). */
struct mut_buf {
	unsigned char *data;
	size_t len, alloc;
};
/* Room for need elements of size bytes in *items (*cap of them now; see
 * perun_array_grow); out of memory, a message and abort: the fuzzer has
 * no sensible way on. */
void mut_grow(void **items, size_t *cap, size_t need, size_t size);

void mut_buf_set(struct mut_buf *b, const void *data, size_t len);
void mut_buf_release(struct mut_buf *b);
/* Replace the bytes [at, at + del) by ins of ins_len bytes. */
void mut_buf_splice(struct mut_buf *b, size_t at, size_t del, const void *ins, size_t ins_len);

struct mut_rule;
/* Change b once; returns 0 when the rule found nothing to change. */
typedef int (*mut_rule_fn)(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r);

struct mut_rule {
	const char *id;	  /* "T.1", "B.3", "D.2", "R.1" */
	const char *desc; /* one line */
	mut_rule_fn fn;
	/* Regex rules only. */
	regex_t re;
	char *replacement;
	char *pattern;
};

enum mut_file_type {
	MUT_FILE_TEXT = 1,
	MUT_FILE_XML = 2,
	MUT_FILE_BINARY = 3,
};

/* What rules suit data (named path): binary unless it is text; XML for
 * xml/html/svg/xhtml/xul files or ones starting with a tag. */
enum mut_file_type mut_file_type(const char *path, const unsigned char *data, size_t len);

extern const struct mut_rule mut_text_rules[];
extern const size_t mut_text_nrules;
extern const struct mut_rule mut_binary_rules[];
extern const size_t mut_binary_nrules;
extern const struct mut_rule mut_xml_rules[];
extern const size_t mut_xml_nrules;

/* The rules of a run, in order: regex rules first (as upstream), then the
 * set of the file type.  hits counts successes per rule. */
struct mut_ruleset {
	struct mut_rule *rules; /* copies; regex rules own their regex */
	size_t n;
	size_t nregex;
	size_t *hits;
	size_t total_hits;
};
/* Read "pattern: replacement" pairs from a YAML mapping file. */
int mut_ruleset_init(struct mut_ruleset *set, enum mut_file_type type, const char *regex_yaml,
		     struct perun_error *err);
void mut_ruleset_release(struct mut_ruleset *set);

/* Apply rule 1..10 times (upstream's RULE_ITERATIONS); 0 when nothing
 * changed. */
int mut_rule_apply(const struct mut_rule *rule, struct mut_buf *b, struct mut_rng *r);

#endif
