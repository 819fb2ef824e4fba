/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The probe table: what the strategy extracts from the binary and --libs
 * (functions from the symbol table, USDT probes from .note.stapsdt), then
 * the user's --func/--usdt/--dynamic rules on top, which win (Python
 * Perun's strategy.py).  A probe's index is its id in the raw events.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "trace.h"

static int add_probe(struct trace_probes *p, const struct trace_probe *probe,
		     struct perun_error *err)
{
	if (p->n + 1 >= TRACE_MAX_IDS)
		return perun_error_set(err, PERUN_EINVAL,
				       "probe limit exceeded: more than %u probes",
				       TRACE_MAX_IDS - 1);
	if (p->n == p->alloc) {
		size_t alloc = p->alloc ? 2 * p->alloc : 64;
		void *v = realloc(p->v, alloc * sizeof(*p->v));
		if (!v)
			return perun_error_set(err, PERUN_EGENERIC, "out of memory");
		p->v = v;
		p->alloc = alloc;
	}
	p->v[p->n] = *probe;
	struct trace_probe *q = &p->v[p->n];
	q->name = strdup(probe->name);
	q->uid = strdup(probe->uid ? probe->uid : probe->name);
	q->lib = strdup(probe->lib);
	q->provider = probe->provider ? strdup(probe->provider) : NULL;
	if (!q->name || !q->uid || !q->lib || (probe->provider && !q->provider)) {
		free(q->name);
		free(q->uid);
		free(q->lib);
		free(q->provider);
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	}
	const char *slash = strrchr(q->lib, '/');
	q->location = slash ? slash + 1 : q->lib;
	p->n++;
	return 0;
}

void trace_probes_release(struct trace_probes *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].name);
		free(p->v[i].uid);
		free(p->v[i].lib);
		free(p->v[i].provider);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}

static int find_probe(const struct trace_probes *p, enum trace_probe_kind kind, const char *lib,
		      const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].kind == kind && !strcmp(p->v[i].name, name) &&
		    !strcmp(p->v[i].lib, lib))
			return (int)i;
	return -1;
}

/* Python Perun's _filter_user_symbol: no compiler or libc internals. */
static int user_symbol(const char *name)
{
	if (!strncmp(name, "__", 2) && (strncmp(name, "__Z", 3) || strlen(name) < 4))
		return 0;
	/* Beyond Python Perun's list: the C runtime's start-up and exit code. */
	static const char *const crt[] = { "_start",
					   "_init",
					   "_fini",
					   "frame_dummy",
					   "register_tm_clones",
					   "deregister_tm_clones",
					   "_dl_relocate_static_pie",
					   NULL };
	for (int i = 0; crt[i]; i++)
		if (!strcmp(name, crt[i]))
			return 0;
	return !strchr(name, '.');
}

/* Does a symbol match what the user wrote: mangled, demangled, or the
 * demangled name without its parameter list? */
static int symbol_matches(const char *mangled, const char *demangled, const char *want)
{
	if (!strcmp(mangled, want) || !strcmp(demangled, want))
		return 1;
	const char *paren = strchr(demangled, '(');
	return paren && strlen(want) == (size_t)(paren - demangled) &&
	       !strncmp(demangled, want, strlen(want));
}

struct target {
	const char *path;
	struct trace_symbol *syms;
	size_t nsyms;
	int stripped;
	struct trace_usdt_note *notes;
	size_t nnotes;
};

static int load_target(struct target *t, const char *path, struct perun_error *err)
{
	memset(t, 0, sizeof(*t));
	t->path = path;
	int rc = trace_elf_functions(path, &t->syms, &t->nsyms, &t->stripped, err);
	if (!rc)
		rc = trace_elf_usdt(path, &t->notes, &t->nnotes, err);
	return rc;
}

static void release_target(struct target *t)
{
	trace_symbols_free(t->syms, t->nsyms);
	trace_usdt_free(t->notes, t->nnotes);
}

static int add_function(struct trace_probes *p, const struct target *t,
			const struct trace_symbol *s, unsigned sample, struct perun_error *err)
{
	char *uid = trace_demangle(s->name);
	if (!uid)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	struct trace_probe probe = {
		.kind = TRACE_PROBE_FUNC,
		.name = s->name,
		.uid = uid,
		.lib = (char *)t->path,
		.offset = s->offset,
		.size = s->size,
		.sample = sample,
		.pair = -1,
	};
	int rc = add_probe(p, &probe, err);
	free(uid);
	return rc;
}

static int extract_functions(struct trace_probes *p, const struct target *t, int user,
			     unsigned sample, struct perun_error *err)
{
	for (size_t i = 0; i < t->nsyms; i++) {
		const struct trace_symbol *s = &t->syms[i];
		/* Aliases share an address: probe it once (the list is sorted). */
		if (i && s->offset == t->syms[i - 1].offset)
			continue;
		if (user ? !user_symbol(s->name) : s->global == 't')
			continue;
		if (find_probe(p, TRACE_PROBE_FUNC, t->path, s->name) >= 0)
			continue;
		int rc = add_function(p, t, s, sample, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int add_usdt(struct trace_probes *p, const struct target *t, const char *name,
		    unsigned sample, struct perun_error *err)
{
	int existing = find_probe(p, TRACE_PROBE_USDT, t->path, name);
	if (existing >= 0) {
		p->v[existing].sample = sample;
		return 0;
	}
	for (size_t i = 0; i < t->nnotes; i++) {
		if (strcmp(t->notes[i].name, name))
			continue;
		struct trace_probe probe = {
			.kind = TRACE_PROBE_USDT,
			.name = (char *)name,
			.lib = (char *)t->path,
			.provider = t->notes[i].provider,
			.offset = t->notes[i].offset,
			.sample = sample,
			.pair = -1,
		};
		return add_probe(p, &probe, err);
	}
	return perun_error_set(err, PERUN_EINVAL, "usdt probe '%s' not found in '%s'", name,
			       t->path);
}

/* Suffixes that open and close a region (strategy.py's _pair_rules). */
static const char *const begin_suffixes[] = {
	"begin", "entry", "start", "create", "construct", NULL
};
static const char *const end_suffixes[] = { "end",     "return",      "finish",
					    "destroy", "deconstruct", NULL };

/* Split name into a stem and the index of its suffix in list (-1: none). */
static int suffix_of(const char *name, const char *const *list, size_t *stem_len)
{
	size_t len = strlen(name);
	for (int i = 0; list[i]; i++) {
		size_t sl = strlen(list[i]);
		if (len > sl && !strcasecmp(name + len - sl, list[i])) {
			size_t stem = len - sl;
			while (stem > 0 && (name[stem - 1] == '_' || name[stem - 1] == '-'))
				stem--;
			*stem_len = stem;
			return i;
		}
	}
	*stem_len = len;
	return -1;
}

/* An annotation's async pair: perun:<x>_async_start and <x>_async_finish. */
static int async_pair(const struct trace_probe *b, const struct trace_probe *e)
{
	static const char bs[] = "_async_start", es[] = "_async_finish";
	size_t bl = strlen(b->name), el = strlen(e->name);
	return b->provider && e->provider && !strcmp(b->provider, "perun") &&
	       !strcmp(e->provider, "perun") && bl > sizeof(bs) - 1 && el > sizeof(es) - 1 &&
	       !strcmp(b->name + bl - (sizeof(bs) - 1), bs) &&
	       !strcmp(e->name + el - (sizeof(es) - 1), es);
}

static void pair(struct trace_probes *p, int b, int e)
{
	p->v[b].pair = e;
	p->v[e].pair = b;
	p->v[b].async = p->v[e].async = async_pair(&p->v[b], &p->v[e]);
	p->v[e].kind = TRACE_PROBE_USDT_END;
	unsigned s = p->v[b].sample < p->v[e].sample ? p->v[b].sample : p->v[e].sample;
	p->v[b].sample = p->v[e].sample = s;
	char *uid;
	if (asprintf(&uid, "%s#%s", p->v[b].name, p->v[e].name) >= 0) {
		free(p->v[b].uid);
		p->v[b].uid = uid;
	}
}

/* Pair <name> or <name>_begin with <name>_end and the like; ends that
 * find no beginning stay single probes, timed between two hits. */
static void pair_usdt(struct trace_probes *p)
{
	for (size_t e = 0; e < p->n; e++) {
		if (p->v[e].kind != TRACE_PROBE_USDT || p->v[e].pair >= 0)
			continue;
		size_t estem;
		int es = suffix_of(p->v[e].name, end_suffixes, &estem);
		if (es < 0)
			continue;
		for (size_t b = 0; b < p->n; b++) {
			if (b == e || p->v[b].kind != TRACE_PROBE_USDT || p->v[b].pair >= 0 ||
			    strcmp(p->v[b].lib, p->v[e].lib))
				continue;
			size_t bstem;
			int bs = suffix_of(p->v[b].name, begin_suffixes, &bstem);
			if (suffix_of(p->v[b].name, end_suffixes, &(size_t){ 0 }) >= 0)
				continue;
			/* <name> pairs with any end, <x>_begin with <x>_end only. */
			if (bs >= 0 && bs != es)
				continue;
			if (bstem == estem && !strncmp(p->v[b].name, p->v[e].name, bstem)) {
				pair(p, (int)b, (int)e);
				break;
			}
		}
	}
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].kind == TRACE_PROBE_USDT && p->v[i].pair < 0) {
			/* Single probes are never sampled (as in Python Perun). */
			p->v[i].sample = 1;
			char *uid;
			if (asprintf(&uid, "%s#%s", p->v[i].name, p->v[i].name) >= 0) {
				free(p->v[i].uid);
				p->v[i].uid = uid;
			}
		}
}

/*
 * A rule: [<lib>#]<name>[#<pair>][#<sampling>].  The first part is a
 * library when it names one of the targets (by path or basename); the last
 * is the sampling when it is a number; a USDT name may also carry its pair
 * after ';' as in Python Perun.
 */
struct rule {
	const struct target *target; /* NULL: search all */
	char *name, *pair;
	unsigned sample;
};

static const struct target *target_named(const struct target *t, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++) {
		const char *slash = strrchr(t[i].path, '/');
		if (!strcmp(t[i].path, s) || !strcmp(slash ? slash + 1 : t[i].path, s))
			return &t[i];
	}
	return NULL;
}

static int parse_rule(const char *text, const struct target *t, size_t nt, unsigned deflt,
		      struct rule *r, const char *opt, struct perun_error *err)
{
	char *copy = strdup(text), *parts[4];
	size_t n = 0;
	if (!copy)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	for (char *s = copy, *tok; (tok = strsep(&s, "#"));)
		if (n < 4)
			parts[n++] = tok;
		else
			n = 5;
	memset(r, 0, sizeof(*r));
	r->sample = deflt;
	if (n > 4) {
		free(copy);
		goto syntax;
	}
	size_t first = 0, last = n;
	if (n > 1 && n <= 4) {
		const char *s = parts[n - 1];
		char *end;
		unsigned long v = strtoul(s, &end, 10);
		if (*s && !*end) {
			if (v < 1 || v > (1u << 24) - 1) {
				free(copy);
				return perun_error_set(err, PERUN_EINVAL,
						       "bad %s rule '%s': sampling must be 1 to %u",
						       opt, text, (1u << 24) - 1);
			}
			r->sample = (unsigned)v;
			last--;
		}
	}
	if (last - first > 1 && (r->target = target_named(t, nt, parts[0])))
		first++;
	else if (last - first > 1 && !strcmp(opt, "--func") && *parts[0]) {
		int rc = perun_error_set(err, PERUN_EINVAL,
					 "bad --func rule '%s': '%s' is neither the binary nor "
					 "one of --libs",
					 text, parts[0]);
		free(copy);
		return rc;
	} else if (last - first > 1 && !*parts[0]) {
		first++;
	}
	size_t words = last - first;
	if (words < 1 || words > 2 || !*parts[first] ||
	    (words == 2 && (strcmp(opt, "--usdt") || !*parts[first + 1]))) {
		free(copy);
		goto syntax;
	}
	char *semi = strchr(parts[first], ';');
	if (semi && words == 1) {
		*semi = '\0';
		r->pair = strdup(semi + 1);
	} else if (words == 2) {
		r->pair = strdup(parts[first + 1]);
	}
	r->name = strdup(parts[first]);
	free(copy);
	return r->name ? 0 : perun_error_set(err, PERUN_EGENERIC, "out of memory");
syntax:
	return perun_error_set(err, PERUN_EINVAL,
			       "bad %s rule '%s' (expected [<lib>#]<name>%s[#<sampling>])", opt,
			       text, strcmp(opt, "--usdt") ? "" : "[#<pair>]");
}

static int apply_func_rule(struct trace_probes *p, const struct target *t, size_t nt,
			   const struct rule *r, const char *text, struct perun_error *err)
{
	for (size_t k = 0; k < nt; k++) {
		const struct target *tg = &t[k];
		if (r->target && r->target != tg)
			continue;
		for (size_t i = 0; i < tg->nsyms; i++) {
			char *dem = trace_demangle(tg->syms[i].name);
			int match = dem && symbol_matches(tg->syms[i].name, dem, r->name);
			free(dem);
			if (!match)
				continue;
			int at = find_probe(p, TRACE_PROBE_FUNC, tg->path, tg->syms[i].name);
			if (at >= 0) {
				p->v[at].sample = r->sample;
				return 0;
			}
			return add_function(p, tg, &tg->syms[i], r->sample, err);
		}
	}
	const struct target *where = r->target ? r->target : &t[0];
	if (where->stripped)
		return perun_error_set(err, PERUN_EINVAL,
				       "function '%s' (--func '%s') not found: '%s' is stripped "
				       "(no symbol table)",
				       r->name, text, where->path);
	return perun_error_set(err, PERUN_EINVAL, "function '%s' (--func '%s') not found in '%s'%s",
			       r->name, text, where->path,
			       r->target || nt == 1 ? "" : " nor in --libs");
}

static int apply_usdt_rule(struct trace_probes *p, const struct target *t, size_t nt,
			   const struct rule *r, struct perun_error *err)
{
	const struct target *tg = r->target;
	for (size_t k = 0; !tg && k < nt; k++)
		for (size_t i = 0; i < t[k].nnotes && !tg; i++)
			if (!strcmp(t[k].notes[i].name, r->name))
				tg = &t[k];
	if (!tg)
		return perun_error_set(err, PERUN_EINVAL, "usdt probe '%s' not found in '%s'%s",
				       r->name, t[0].path, nt > 1 ? " nor in --libs" : "");
	int rc = add_usdt(p, tg, r->name, r->sample, err);
	if (rc || !r->pair)
		return rc;
	rc = add_usdt(p, tg, r->pair, r->sample, err);
	if (rc)
		return rc;
	int b = find_probe(p, TRACE_PROBE_USDT, tg->path, r->name);
	int e = find_probe(p, TRACE_PROBE_USDT, tg->path, r->pair);
	if (b == e)
		return perun_error_set(err, PERUN_EINVAL, "usdt probe '%s' cannot pair with itself",
				       r->name);
	pair(p, b, e);
	return 0;
}

/* A dynamic location: <symbol>+<offset>, or a file offset 0x... */
static int apply_dynamic_rule(struct trace_probes *p, const struct target *t, size_t nt,
			      const struct rule *r, const char *text, struct perun_error *err)
{
	const struct target *tg = r->target ? r->target : &t[0];
	char *end;
	unsigned long long off = 0;
	char *plus = strchr(r->name, '+');
	if (!strncmp(r->name, "0x", 2)) {
		off = strtoull(r->name, &end, 16);
		if (*end)
			goto bad;
	} else {
		size_t len = plus ? (size_t)(plus - r->name) : strlen(r->name);
		unsigned long long add = plus ? strtoull(plus + 1, &end, 0) : 0;
		if (plus && (*end || !plus[1]))
			goto bad;
		size_t i;
		for (i = 0; i < tg->nsyms; i++)
			if (strlen(tg->syms[i].name) == len &&
			    !strncmp(tg->syms[i].name, r->name, len))
				break;
		if (i == tg->nsyms)
			return perun_error_set(err, PERUN_EINVAL,
					       "dynamic location '%s': symbol not found in '%s'",
					       text, tg->path);
		if (add >= tg->syms[i].size && tg->syms[i].size)
			return perun_error_set(err, PERUN_EINVAL,
					       "dynamic location '%s': offset beyond the function "
					       "(%llu bytes)",
					       text, tg->syms[i].size);
		off = tg->syms[i].offset + add;
	}
	(void)nt;
	struct trace_probe probe = {
		.kind = TRACE_PROBE_POINT,
		.name = r->name,
		.lib = (char *)tg->path,
		.offset = off,
		.sample = 1,
		.pair = -1,
	};
	char *uid;
	if (asprintf(&uid, "%s#%s", r->name, r->name) < 0)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	probe.uid = uid;
	int rc = add_probe(p, &probe, err);
	free(uid);
	return rc;
bad:
	return perun_error_set(
		err, PERUN_EINVAL,
		"bad dynamic location '%s' (expected <symbol>[+<offset>] or 0x<file offset>)",
		text);
}

/* The USDT probes of the targets (of provider only, unless NULL). */
static int add_notes(struct trace_probes *p, const struct target *t, size_t nt,
		     const char *provider, unsigned sample, struct perun_error *err)
{
	int rc = 0;
	for (size_t i = 0; i < nt && !rc; i++)
		for (size_t k = 0; k < t[i].nnotes && !rc; k++)
			if ((!provider || !strcmp(t[i].notes[k].provider, provider)) &&
			    find_probe(p, TRACE_PROBE_USDT, t[i].path, t[i].notes[k].name) < 0)
				rc = add_usdt(p, &t[i], t[i].notes[k].name, sample, err);
	return rc;
}

int trace_probes_build(struct trace_probes *p, const struct trace_config *cfg,
		       const struct perun_params *params, struct perun_error *err)
{
	size_t nt = 1 + cfg->nlibs;
	struct target *t = calloc(nt, sizeof(*t));
	int rc = 0;
	if (!t)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	for (size_t i = 0; i < nt && !rc; i++)
		rc = load_target(&t[i], i ? cfg->libs[i - 1] : cfg->binary, err);
	if (rc)
		goto out;

	const char *s = cfg->strategy;
	int custom = !strcmp(s, "custom");
	int user = !strcmp(s, "userspace") || !strcmp(s, "u_sampled");
	if (!custom) {
		if (user && t[0].stripped) {
			rc = perun_error_set(err, PERUN_EINVAL,
					     "binary '%s' is stripped: it has no symbol table to "
					     "take functions from (rebuild it without -s)",
					     cfg->binary);
			goto out;
		}
		for (size_t i = 0; i < nt && !rc; i++)
			rc = extract_functions(p, &t[i], user, cfg->global_sampling, err);
		if (cfg->with_usdt)
			rc = add_notes(p, t, nt, NULL, cfg->global_sampling, err);
		if (rc)
			goto out;
	}
	static const char *const opts[] = { "func", "usdt", "dynamic" };
	for (int o = 0; o < 3 && !rc; o++) {
		char flag[16];
		snprintf(flag, sizeof(flag), "--%s", opts[o]);
		for (size_t i = 0; i < perun_params_count(params, opts[o]) && !rc; i++) {
			const char *text = perun_params_string_at(params, opts[o], i);
			struct rule r;
			rc = parse_rule(text, t, nt, cfg->global_sampling, &r, flag, err);
			if (rc)
				break;
			if (o == 0)
				rc = apply_func_rule(p, t, nt, &r, text, err);
			else if (o == 1)
				rc = apply_usdt_rule(p, t, nt, &r, err);
			else
				rc = apply_dynamic_rule(p, t, nt, &r, text, err);
			free(r.name);
			free(r.pair);
		}
	}
	/* Annotations (<perun/annotate.h>: provider "perun") are traced
	 * without rules when the custom strategy was given none. */
	if (!rc && custom && !p->n && cfg->with_usdt)
		rc = add_notes(p, t, nt, "perun", cfg->global_sampling, err);
	if (rc)
		goto out;
	pair_usdt(p);
	if (!p->n)
		rc = perun_error_set(err, PERUN_EINVAL,
				     custom ? "nothing to trace: the custom strategy needs "
					      "--func, --usdt or --dynamic rules (or annotations)"
					    : "nothing to trace: no functions found in '%s'",
				     cfg->binary);
out:
	for (size_t i = 0; i < nt; i++)
		release_target(&t[i]);
	free(t);
	return rc;
}

void trace_probes_write(const struct trace_probes *p, FILE *f)
{
	static const char *const kinds[] = { "func", "usdt", "usdt-end", "dynamic" };
	fprintf(f, "# id kind sampling offset location name uid pair\n");
	for (size_t i = 0; i < p->n; i++)
		fprintf(f, "%zu %s %u 0x%llx %s %s %s %d\n", i, kinds[p->v[i].kind], p->v[i].sample,
			p->v[i].offset, p->v[i].location, p->v[i].name, p->v[i].uid, p->v[i].pair);
}
