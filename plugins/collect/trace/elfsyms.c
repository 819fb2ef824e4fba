/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Function symbols and USDT notes of an ELF file, read with libelf (Python
 * Perun runs nm -P and readelf for the same lists).  Probes are placed by
 * file offset, which is what uprobes take and what /proc/<pid>/maps maps
 * back, so both the ebpf and the instrument engine use one table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libiberty/demangle.h>

#include "trace.h"

char *trace_demangle(const char *name)
{
	char *d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
	return d ? d : strdup(name);
}

struct elf_file {
	int fd;
	Elf *elf;
	GElf_Phdr *loads;
	size_t nloads;
};

static int elf_file_open(struct elf_file *f, const char *path, struct perun_error *err)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return perun_error_set(err, PERUN_EGENERIC, "libelf is unusable: %s",
				       elf_errmsg(-1));
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		if (errno == ENOENT)
			return perun_error_set(err, PERUN_ENOTFOUND, "binary '%s' not found", path);
		return perun_error_set_errno(err, PERUN_EINVAL, errno, "cannot open '%s'", path);
	}
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF)
		return perun_error_set(err, PERUN_EINVAL, "'%s' is not an ELF binary", path);
	size_t nph;
	if (elf_getphdrnum(f->elf, &nph))
		return perun_error_set(err, PERUN_EINVAL, "'%s': %s", path, elf_errmsg(-1));
	f->loads = calloc(nph ? nph : 1, sizeof(*f->loads));
	if (!f->loads)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(f->elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->loads[f->nloads++] = ph;
	}
	return 0;
}

static void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->loads);
}

/* File offset of a virtual address, or -1 outside the loaded segments. */
static long long vaddr_to_offset(const struct elf_file *f, unsigned long long va)
{
	for (size_t i = 0; i < f->nloads; i++) {
		const GElf_Phdr *ph = &f->loads[i];
		if (va >= ph->p_vaddr && va < ph->p_vaddr + ph->p_filesz)
			return (long long)(va - ph->p_vaddr + ph->p_offset);
	}
	return -1;
}

static Elf_Scn *find_section(Elf *elf, Elf64_Word type, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, shdr) && shdr->sh_type == type)
			return scn;
	return NULL;
}

static int symcmp(const void *a, const void *b)
{
	const struct trace_symbol *x = a, *y = b;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	/* Of aliases the global name first: it is the one users know. */
	if (x->global != y->global)
		return x->global == 'T' ? -1 : y->global == 'T' ? 1 : 0;
	return strcmp(x->name, y->name);
}

void trace_symbols_free(struct trace_symbol *syms, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(syms[i].name);
	free(syms);
}

int trace_elf_functions(const char *path, struct trace_symbol **out, size_t *n, int *stripped,
			struct perun_error *err)
{
	struct elf_file f;
	struct trace_symbol *syms = NULL;
	size_t count = 0;
	int rc = elf_file_open(&f, path, err);
	if (rc)
		goto out;
	GElf_Shdr shdr;
	Elf_Scn *scn = find_section(f.elf, SHT_SYMTAB, &shdr);
	*stripped = !scn;
	if (!scn)
		scn = find_section(f.elf, SHT_DYNSYM, &shdr);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t total = data && shdr.sh_entsize ? shdr.sh_size / shdr.sh_entsize : 0;
	syms = calloc(total ? total : 1, sizeof(*syms));
	if (!syms) {
		rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < total; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		const char *name = elf_strptr(f.elf, shdr.sh_link, sym.st_name);
		long long off = vaddr_to_offset(&f, sym.st_value);
		if (!name || !*name || off < 0)
			continue;
		int bind = GELF_ST_BIND(sym.st_info);
		syms[count].global = bind == STB_GLOBAL ? 'T' : bind == STB_WEAK ? 'W' : 't';
		syms[count].name = strdup(name);
		syms[count].offset = (unsigned long long)off;
		syms[count].size = sym.st_size;
		if (!syms[count].name) {
			rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
			goto out;
		}
		count++;
	}
	qsort(syms, count, sizeof(*syms), symcmp);
out:
	elf_file_close(&f);
	if (rc) {
		trace_symbols_free(syms, count);
		return rc;
	}
	*out = syms;
	*n = count;
	return 0;
}

void trace_usdt_free(struct trace_usdt_note *notes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(notes[i].provider);
		free(notes[i].name);
	}
	free(notes);
}

/*
 * A stapsdt note (type 3) holds the probe's address, the link-time address
 * of .stapsdt.base and the semaphore, then provider, name and arguments as
 * strings; see systemtap's sdt.h.
 */
int trace_elf_usdt(const char *path, struct trace_usdt_note **out, size_t *n,
		   struct perun_error *err)
{
	struct elf_file f;
	struct trace_usdt_note *notes = NULL;
	size_t count = 0, alloc = 0;
	int rc = elf_file_open(&f, path, err);
	if (rc)
		goto out;
	size_t shstrndx;
	if (elf_getshdrstrndx(f.elf, &shstrndx)) {
		rc = perun_error_set(err, PERUN_EINVAL, "'%s': %s", path, elf_errmsg(-1));
		goto out;
	}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(f.elf, scn))) {
		GElf_Shdr shdr;
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		const char *sname = elf_strptr(f.elf, shstrndx, shdr.sh_name);
		if (!sname || strcmp(sname, ".note.stapsdt"))
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t pos = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while (data && (pos = gelf_getnote(data, pos, &nh, &name_off, &desc_off)) > 0) {
			const char *owner = (const char *)data->d_buf + name_off;
			if (nh.n_type != 3 || strcmp(owner, "stapsdt") || nh.n_descsz < 24 + 2)
				continue;
			const char *desc = (const char *)data->d_buf + desc_off;
			unsigned long long pc;
			memcpy(&pc, desc, sizeof(pc));
			const char *prov = desc + 24;
			const char *end = desc + nh.n_descsz;
			const char *name = memchr(prov, 0, (size_t)(end - prov));
			if (!name || ++name >= end || !memchr(name, 0, (size_t)(end - name)))
				continue;
			long long off = vaddr_to_offset(&f, pc);
			if (off < 0)
				continue;
			if (count == alloc) {
				alloc = alloc ? 2 * alloc : 16;
				void *p = realloc(notes, alloc * sizeof(*notes));
				if (!p) {
					rc = perun_error_set(err, PERUN_EGENERIC, "out of memory");
					goto out;
				}
				notes = p;
			}
			notes[count].provider = strdup(prov);
			notes[count].name = strdup(name);
			notes[count].offset = (unsigned long long)off;
			count++;
		}
	}
out:
	elf_file_close(&f);
	if (rc) {
		trace_usdt_free(notes, count);
		return rc;
	}
	*out = notes;
	*n = count;
	return 0;
}

int trace_elf_references(const char *path, const char *symbol)
{
	struct elf_file f;
	int found = 0;
	if (elf_file_open(&f, path, NULL))
		goto out;
	GElf_Shdr shdr;
	Elf_Scn *scn = find_section(f.elf, SHT_DYNSYM, &shdr);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t total = data && shdr.sh_entsize ? shdr.sh_size / shdr.sh_entsize : 0;
	for (size_t i = 0; i < total && !found; i++) {
		GElf_Sym sym;
		const char *name;
		if (gelf_getsym(data, (int)i, &sym) && sym.st_shndx == SHN_UNDEF &&
		    (name = elf_strptr(f.elf, shdr.sh_link, sym.st_name)))
			found = !strcmp(name, symbol);
	}
out:
	elf_file_close(&f);
	return found;
}
