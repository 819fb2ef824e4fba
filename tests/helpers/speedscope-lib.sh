# SPDX-License-Identifier: GPL-3.0-or-later
# speedscope-lib.sh - speedscope's own importer from shell tests.
#
#   . "$TEST_SRCDIR/tests/helpers/speedscope-lib.sh"   (after test-lib.sh)
#   speedscope_require     skip the whole file without Node.js or speedscope;
#                          sets bundle (the speedscope-*.js of the npm
#                          package) and READ (speedscope-read.mjs, run as
#                          node "$READ" "$bundle" FILE)
speedscope_require() {
	command -v node >/dev/null ||
		test_skip_all "Node.js is needed to run speedscope (Debian: apt-get install nodejs)"
	pkg=${PERUN_SPEEDSCOPE:-$(npm root -g 2>/dev/null)/speedscope}
	bundle=$(ls "$pkg"/dist/release/speedscope-*.js 2>/dev/null | head -n 1)
	[ -n "$bundle" ] ||
		test_skip_all "speedscope not found at $pkg (npm install -g speedscope, or scripts/install-deps.sh)"
	READ="$TEST_SRCDIR/tests/helpers/speedscope-read.mjs"
}
