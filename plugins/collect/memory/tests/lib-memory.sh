# SPDX-License-Identifier: GPL-3.0-or-later
# Shared set-up of the memory collector's tests: the test programs are
# built here, with debug information, from tests/progs.
progs="$TEST_SRCDIR/plugins/collect/memory/tests/progs"
q="'"

command -v "${CC:-cc}" >/dev/null 2>&1 ||
	test_skip_all "no C compiler (${CC:-cc}) to build the test programs"

# build <name> <source> [flags]: a debug build of a test program.
build() {
	name=$1 src=$2
	shift 2
	"${CC:-cc}" -g -O0 -o "$name" "$progs/$src" "$@"
}

# line_of <source> <marker>: the line of "@<marker>" in a test program.
line_of() {
	grep -n "@$2\\( \\|\$\\)" "$progs/$1" | cut -d: -f1
}

newest_profile() {
	ls -t .perun/jobs/*.perf | head -n 1
}

# table <profile> <columns...>: the resources as CSV without its header.
table() {
	p=$1
	shift
	cols=
	for c in "$@"; do cols="$cols -h $c"; done
	perun show "$p" tableof --format csv $cols resources | tail -n +2
}
