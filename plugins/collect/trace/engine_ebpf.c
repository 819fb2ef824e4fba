/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The ebpf engine: the BPF object built with the plugin (trace.bpf.c, a
 * bpftool skeleton), uprobes and uretprobes at the functions' file offsets,
 * USDT probes through libbpf's USDT support, every probe carrying its id
 * and sampling in its BPF cookie.  Probes are attached for every process
 * mapping the binary and filtered in the kernel by the set of processes
 * that descend from the profiled command (fork tracepoint), so forks are
 * followed.  The ring buffer is drained into the raw data file while the
 * program runs, so memory stays bounded however long it runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "trace.h"
#include "trace.skel.h"

/* uprobe + uretprobe per function, each a perf event and a file descriptor:
 * beyond this the kernel's and the process's limits make attaching slow
 * and fragile; sampled or custom strategies narrow the selection. */
#define MAX_FUNC_PROBES 4000

struct drain {
	FILE *out;
	struct ring_buffer *rb;
	/* The ring buffer's epoll set beside the child's pidfd, so that the
	 * child's end wakes the wait at once; -1: the ring buffer alone. */
	int wake;
	int write_error;
};

static int on_event(void *data, void *ev, size_t size)
{
	struct drain *d = data;
	if (size < sizeof(struct perun_trace_event))
		return 0;
	if (fwrite(ev, sizeof(struct perun_trace_event), 1, d->out) != 1)
		d->write_error = errno ? errno : EIO;
	return 0;
}

static int drain_poll(void *data, int timeout_ms)
{
	struct drain *d = data;
	int n;
	if (d->wake >= 0) {
		struct epoll_event ev[2];
		n = epoll_wait(d->wake, ev, 2, timeout_ms);
		if (n >= 0)
			n = ring_buffer__consume(d->rb);
		else
			n = -errno;
	} else {
		n = ring_buffer__poll(d->rb, timeout_ms);
	}
	if (n == -EINTR)
		return 0;
	if (d->write_error)
		return -d->write_error;
	return n < 0 ? n : 0;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int libbpf_verbose(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int permission_error(int e, struct perun_error *err)
{
	if (geteuid() != 0)
		return perun_error_set(err, PERUN_ETOOL,
				       "cannot load the BPF programs: not running as root "
				       "(the ebpf engine needs root or CAP_BPF and CAP_PERFMON)");
	return perun_error_set_errno(err, PERUN_ETOOL, e,
				     "cannot load the BPF programs (no BPF permission, or "
				     "the kernel lacks BTF or BPF support)");
}

static void raise_fd_limit(size_t probes)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	rlim_t want = (rlim_t)(2 * probes + 256);
	if (rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int attach_probes(struct trace_bpf *skel, const struct trace_config *cfg,
			 const struct trace_probes *probes, struct bpf_link ***links,
			 size_t *nlinks, struct perun_error *err)
{
	*links = calloc(2 * probes->n + 1, sizeof(**links));
	if (!*links)
		return perun_error_set(err, PERUN_EGENERIC, "out of memory");
	for (size_t i = 0; i < probes->n; i++) {
		const struct trace_probe *p = &probes->v[i];
		unsigned sid = p->kind == TRACE_PROBE_USDT_END ? (unsigned)p->pair : (unsigned)i;
		unsigned long long cookie = PERUN_TRACE_COOKIE(i, sid, p->sample);
		struct bpf_link *l1 = NULL, *l2 = NULL;
		if (p->kind == TRACE_PROBE_FUNC || p->kind == TRACE_PROBE_POINT) {
			LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = cookie);
			struct bpf_program *prog = p->kind == TRACE_PROBE_FUNC
							   ? skel->progs.func_entry
							   : skel->progs.point_hit;
			l1 = bpf_program__attach_uprobe_opts(prog, -1, p->lib, p->offset, &uo);
			if (l1 && p->kind == TRACE_PROBE_FUNC) {
				LIBBPF_OPTS(bpf_uprobe_opts, ro, .bpf_cookie = cookie,
					    .retprobe = true);
				l2 = bpf_program__attach_uprobe_opts(skel->progs.func_exit, -1,
								     p->lib, p->offset, &ro);
			}
		} else {
			LIBBPF_OPTS(bpf_usdt_opts, uo, .usdt_cookie = cookie);
			struct bpf_program *prog =
				p->kind == TRACE_PROBE_USDT_END
					? (p->async ? skel->progs.usdt_async_end
						    : skel->progs.usdt_end)
				: p->pair >= 0 ? (p->async ? skel->progs.usdt_async_begin
							   : skel->progs.usdt_begin)
					       : skel->progs.usdt_single;
			l1 = bpf_program__attach_usdt(prog, -1, p->lib, p->provider, p->name, &uo);
		}
		int e = errno;
		if (l1)
			(*links)[(*nlinks)++] = l1;
		if (l2)
			(*links)[(*nlinks)++] = l2;
		if (!l1 || (p->kind == TRACE_PROBE_FUNC && !l2)) {
			if (e == EMFILE || e == ENFILE || e == ENOSPC)
				return perun_error_set(
					err, PERUN_ETOOL,
					"probe limit exceeded at %zu of %zu probes: %s "
					"(narrow the selection with --func or a sampled "
					"or custom strategy)",
					i, probes->n, strerror(e));
			return perun_error_set_errno(err, PERUN_ETOOL, e,
						     "cannot attach a probe to '%s' in '%s'",
						     p->name, p->lib);
		}
	}
	trace_log(cfg, "attached %zu probe links", *nlinks);
	return 0;
}

int trace_engine_ebpf(const struct trace_config *cfg, const struct trace_probes *probes,
		      struct trace_child *child, struct perun_error *err)
{
	struct trace_bpf *skel = NULL;
	struct bpf_link **links = NULL;
	size_t nlinks = 0, funcs = 0;
	struct drain d = { .wake = -1 };
	char path[4096];
	int pidfd = -1;
	int rc = 0;

	for (size_t i = 0; i < probes->n; i++)
		funcs += probes->v[i].kind == TRACE_PROBE_FUNC;
	if (funcs > MAX_FUNC_PROBES)
		return perun_error_set(err, PERUN_EINVAL,
				       "probe limit exceeded: %zu functions selected, the ebpf "
				       "engine attaches at most %d (name them with --func, use "
				       "the custom strategy, or the instrument engine)",
				       funcs, MAX_FUNC_PROBES);
	libbpf_set_print(cfg->verbose_trace ? libbpf_verbose : libbpf_quiet);
	raise_fd_limit(probes->n);

	snprintf(path, sizeof(path), "%s/" TRACE_RAW_FILE, cfg->tmpdir);
	d.out = fopen(path, "we");
	if (!d.out)
		return perun_error_set_errno(err, PERUN_ETOOL, errno, "cannot create '%s'", path);
	setvbuf(d.out, NULL, _IOFBF, 1 << 20);

	skel = trace_bpf__open();
	if (!skel) {
		rc = permission_error(errno, err);
		goto out;
	}
	int e = trace_bpf__load(skel);
	if (e) {
		rc = permission_error(-e, err);
		goto out;
	}
	e = trace_bpf__attach(skel);
	if (e) {
		rc = perun_error_set_errno(err, PERUN_ETOOL, -e,
					   "cannot attach the process and thread tracepoints");
		goto out;
	}
	d.rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, &d, NULL);
	if (!d.rb) {
		rc = perun_error_set_errno(err, PERUN_ETOOL, errno,
					   "cannot open the BPF ring buffer");
		goto out;
	}
	rc = attach_probes(skel, cfg, probes, &links, &nlinks, err);
	if (rc)
		goto out;

	rc = trace_child_spawn(child, cfg, NULL, err);
	if (rc)
		goto out;
	unsigned pid = (unsigned)child->pid;
	unsigned char one = 1;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.tracked), &pid, &one, BPF_ANY)) {
		rc = perun_error_set_errno(err, PERUN_ETOOL, errno, "cannot track pid %u", pid);
		trace_child_kill(child);
		goto out;
	}
	int exec_errno = trace_child_continue(child);
	/* The root process starts now; the kernel reports the rest. */
	struct perun_trace_event begin = {
		.ts = child->start_ns,
		.tid = pid,
		.pid = pid,
		.id = (unsigned)getpid(),
		.type = PERUN_TRACE_PROCESS_BEGIN,
	};
	fwrite(&begin, sizeof(begin), 1, d.out);
	if (exec_errno) {
		rc = perun_error_set_errno(err, PERUN_ETOOL, exec_errno, "cannot run '%s'",
					   cfg->argv[0]);
		goto out;
	}
	trace_log(cfg, "profiled command started, pid %u", pid);
	pidfd = (int)syscall(SYS_pidfd_open, child->pid, 0);
	d.wake = pidfd >= 0 ? epoll_create1(EPOLL_CLOEXEC) : -1;
	struct epoll_event rb_ready = { .events = EPOLLIN }, end = { .events = EPOLLIN };
	if (d.wake >= 0 &&
	    (epoll_ctl(d.wake, EPOLL_CTL_ADD, ring_buffer__epoll_fd(d.rb), &rb_ready) ||
	     epoll_ctl(d.wake, EPOLL_CTL_ADD, pidfd, &end))) {
		close(d.wake);
		d.wake = -1;
	}
	rc = trace_child_wait(child, cfg, drain_poll, &d, err);
	/* The exit tracepoint fired before the parent could reap: what is in
	 * the buffer now is all there is. */
	while (ring_buffer__consume(d.rb) > 0)
		;
	if (!rc && d.write_error)
		rc = perun_error_set_errno(err, PERUN_ETOOL, d.write_error,
					   "cannot write the raw trace data '%s'", path);
	__u64 lost_total = 0;
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu > 0) {
		__u64 *lost = calloc((size_t)ncpu, sizeof(*lost));
		__u32 zero = 0;
		if (lost && !bpf_map_lookup_elem(bpf_map__fd(skel->maps.lost), &zero, lost))
			for (int c = 0; c < ncpu; c++)
				lost_total += lost[c];
		free(lost);
	}
	if (lost_total && !cfg->quiet)
		fprintf(stderr,
			"perun: warning: trace: %llu events did not fit into the ring buffer "
			"and were lost (sample with -g or trace fewer functions)\n",
			(unsigned long long)lost_total);
	trace_log(cfg, "profiled command ended; %llu events lost", (unsigned long long)lost_total);
out:
	if (d.wake >= 0)
		close(d.wake);
	if (pidfd >= 0)
		close(pidfd);
	if (d.out && fclose(d.out) && !rc)
		rc = perun_error_set_errno(err, PERUN_ETOOL, errno,
					   "cannot write the raw trace data '%s'", path);
	ring_buffer__free(d.rb);
	for (size_t i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	free(links);
	trace_bpf__destroy(skel);
	return rc;
}
