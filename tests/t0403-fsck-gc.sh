#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun fsck finds damaged indexes and objects and --repair repairs them
# (damaged files kept in .perun/lost); log goes on past a damaged index;
# perun gc removes the objects no index names, and nothing while an index
# does not read.  Self-made profiles.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null || test_skip_all "jq is not installed"

# add <amount>: register a profile at HEAD.
add() {
	test_time_profile "$1" "$(git rev-parse HEAD)" >.perun/jobs/p-$1.perf &&
	perun add .perun/jobs/p-$1.perf >/dev/null
}

object_of() { # <sha>: its path in the store
	echo ".perun/objects/$(echo "$1" | cut -c1-2)/$(echo "$1" | cut -c3-)"
}

test_expect_success 'setup: two versions, three profiles' '
	git init -q proj && (cd proj && perun init >/dev/null &&
	git commit -q --allow-empty -m v1 && add 1.0 && add 2.0 &&
	git commit -q --allow-empty -m v2 && add 3.0)
'

test_expect_success 'a sound store: fsck says so, exit 0' '
	(cd proj && perun fsck >out &&
	 echo "2 indexes, 3 profile objects, 0 .changes files: 0 problems" >expect &&
	 test_cmp expect out)
'

test_expect_success 'gc removes what rm left behind, and only that' '
	(cd proj && perun rm 0@i >/dev/null &&
	 perun gc --dry-run >out && test_grep "^would remove 1 unreferenced profile object" out &&
	 perun gc >out && test_grep "^removed 1 unreferenced profile object" out &&
	 perun fsck >out && test_grep "2 indexes, 2 profile objects, 0 .changes files: 0 problems" out &&
	 perun gc >out && test_grep "^removed 0 unreferenced profile objects" out)
'

test_expect_success 'a damaged index: log goes on, fsck finds it, gc removes nothing' '
	(cd proj && v1=$(git rev-parse HEAD~1) && idx=$(object_of $v1) &&
	 cp "$idx" ../idx.good &&
	 head -c 30 ../idx.good >"$idx" &&
	 perun log >out 2>err &&
	 test_grep "^perun: warning: malformed index .*: header says 2 entries, found 0" err &&
	 test_grep "(index damaged: see .perun fsck.)" out &&
	 test_grep "^Minor Version $v1" out &&
	 test_exit_code 1 perun fsck >out 2>err &&
	 test_grep "^damaged index of minor version $v1: malformed index" out &&
	 test_grep "repairs them" err &&
	 store_snapshot >before &&
	 test_exit_code 2 perun gc 2>err &&
	 test_grep "nothing removed (run .perun fsck --repair. first)" err &&
	 store_snapshot >after && test_cmp before after)
'

test_expect_success 'gc reads no object back, but an index without its magic stops it' '
	(cd proj && v1=$(git rev-parse HEAD~1) && idx=$(object_of $v1) &&
	 cp "$idx" damaged.keep && echo garbage >"$idx" &&
	 store_snapshot >before &&
	 test_exit_code 2 perun gc 2>err &&
	 test_grep "nothing removed (run .perun fsck --repair. first)" err &&
	 store_snapshot >after && test_cmp before after &&
	 cp damaged.keep "$idx")
'

test_expect_success 'fsck --repair keeps the damaged index and rebuilds what reads' '
	(cd proj && v1=$(git rev-parse HEAD~1) &&
	 perun fsck --repair >out &&
	 test_grep "moved to .perun/lost/$v1.pidx; rebuilt with the 0 profiles that still read" out &&
	 head -c 30 ../idx.good >damaged && test_cmp damaged .perun/lost/$v1.pidx &&
	 perun fsck >out && test_grep "0 problems" out &&
	 test_grep "2 profile objects are in no index" out &&
	 perun log >out 2>err && test ! -s err)
'

test_expect_success 'a truncated index keeps its whole entries' '
	(cd proj && add 4.0 && add 5.0 && idx=$(object_of $(git rev-parse HEAD)) &&
	 size=$(wc -c <"$idx") && head -c $((size - 3)) "$idx" >short && cp short "$idx" &&
	 perun fsck --repair >out &&
	 test_grep "entry 1 is truncated" out &&
	 test_grep "rebuilt with the 1 profile that still read" out &&
	 perun status --format json >st.json && jq -e ".tracked | length == 1" st.json)
'

test_expect_success 'a damaged object: named, moved to lost, dropped from its index' '
	(cd proj && sha=$(perun status --format json | jq -r ".tracked[0].checksum") &&
	 echo garbage >"$(object_of $sha)" &&
	 test_exit_code 1 perun fsck >out 2>/dev/null &&
	 test_grep "^damaged profile object $sha: .*not zlib data" out &&
	 test_grep "^index of minor version $(git rev-parse HEAD) names a damaged object" out &&
	 perun fsck --repair >out &&
	 test -f .perun/lost/$sha.object &&
	 perun fsck >out && test_grep "0 problems" out &&
	 perun status --format json >st.json && jq -e ".tracked | length == 0" st.json)
'

test_done
