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
