/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Symbols and lines of recorded return addresses, with elfutils' libdwfl
 * against the process's own recorded /proc/self/maps, after the run:
 * symbol (demangled as c++filt does, with libiberty), source file and
 * line, as Python Perun's frames.  Each distinct address is resolved once
 * per process.
 */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "symbols.h"

/* The preload library's file name: its frames are the allocators'. */
#define RUNTIME_NAME "libperun-malloc.so"

struct memory_symbols {
	char *maps; /* the newest /proc/self/maps copy */
	Dwfl *dwfl;
	int dwfl_failed;
	json_t *frames; /* "<hex address>" -> frame */
};

/*
 * Only debug information inside the files themselves: as in Python Perun,
 * the program's frames (and those of its own libraries built with -g) have
 * sources, while system libraries, whose debug information Debian ships
 * apart, stay "unreachable" even where it is installed.
 */
static int no_separate_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
				 Dwarf_Addr base, const char *file_name, const char *debuglink_file,
				 GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = no_separate_debuginfo,
};

static Dwfl *process_dwfl(struct memory_symbols *p)
{
	if (p->dwfl || p->dwfl_failed)
		return p->dwfl;
	p->dwfl_failed = 1;
	if (!p->maps)
		return NULL;
	Dwfl *dwfl = dwfl_begin(&dwfl_callbacks);
	FILE *f = dwfl ? fmemopen(p->maps, strlen(p->maps), "r") : NULL;
	if (!f) {
		if (dwfl)
			dwfl_end(dwfl);
		return NULL;
	}
	dwfl_report_begin(dwfl);
	int rc = dwfl_linux_proc_maps_report(dwfl, f);
	fclose(f);
	if (rc != 0 || dwfl_report_end(dwfl, NULL, NULL) != 0) {
		dwfl_end(dwfl);
		return NULL;
	}
	p->dwfl = dwfl;
	p->dwfl_failed = 0;
	return dwfl;
}

static json_t *make_frame(const char *function, const char *source, int line)
{
	return json_pack("{s:s, s:s, s:i}", "function", function, "source", source, "line", line);
}

/*
 * Frame of a return address (the call is the instruction before it, hence
 * addr - 1 for callers) as Python Perun writes it: function "?" and source
 * "unreachable" when unknown, line 0 without line information.  The
 * allocators' own frames (our wrappers) are "unreachable" as they are
 * there: they are not the program's source.
 */
static json_t *resolve_frame(struct memory_symbols *p, uint64_t addr)
{
	char key[24];
	snprintf(key, sizeof(key), "%llx", (unsigned long long)addr);
	json_t *cached = json_object_get(p->frames, key);
	if (cached)
		return json_incref(cached);

	const char *function = "?", *source = "unreachable";
	int line = 0;
	char *demangled = NULL;
	Dwfl *dwfl = process_dwfl(p);
	Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, addr) : NULL;
	if (mod) {
		const char *modname =
			dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		const char *base = modname ? strrchr(modname, '/') : NULL;
		int ours = base && !strcmp(base + 1, RUNTIME_NAME);
		const char *sym = dwfl_module_addrname(mod, addr);
		if (sym && *sym) {
			demangled = cplus_demangle(sym, DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE);
			function = demangled ? demangled : sym;
		}
		Dwfl_Line *l = ours ? NULL : dwfl_module_getsrc(mod, addr);
		int lineno = 0;
		const char *file = l ? dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL) : NULL;
		if (file && *file) {
			source = file;
			line = lineno;
		}
	}
	json_t *frame = make_frame(function, source, line);
	free(demangled);
	if (frame && p->frames)
		json_object_set(p->frames, key, frame);
	return frame;
}

static int in_list(const struct perun_params *params, const char *name, const char *value,
		   int suffix)
{
	size_t n = perun_params_count(params, name), vlen = strlen(value);
	for (size_t i = 0; i < n; i++) {
		const char *s = perun_params_string_at(params, name, i);
		size_t slen = s ? strlen(s) : 0;
		if (!s)
			continue;
		if (suffix ? slen <= vlen && !strcmp(value + vlen - slen, s) : !strcmp(value, s))
			return 1;
	}
	return 0;
}

static int is_allocator(const char *function)
{
	for (int i = 0; i < PMEM_ALLOCATORS; i++)
		if (!strcmp(function, memory_allocator_name((unsigned)i)))
			return 1;
	return 0;
}

static const char *frame_str(const json_t *frame, const char *key)
{
	return json_string_value(json_object_get(frame, key));
}

/*
 * Without --all the allocators' frames and the frames of unknown function
 * or source go; the uid is the first frame with a known source; stacks
 * whose uid is --no-func or ends with a --no-source (or that have no uid)
 * give no resources.
 */
int memory_symbols_describe(struct memory_symbols *p, const uint64_t *ips, uint32_t depth,
			    const struct memory_options *o, json_t **trace_out, json_t **uid_out,
			    int *excluded)
{
	json_t *trace = json_array(), *uid = NULL;
	if (!trace)
		return -1;
	for (uint32_t i = 0; i < depth; i++) {
		uint64_t ip = ips[i];
		json_t *frame = resolve_frame(p, i > 0 && ip ? ip - 1 : ip);
		if (!frame) {
			json_decref(trace);
			return -1;
		}
		const char *fn = frame_str(frame, "function"), *src = frame_str(frame, "source");
		if (!o->all &&
		    (is_allocator(fn) || !strcmp(fn, "?") || !strcmp(src, "unreachable"))) {
			json_decref(frame);
			continue;
		}
		json_array_append_new(trace, frame);
	}
	size_t i;
	json_t *frame;
	json_array_foreach(trace, i, frame)
	{
		if (strcmp(frame_str(frame, "source"), "unreachable")) {
			uid = json_deep_copy(frame);
			break;
		}
	}
	*trace_out = trace;
	*uid_out = uid;
	*excluded = !uid || in_list(o->params, "no-func", frame_str(uid, "function"), 0) ||
		    in_list(o->params, "no-source", frame_str(uid, "source"), 1);
	return 0;
}

struct memory_symbols *memory_symbols_new(char *maps)
{
	struct memory_symbols *s = calloc(1, sizeof(*s));
	if (!s || !(s->frames = json_object())) {
		free(s);
		free(maps);
		return NULL;
	}
	s->maps = maps;
	return s;
}

void memory_symbols_free(struct memory_symbols *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	json_decref(s->frames);
	free(s->maps);
	free(s);
}
