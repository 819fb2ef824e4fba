/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Test helper: load a profile with libperun and print it back.
 *   profile-tool compact <file>   json.dumps() form, origin kept
 *   profile-tool pending <file>   the pending-file form
 *   profile-tool count <file>     number of resources
 * Errors go to stderr as "profile-tool: <message>" with exit status 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perun/perun.h>

int main(int argc, char **argv)
{
	struct perun_error err = { 0 };
	struct perun_profile *p;
	if (argc != 3) {
		fprintf(stderr, "usage: profile-tool compact|pending|count <file>\n");
		return 2;
	}
	if (perun_profile_load_file(argv[2], &p, &err)) {
		fprintf(stderr, "profile-tool: %s\n", err.message);
		return 2;
	}
	int rc = 0;
	if (!strcmp(argv[1], "count")) {
		printf("%zu\n", perun_profile_resource_count(p));
	} else {
		size_t len;
		char *text = perun_profile_dump(
			p, strcmp(argv[1], "pending") ? PERUN_DUMP_COMPACT : PERUN_DUMP_PENDING, 1,
			&len);
		fwrite(text, 1, len, stdout);
		free(text);
	}
	perun_profile_free(p);
	return rc;
}
