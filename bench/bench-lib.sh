# SPDX-License-Identifier: GPL-3.0-or-later
# Shared set-up of the shell benchmarks; source it, then call
#   bench_setup <name> [builddir]
# which sets PERUN (the build tree's perun with its plugins unless PERUN is
# given), makes a scratch git project with a perun instance in $work (gone
# on exit) and changes into it.  now_ns prints the time in nanoseconds.

now_ns() { date +%s%N; }

bench_setup() {
	bench_name=$1
	builddir=$(cd "${2:-.}" && pwd)
	if [ -z "${PERUN:-}" ]; then
		PERUN="$builddir/perun"
		PERUN_PLUGIN_PATH=${PERUN_PLUGIN_PATH:-$builddir/stage/plugins}
		export PERUN_PLUGIN_PATH
		# The build tree's perun is libtool's wrapper script, which
		# costs 30-80 ms a start (a shell, sed): time the program itself,
		# as perf is timed, with the library it was linked against.
		if [ -x "$builddir/.libs/perun" ] && head -c 2 "$PERUN" | grep -q '^#!'; then
			PERUN="$builddir/.libs/perun"
			LD_LIBRARY_PATH="$builddir/sdk/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
			export LD_LIBRARY_PATH
		fi
	fi
	[ -x "$PERUN" ] || { echo "$bench_name: no perun at $PERUN (give PERUN=...)" >&2; exit 2; }

	work=$(mktemp -d "${TMPDIR:-/tmp}/$bench_name.XXXXXX")
	trap 'rm -rf "$work"' EXIT INT TERM
	export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" LC_ALL=C
	mkdir -p "$HOME"
	git init -q "$work/proj"
	cd "$work/proj"
	git -c user.name=b -c user.email=b@example.com commit -q --allow-empty -m bench
	"$PERUN" init >/dev/null
	# The libtool wrapper of the build tree: start it once so it is not
	# timed relinking on its first real use.
	"$PERUN" --help >/dev/null 2>&1 || true
}

# bench_best <cmd>...: "<wall> <cpu>" seconds of the fastest of three runs
# (cpu = user + system, which a loaded machine inflates less than wall;
# needs GNU time, Debian: time).  Uses $work from bench_setup.
bench_best() {
	best_wall= best_cpu=
	for _ in 1 2 3; do
		/usr/bin/time -f "%e %U %S" -o "$work/time" "$@" >/dev/null 2>&1 || true
		read -r wall user sys <"$work/time"
		if [ -z "$best_wall" ] || [ "$(echo "$wall < $best_wall" | bc)" = 1 ]; then
			best_wall=$wall best_cpu=$(echo "$user + $sys" | bc)
		fi
	done
	echo "$best_wall $best_cpu"
}

# bench_python <modules>: sets py to a python3 that imports the modules
# ("numpy, scipy.stats"); fails, py empty, when none does.
bench_python() {
	py=""
	for candidate in python3 /usr/bin/python3; do
		if "$candidate" -c "import $1" 2>/dev/null; then py=$candidate; return 0; fi
	done
	return 1
}

# bench_postprocessby <profile> <postprocessor> <option>...: seconds one perun
# postprocessby takes end to end (load, analysis, store); its output is
# dropped.  Run in the project of bench_setup.
bench_postprocessby() {
	_bp_t0=$(now_ns)
	"$PERUN" postprocessby -ot bench-out "$@" >/dev/null
	_bp_t1=$(now_ns)
	rm -f .perun/jobs/bench-out.perf
	echo "scale=3; ($_bp_t1 - $_bp_t0) / 1000000000" | bc
}

# bench_measure <label> <cmd>...: $BENCH_RUNS runs of cmd (default one);
# the fastest one's wall and user+system
# seconds and peak memory on one line after the label (padded to
# $bench_label_width, default 44).  A failure is shown, not fatal.  With
# BENCH_BEFORE=<builddir of an earlier build>, the same command run by
# that build's perun (and plugins) follows on a second line, "before":
# the figure to compare with where there is no outside anchor.  Sets
# bench_wall to this build's wall seconds ("" when the command failed),
# for ratios between commands.
bench_measure() {
	_bm_label=$1
	shift
	_bm_best=
	_bm_run "$_bm_label" "$@"
	bench_wall=
	[ -z "$_bm_best" ] || bench_wall=$_bm_wall
	[ -n "${BENCH_BEFORE:-}" ] || return 0
	_bm_before=$(cd "$BENCH_BEFORE" && pwd)
	_bm_n=$#
	for _bm_arg; do
		[ "$_bm_arg" = "$PERUN" ] && _bm_arg=$_bm_before/perun
		set -- "$@" "$_bm_arg"
	done
	shift "$_bm_n"
	_bm_plugins=$PERUN_PLUGIN_PATH
	PERUN_PLUGIN_PATH=$_bm_before/stage/plugins
	_bm_run "  before" "$@"
	PERUN_PLUGIN_PATH=$_bm_plugins
}

# _bm_run <label> <cmd>...: one line of bench_measure.
_bm_run() {
	_bm_label=$1
	shift
	# The fastest of $BENCH_RUNS runs (default 1): on a shared machine a
	# single run of a big profile can spend seconds in the kernel.
	_bm_best=
	for _ in $(seq "${BENCH_RUNS:-1}"); do
		/usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
			printf "%-${bench_label_width:-44}s failed: %s\n" "$_bm_label" "$(tail -1 "$work/err")"
			return 0
		}
		read -r wall user sys rss <"$work/time"
		if [ -z "$_bm_best" ] || [ "$(echo "$wall < $_bm_wall" | bc)" = 1 ]; then
			_bm_best=1 _bm_wall=$wall _bm_user=$user _bm_sys=$sys _bm_rss=$rss
		fi
	done
	awk -v l="$_bm_label" -v w="$_bm_wall" -v u="$_bm_user" -v s="$_bm_sys" -v m="$_bm_rss" \
		-v f="%-${bench_label_width:-44}s %7.2f s wall %7.2f s cpu %6d MB\n" \
		'BEGIN { printf f, l, w, u + s, m / 1024 }'
}

# bench_fresh_store <name>: keep the store (.perun) as it is now and set
# bench_fresh to a wrapper that runs its command on a fresh copy of it,
# so that every run (and BENCH_BEFORE's) starts from the same store.
bench_fresh_store() {
	cp -a .perun "$work/$1"
	bench_fresh="$work/fresh-$1"
	cat >"$bench_fresh" <<EOF
#!/bin/sh
rm -rf .perun && cp -a "$work/$1" .perun && exec "\$@"
EOF
	chmod +x "$bench_fresh"
}

# bench_generate <file> <generator.py> <count> [option]...: python3
# <generator.py> <count> <file> [option]... unless file is already there
# (a cache kept between runs); a generator stopped midway leaves no file.
bench_generate() {
	_bg_file=$1 _bg_script=$2 _bg_count=$3
	shift 3
	[ -s "$_bg_file" ] && return 0
	echo "generating ${_bg_file##*/} ..." >&2
	python3 "$_bg_script" "$_bg_count" "$_bg_file.tmp" "$@" && mv "$_bg_file.tmp" "$_bg_file"
}

# bench_binary <build-dir>: bin is the build's real perun, not libtool's
# wrapper script (which would be timed too), with its library and plugins.
bench_binary() {
	bin="$1/.libs/perun"
	[ -x "$bin" ] || bin="$1/perun"
	export LD_LIBRARY_PATH="$1/sdk/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export PERUN_PLUGIN_PATH="$1/stage/plugins"
}

# bench_commits <n>: n commits on master of the git repository here, made
# by one git fast-import process (each changes file.txt), checked out.
bench_commits() {
	python3 - "$1" <<-'PY' | git fast-import --quiet
	import sys
	n = int(sys.argv[1])
	for i in range(n):
	    body = f"v{i}\n".encode()
	    msg = f"commit {i}\n".encode()
	    sys.stdout.buffer.write(b"commit refs/heads/master\n")
	    sys.stdout.buffer.write(f"committer Bench <bench@example.com> {1700000000 + i} +0000\n".encode())
	    sys.stdout.buffer.write(b"data %d\n%s" % (len(msg), msg))
	    sys.stdout.buffer.write(b"M 644 inline file.txt\ndata %d\n%s\n" % (len(body), body))
	PY
	git checkout -q master
}

# bench_workdir <name>: work is a new scratch directory (removed on exit
# unless KEEP is set), HOME and perun's shared config inside it.
bench_workdir() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
	export PERUN_CONFIG_DIR="$work/config" HOME="$work"
}

# bench_profile_store <commits> <per_commit>: in the current directory, a
# git repository "repo" of <commits> commits (bench_commits) with a perun
# instance whose every version has <per_commit> time profiles (one
# collected profile of /bin/true, copied with workloads w0, w1, ...);
# leaves the current directory in repo.  Uses $bin (bench_binary).
bench_profile_store() {
	git init -q repo && cd repo
	git config user.name Bench && git config user.email bench@example.com
	bench_commits "$1"
	"$bin" init >/dev/null
	"$bin" collect -c /bin/true time -r 3 -w 0 >/dev/null
	_bps_template=$(ls .perun/jobs/*.perf | head -1)
	python3 - "$_bps_template" "$2" "$(git rev-list master | tr '\n' ' ')" <<-'PY'
	import json, os, sys
	t = json.load(open(sys.argv[1]))
	per = int(sys.argv[2])
	os.makedirs("gen", exist_ok=True)
	for sha in sys.argv[3].split():
	    d = os.path.join("gen", sha)
	    os.makedirs(d)
	    for k in range(per):
	        t["origin"] = sha
	        t["header"]["workload"] = f"w{k}"
	        json.dump(t, open(os.path.join(d, f"time-{k}.perf"), "w"))
	PY
	rm -f .perun/jobs/*.perf
	for _bps_d in gen/*; do
		"$bin" add -m "${_bps_d#gen/}" "$_bps_d"/*.perf >/dev/null
	done
	rm -rf gen
	echo "store: $(find .perun/objects -type f | wc -l) files, $(du -sh .perun | cut -f1)"
}
