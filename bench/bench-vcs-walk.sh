#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench-vcs-walk.sh [builddir] [commits] - time walking a history with the
# git vcs plugin (info of every commit, as `perun log` needs) against
# `git rev-list --count` and `git log` with the same fields.  Prints the
# best of several runs; asserts nothing.
#
# The plugin runs through its test driver, so build it first:
#   make plugins/vcs/git/tests/git-test
set -eu

builddir=$(cd "${1:-.}" && pwd)
commits=${2:-1000}
runs=${RUNS:-5}
drv="$builddir/plugins/vcs/git/tests/git-test"
[ -x "$drv" ] || { echo "bench-vcs-walk: build $drv first" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-vcs-walk.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# A linear history with a merge every 50 commits, made by fast-import.
git init -q "$work/repo"
awk -v n="$commits" 'BEGIN {
	t = 1700000000
	for (i = 1; i <= n; i++) {
		printf "commit refs/heads/%s\nmark :%d\n", (i % 50 == 0 ? "side" : "master"), i
		printf "author Bench <bench@example.com> %d +0000\n", t + i
		printf "committer Bench <bench@example.com> %d +0000\n", t + i
		msg = "commit " i "\n\nsome body text\n"
		printf "data %d\n%s", length(msg), msg
		if (i > 1 && i % 50 != 0)
			printf "from :%d\n", (i % 50 == 1 && i > 50 ? i - 2 : i - 1)
		if (i > 1 && i % 50 == 1 && i > 50)
			printf "merge :%d\n", i - 1
		if (i % 50 == 0)
			printf "from :%d\n", i - 1
		printf "M 644 inline file\ndata %d\n%d\n\n", length(i "") + 1, i
	}
}' | git -C "$work/repo" fast-import --quiet
git -C "$work/repo" checkout -q master
total=$(git -C "$work/repo" rev-list --count HEAD)

# best <command...>: the fastest of $runs runs, in milliseconds.
best() {
	b=
	i=0
	while [ $i -lt "$runs" ]; do
		s=$(date +%s%N)
		"$@" >/dev/null
		e=$(date +%s%N)
		ms=$(( (e - s) / 1000000 ))
		if [ -z "$b" ] || [ "$ms" -lt "$b" ]; then b=$ms; fi
		i=$((i + 1))
	done
	echo "$b"
}

cd "$work/repo"
# The driver is a libtool wrapper script; time the real binary.
real="$(dirname "$drv")/.libs/$(basename "$drv")"
[ -x "$real" ] && LD_LIBRARY_PATH="$builddir/sdk/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" &&
	export LD_LIBRARY_PATH && drv=$real
plugin=$(best "$drv" . walk HEAD)
count=$(best git rev-list --count HEAD)
log=$(best git log --format='%H%x09%ct%x09%an%x09%ae%x09%P%n%B' HEAD)
echo "history: $total commits reachable from HEAD ($commits made), best of $runs runs"
echo "git plugin walk (full info):  ${plugin} ms"
echo "git rev-list --count:         ${count} ms"
echo "git log (same fields):        ${log} ms"
