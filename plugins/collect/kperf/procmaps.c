/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The mappings of each sampled process, as the kernel reported them
 * (PERF_RECORD_MMAP2) or /proc/<pid>/maps showed them, written back as
 * maps text for libdwfl's own parser (dwfl_linux_proc_maps_report), which
 * knows how segments make modules and their load bias.  The process may be
 * long gone when its stacks are named: nothing is read from /proc then.
 * Frame names are cached per process and address.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kperf.h"

struct mapping {
	struct kperf_mapping m;
	char *path;
};

struct proc {
	pid_t pid;
	struct mapping *maps;
	size_t nmaps, cap;
	Dwfl *dwfl;
	int stale;	/* mappings changed since dwfl was built */
	json_t *frames; /* address (hex) -> name */
};

/* Per module: frames named and not, for the warning about stripped ones. */
struct module_use {
	char *name;
	unsigned long named, unnamed;
};

struct kperf_procs {
	struct proc *v;
	size_t n, cap;
	size_t last; /* the last looked up: samples come in runs */
	struct module_use *modules;
	size_t nmodules;
	char *unsymbolized;
};

struct kperf_procs *kperf_procs_new(void)
{
	return calloc(1, sizeof(struct kperf_procs));
}

static void proc_release(struct proc *p)
{
	for (size_t i = 0; i < p->nmaps; i++)
		free(p->maps[i].path);
	free(p->maps);
	if (p->dwfl)
		dwfl_end(p->dwfl);
	json_decref(p->frames);
}

void kperf_procs_free(struct kperf_procs *procs)
{
	if (!procs)
		return;
	for (size_t i = 0; i < procs->n; i++)
		proc_release(&procs->v[i]);
	for (size_t i = 0; i < procs->nmodules; i++)
		free(procs->modules[i].name);
	free(procs->modules);
	free(procs->unsymbolized);
	free(procs->v);
	free(procs);
}

static struct proc *find(struct kperf_procs *procs, pid_t pid, int create)
{
	if (procs->last < procs->n && procs->v[procs->last].pid == pid)
		return &procs->v[procs->last];
	for (size_t i = 0; i < procs->n; i++)
		if (procs->v[i].pid == pid) {
			procs->last = i;
			return &procs->v[i];
		}
	if (!create)
		return NULL;
	if (procs->n == procs->cap) {
		size_t ncap = procs->cap ? 2 * procs->cap : 16;
		struct proc *grown = realloc(procs->v, ncap * sizeof(*grown));
		if (!grown)
			return NULL;
		procs->v = grown;
		procs->cap = ncap;
	}
	struct proc *p = &procs->v[procs->n];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if (!(p->frames = json_object()))
		return NULL;
	procs->last = procs->n++;
	return p;
}

static int grow(struct proc *p)
{
	if (p->nmaps < p->cap)
		return 0;
	size_t ncap = p->cap ? 2 * p->cap : 32;
	struct mapping *grown = realloc(p->maps, ncap * sizeof(*grown));
	if (!grown)
		return -1;
	p->maps = grown;
	p->cap = ncap;
	return 0;
}

static int push(struct proc *p, const struct kperf_mapping *m)
{
	if (grow(p))
		return -1;
	struct mapping *n = &p->maps[p->nmaps];
	n->m = *m;
	if (!(n->path = strdup(m->path)))
		return -1;
	n->m.path = n->path;
	p->nmaps++;
	p->stale = 1;
	return 0;
}

/* A new mapping replaces what it overlaps, as mmap does: the loader maps
 * a whole ELF file first, then its segments over it. */
static int add_mapping(struct proc *p, const struct kperf_mapping *m)
{
	size_t n = p->nmaps;
	for (size_t i = 0; i < n; i++) {
		struct kperf_mapping o = p->maps[i].m;
		if (!(o.start < m->end && m->start < o.end))
			continue;
		if (o.end > m->end) { /* the tail beyond the new one stays */
			struct kperf_mapping tail = o;
			tail.pgoff += m->end - o.start;
			tail.start = m->end;
			if (push(p, &tail))
				return -1;
		}
		if (o.start < m->start) { /* so does the head before it */
			p->maps[i].m.end = m->start;
		} else {
			p->maps[i].m.end = p->maps[i].m.start; /* emptied */
		}
	}
	size_t kept = 0;
	for (size_t i = 0; i < p->nmaps; i++) {
		if (p->maps[i].m.end > p->maps[i].m.start)
			p->maps[kept++] = p->maps[i];
		else
			free(p->maps[i].path);
	}
	p->nmaps = kept;
	return push(p, m);
}

int kperf_procs_map(struct kperf_procs *procs, pid_t pid, const struct kperf_mapping *m)
{
	/* Only files: anonymous memory has no symbols to give. */
	if ((m->path[0] != '/' || !strcmp(m->path, "//anon")) && strcmp(m->path, "[vdso]"))
		return 0;
	struct proc *p = find(procs, pid, 1);
	return p ? add_mapping(p, m) : -1;
}

int kperf_procs_read_maps(struct kperf_procs *procs, pid_t pid, struct perun_error *err)
{
	char path[64], line[4096 + 128];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return perun_error_set_errno(err, PERUN_ETOOL, errno, "cannot read '%s'", path);
	int rc = 0;
	while (!rc && fgets(line, sizeof(line), f)) {
		struct kperf_mapping m = { 0 };
		unsigned long long start, end, pgoff, inode;
		int at = 0;
		if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end, m.perms, &pgoff,
			   &m.major, &m.minor, &inode, &at) < 7 ||
		    !at)
			continue;
		line[strcspn(line, "\n")] = '\0';
		m.start = start, m.end = end, m.pgoff = pgoff, m.inode = inode;
		m.path = line + at;
		rc = kperf_procs_map(procs, pid, &m);
	}
	fclose(f);
	return rc ? perun_error_set(err, PERUN_EGENERIC, "out of memory") : 0;
}

int kperf_procs_fork(struct kperf_procs *procs, pid_t parent, pid_t child)
{
	struct proc *from = find(procs, parent, 0);
	if (!from || find(procs, child, 0))
		return 0;
	size_t nmaps = from->nmaps;
	struct proc *to = find(procs, child, 1); /* may move from */
	from = find(procs, parent, 0);
	if (!to || !from)
		return -1;
	for (size_t i = 0; i < nmaps; i++)
		if (add_mapping(to, &from->maps[i].m))
			return -1;
	return 0;
}

void kperf_procs_exec(struct kperf_procs *procs, pid_t pid)
{
	struct proc *p = find(procs, pid, 0);
	if (!p)
		return;
	/* Stacks of the old image were named as they came (dwarf) or keep
	 * the names cached; the new image starts bare. */
	for (size_t i = 0; i < p->nmaps; i++)
		free(p->maps[i].path);
	p->nmaps = 0;
	p->stale = 1;
	json_object_clear(p->frames);
}

static int by_start(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;
	return x->m.start < y->m.start ? -1 : x->m.start > y->m.start;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static Dwfl *build_dwfl(struct proc *p)
{
	if (p->nmaps)
		qsort(p->maps, p->nmaps, sizeof(*p->maps), by_start);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		return NULL;
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct kperf_mapping *m = &p->maps[i].m;
		fprintf(out, "%llx-%llx %s %08llx %02x:%02x %llu %s\n",
			(unsigned long long)m->start, (unsigned long long)m->end,
			m->perms[0] ? m->perms : "r-xp", (unsigned long long)m->pgoff, m->major,
			m->minor, (unsigned long long)(m->inode ? m->inode : 1), m->path);
	}
	fclose(out);
	Dwfl *dwfl = dwfl_begin(&dwfl_callbacks);
	FILE *in = dwfl && text ? fmemopen(text, len ? len : 1, "r") : NULL;
	int rc = -1;
	if (in) {
		dwfl_report_begin(dwfl);
		rc = dwfl_linux_proc_maps_report(dwfl, in);
		if (!rc)
			rc = dwfl_report_end(dwfl, NULL, NULL);
		fclose(in);
	}
	free(text);
	if (rc && dwfl) {
		dwfl_end(dwfl);
		dwfl = NULL;
	}
	return dwfl;
}

Dwfl *kperf_procs_dwfl(struct kperf_procs *procs, pid_t pid)
{
	struct proc *p = find(procs, pid, 0);
	if (!p || !p->nmaps)
		return NULL;
	if (p->stale || !p->dwfl) {
		if (p->dwfl)
			dwfl_end(p->dwfl);
		p->dwfl = build_dwfl(p);
		p->stale = 0;
	}
	return p->dwfl;
}

static void note_module(struct kperf_procs *procs, const char *name, int named)
{
	for (size_t i = 0; i < procs->nmodules; i++)
		if (!strcmp(procs->modules[i].name, name)) {
			if (named)
				procs->modules[i].named++;
			else
				procs->modules[i].unnamed++;
			return;
		}
	struct module_use *grown = realloc(procs->modules, (procs->nmodules + 1) * sizeof(*grown));
	if (!grown)
		return;
	procs->modules = grown;
	struct module_use *u = &grown[procs->nmodules];
	if (!(u->name = strdup(name)))
		return;
	u->named = named ? 1 : 0;
	u->unnamed = !named;
	procs->nmodules++;
}

static char *demangled(const char *symbol)
{
	/* Without its version ("memcpy@@GLIBC_2.14"), as perf shows it. */
	char *bare = strndup(symbol, strcspn(symbol, "@"));
	char *d = bare ? cplus_demangle(bare, DMGL_PARAMS | DMGL_ANSI) : NULL;
	if (!d)
		return bare;
	free(bare);
	return d;
}

/* The functions inlined at addr, outermost first, each after a separator,
 * appended to out (libdw's scopes of the address: the inlined_subroutine
 * DIEs, innermost first). */
static void append_inlined(FILE *out, Dwfl_Module *mod, uint64_t addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
	Dwarf_Die *scopes = NULL;
	int n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
	for (int i = n - 1; i >= 0; i--) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		Dwarf_Attribute attr;
		const char *linkage = dwarf_formstring(
			dwarf_attr_integrate(&scopes[i], DW_AT_linkage_name, &attr));
		char *name = linkage ? demangled(linkage) : NULL;
		const char *plain = dwarf_diename(&scopes[i]);
		fprintf(out, "%c%s", KPERF_FRAME_SEPARATOR,
			name	? name
			: plain ? plain
				: "[inlined]");
		free(name);
	}
	free(scopes);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The name of addr in mod: demangled function, or module+offset as
 * addr2line -e takes it (an address relative to the ELF's own). */
static char *name_in_module(struct kperf_procs *procs, Dwfl_Module *mod, uint64_t addr)
{
	GElf_Off offset;
	GElf_Sym sym;
	const char *modname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	modname = modname ? base_name(modname) : "[unknown]";
	const char *symname = dwfl_module_addrinfo(mod, addr, &offset, &sym, NULL, NULL, NULL);
	note_module(procs, modname, symname && *symname);
	if (symname && *symname) {
		char *function = demangled(symname), *name = NULL;
		size_t len = 0;
		FILE *out = function ? open_memstream(&name, &len) : NULL;
		if (!out)
			return function;
		fputs(function, out);
		append_inlined(out, mod, addr);
		fclose(out);
		free(function);
		return name;
	}
	GElf_Addr bias = 0;
	dwfl_module_getelf(mod, &bias);
	char *name;
	if (asprintf(&name, "%s+0x%llx", modname, (unsigned long long)(addr - bias)) < 0)
		return NULL;
	return name;
}

/* The mapping of p that holds addr, or NULL. */
static const struct mapping *mapping_at(const struct proc *p, uint64_t addr)
{
	for (size_t i = 0; i < p->nmaps; i++)
		if (p->maps[i].m.start <= addr && addr < p->maps[i].m.end)
			return &p->maps[i];
	return NULL;
}

const char *kperf_procs_frame(struct kperf_procs *procs, pid_t pid, uint64_t addr)
{
	struct proc *p = find(procs, pid, 0);
	if (!p)
		return "[unknown]";
	char key[24];
	snprintf(key, sizeof(key), "%llx", (unsigned long long)addr);
	json_t *cached = json_object_get(p->frames, key);
	if (cached)
		return json_string_value(cached);
	Dwfl *dwfl = kperf_procs_dwfl(procs, pid);
	p = find(procs, pid, 0);
	/* Only code of a file names a frame.  A frame-pointer walk through
	 * a function without one reads any word as a return address; and
	 * libdwfl, given the maps as text, has no image of [vdso] and
	 * answers for it with the module of a file once mapped nearby
	 * (ld.so.cache, unmapped by then), which then warned of "no
	 * symbols in ld.so.cache".  Such frames are [vdso] or [unknown]. */
	const struct mapping *m = mapping_at(p, addr);
	int code = m && (!m->m.perms[0] || m->m.perms[2] == 'x');
	int pseudo = code && m->path && m->path[0] == '[';
	Dwfl_Module *mod = dwfl && code && !pseudo ? dwfl_addrmodule(dwfl, addr) : NULL;
	char *name = mod ? name_in_module(procs, mod, addr) : NULL;
	json_t *value = json_string(name ? name : pseudo ? m->path : "[unknown]");
	free(name);
	if (!value || json_object_set_new(p->frames, key, value))
		return "[unknown]";
	return json_string_value(value);
}

const char *kperf_procs_unsymbolized(struct kperf_procs *procs)
{
	free(procs->unsymbolized);
	procs->unsymbolized = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&procs->unsymbolized, &len);
	if (!out)
		return NULL;
	int first = 1;
	for (size_t i = 0; i < procs->nmodules; i++) {
		const struct module_use *u = &procs->modules[i];
		if (u->unnamed && !u->named && strcmp(u->name, "[vdso]")) {
			fprintf(out, "%s%s", first ? "" : ", ", u->name);
			first = 0;
		}
	}
	fclose(out);
	return first ? NULL : procs->unsymbolized;
}
