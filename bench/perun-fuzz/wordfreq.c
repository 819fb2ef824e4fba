/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The paper's Table IV program: word frequencies in a chained hash table
 * of 4096 buckets, hashed with the Java 1.1 String.hashCode (-DJAVA11:
 * strings of 16 or more characters hash only every len/8-th character) or
 * with DJB's hash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	struct entry *next;
	unsigned long count;
	char word[];
};

static unsigned hash(const char *s, size_t len)
{
	unsigned h = 0;
#ifdef JAVA11
	if (len < 16)
		for (size_t i = 0; i < len; i++)
			h = h * 37 + (unsigned char)s[i];
	else
		for (size_t i = 0, skip = len / 8; i < len; i += skip)
			h = h * 39 + (unsigned char)s[i];
#else
	h = 5381;
	for (size_t i = 0; i < len; i++)
		h = h * 33 + (unsigned char)s[i];
#endif
	return h;
}

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
	if (!f)
		return 2;
	static struct entry *table[4096];
	char word[256];
	unsigned long distinct = 0;
	while (fscanf(f, "%255s", word) == 1) {
		size_t len = strlen(word);
		struct entry **b = &table[hash(word, len) % 4096], *e;
		for (e = *b; e && strcmp(e->word, word); e = e->next)
			;
		if (e) {
			e->count++;
			continue;
		}
		e = malloc(sizeof(*e) + len + 1);
		memcpy(e->word, word, len + 1);
		e->count = 1;
		e->next = *b;
		*b = e;
		distinct++;
	}
	fclose(f);
	printf("%lu\n", distinct);
	return 0;
}
