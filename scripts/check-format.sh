#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The C sources follow .clang-format: lists the files clang-format would
# change and exits 1, or with --fix rewrites them.  Frozen ABI test plugins
# (never edited), the templates (@name@ placeholders) and the sources that
# tests analyse (tests/data/: their lines and columns are the expected
# answers) are left alone.
#
# Usage: scripts/check-format.sh [--fix]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}

sources() {
	if [ -d .git ] || [ -f .git ]; then
		git ls-files '*.c' '*.h'
	else
		find sdk core plugins tests bench -name '*.c' -o -name '*.h'
	fi | grep -v -e '^templates/' -e '/tests/data/' -e '^tests/abi/plugin-abi-1\.0\.c$' \
		-e '^tests/abi/plugin-check-abi-1\.3\.c$' -e '/vmlinux\.h$' -e '\.skel\.h$' \
		-e '\.pb-c\.[ch]$'
}

if [ "${1:-}" = --fix ]; then
	sources | xargs "$CLANG_FORMAT" -i
	exit 0
fi
status=0
for f in $(sources); do
	if ! "$CLANG_FORMAT" --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "$f: not formatted as .clang-format says (scripts/check-format.sh --fix)" >&2
		status=1
	fi
done
exit $status
