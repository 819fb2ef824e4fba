/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Perun's tag selectors, parsed without an instance (so that the fuzz
 * target reads exactly what perun_profiles_select does): "N@i", "N@p",
 * ranges "A@i-B@i" and "<rev>^N@i".
 */
#ifndef PERUN_CORE_SELECTOR_H
#define PERUN_CORE_SELECTOR_H

#include <stddef.h>
#include <perun/perun.h>

/* Beyond any index: a bigger N is read as this, never overflowing. */
#define PERUN_TAG_MAX 1000000000L

enum perun_selector_kind {
	PERUN_SELECTOR_OTHER,	/* a name, a SHA-1 or a path */
	PERUN_SELECTOR_TAG,	/* N@i, N@p */
	PERUN_SELECTOR_RANGE,	/* A@i-B@i, A@p-B@p */
	PERUN_SELECTOR_REV_TAG, /* <rev>^N@i */
};

struct perun_selector {
	enum perun_selector_kind kind;
	char letter;	/* 'i' or 'p' */
	long from, to;	/* 0..PERUN_TAG_MAX, from <= to; from == to for a tag */
	size_t rev_len; /* REV_TAG: the revision is the selector's first rev_len bytes */
};

/* Parse selector; a range mixing letters or going backwards is
 * PERUN_EINVAL (sel->kind is then RANGE). */
int perun_selector_parse(const char *selector, struct perun_selector *sel, struct perun_error *err);
/* Does selector name profiles by tag (a tag, a range, <rev>^N@i, valid or not)? */
int perun_selector_is_tag(const char *selector);

#endif
