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

# alloc_sites: "subtype,function,line,calls,bytes" of every call site of
# progs/alloc.c, as both profile forms count them.
alloc_sites() {
	l() { line_of alloc.c "$1"; }
	cat <<-EOT
	malloc,main,$(l errno-malloc),1,8
	free,main,$(l errno-free),1,0
	malloc,main,$(l loop-malloc),10,1000
	free,main,$(l loop-free),10,0
	calloc,main,$(l calloc),1,100
	realloc,main,$(l realloc1),1,200
	free,main,$(l realloc1),1,0
	realloc,main,$(l realloc2),1,400
	free,main,$(l realloc2),1,0
	free,main,$(l free-q),1,0
	aligned_alloc,main,$(l aligned),1,128
	free,main,$(l free-a),1,0
	posix_memalign,main,$(l posix),1,96
	free,main,$(l free-m),1,0
	valloc,main,$(l valloc),1,50
	free,main,$(l free-v),1,0
	memalign,main,$(l memalign),1,70
	free,main,$(l free-mm),1,0
	malloc,main,$(l big1),1,10000
	malloc,main,$(l big2),1,20000
	free,main,$(l free-big2),1,0
	free,main,$(l free-big1),1,0
	malloc,leaky,$(l leak),2,66
	EOT
}
