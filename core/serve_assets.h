/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The pages of perun serve, embedded at build time (scripts/embed-assets.sh). */
#ifndef PERUN_CORE_SERVE_ASSETS_H
#define PERUN_CORE_SERVE_ASSETS_H

#include <stddef.h>

struct perun_serve_asset {
	const char *name; /* file name in core/serve-assets/ */
	const unsigned char *data;
	size_t len;
};

/* Ends with a NULL name. */
extern const struct perun_serve_asset perun_serve_assets[];

#endif
