/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Word frequencies in a hash table that keeps every occurrence in its
 * bucket and counts a word by walking the bucket: a word repeated k times
 * costs k*k/2 comparisons. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	struct node *next;
	char word[64];
};

static unsigned hash(const char *s)
{
	unsigned h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
	if (!f)
		return 2;
	static struct node *table[4096];
	char word[64];
	unsigned long best = 0;
	while (fscanf(f, "%63s", word) == 1) {
		struct node **b = &table[hash(word) % 4096], *n = malloc(sizeof(*n));
		unsigned long count = 1;
		for (struct node *p = *b; p; p = p->next)
			count += !strcmp(p->word, word);
		strcpy(n->word, word);
		n->next = *b;
		*b = n;
		if (count > best)
			best = count;
	}
	fclose(f);
	printf("%lu\n", best);
	return 0;
}
