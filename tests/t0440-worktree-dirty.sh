#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Profiles of uncommitted work (upstream Perun issue 230): collected on a
# modified tree they are filed against HEAD with a dirty mark and the
# hash of the diff; perun status shows them and perun check worktree
# compares them with HEAD's clean profiles, without a commit.
. "$srcdir/tests/test-lib.sh"

command -v jq >/dev/null || test_skip_all "jq is needed to read the profiles"

test_expect_success 'setup: a project whose command sleeps 0.02 s, profiled at HEAD' '
	mkdir proj && cd proj && git init -q &&
	printf "#!/bin/sh\nsleep 0.02\n" >run.sh && chmod +x run.sh &&
	git add run.sh && git commit -q -m "fast" &&
	perun init >/dev/null && printf ".perun\nout\nerr\n" >.git/info/exclude &&
	cat >.perun/local.yml <<-EOC &&
	vcs:
	  type: git
	  url: ../
	cmds: [./run.sh]
	collectors:
	  - name: time
	    params: {repeat: 5, warmup: 0}
	EOC
	perun run matrix >out && perun add 0@p >/dev/null &&
	perun status >out && ! test_grep -q "Uncommitted" out 2>/dev/null &&
	test $(perun status --format json | jq .worktree.dirty) = false
'

test_expect_success 'status shows uncommitted changes with the hash of their diff' '
	cd proj && printf "#!/bin/sh\nsleep 0.3\n" >run.sh &&
	perun status >out &&
	test_grep "^Uncommitted changes (diff [0-9a-f]\{12\}): 0 profiles of them (perun run matrix collects them)$" out &&
	perun status --format json | jq -r .worktree.diff >../diff &&
	grep -q "^[0-9a-f]\{40\}$" ../diff
'

test_expect_success 'a run on the modified tree files the profile at HEAD, marked dirty' '
	cd proj && perun run matrix >out &&
	git diff --quiet HEAD && exit 1;
	diff=$(cat ../diff) && p=$(ls .perun/jobs/*-dirty-*.perf) &&
	case "$p" in *-dirty-$(echo $diff | cut -c1-12).perf) ;; *) exit 1;; esac &&
	test $(jq -r .origin "$p") = $(git rev-parse HEAD) &&
	test $(jq -r .header.worktree_diff "$p") = $diff &&
	perun status >out &&
	test_grep "^Uncommitted changes (diff $(echo $diff | cut -c1-12)): 1 profile of them (perun check worktree compares them with HEAD)$" out
'

test_expect_success 'check worktree compares it with HEAD and finds the slowdown' '
	cd proj &&
	test_exit_code 1 perun check worktree --fail-on degradation >out &&
	test_grep "^\[Checking the uncommitted changes (diff [0-9a-f]\{12\}) against [0-9a-f]\{7\}\]$" out &&
	test_grep "Degradation" out &&
	perun check worktree --format junit >junit.xml &&
	test_grep "<testsuite" junit.xml && rm junit.xml
'

# Both profiles are read streamed: a map found malformed fails the check
# with the load's own message.
test_expect_success 'a malformed map of the dirty profile: the load message, exit 2' '
	cd proj && p=$(ls .perun/jobs/*-dirty-*.perf) && cp "$p" ../dirty.perf &&
	python3 - ../dirty.perf "$p" <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	key, value = next(iter(d["resource_type_map"].items()))
	entry = json.dumps({key: value})[1:-1]
	text = json.dumps(d).replace("\"resource_type_map\": {",
				     "\"resource_type_map\": {" + entry + ", ", 1)
	open(sys.argv[2], "w").write(text)
	EOF
	test_exit_code 2 perun check worktree 2>err &&
	test_grep "^perun: cannot read profile .*-dirty-.*\.perf.: line 1: duplicate object key" err &&
	cp ../dirty.perf "$p"
'

test_expect_success 'profiles of an earlier diff are not taken for the current one' '
	cd proj && printf "#!/bin/sh\nsleep 0.25\n" >run.sh &&
	perun status >out && test_grep "): 0 profiles of them" out &&
	test_exit_code 4 perun check worktree --fail-on degradation 2>err &&
	test_grep "^perun: no profiles of the uncommitted changes (diff [0-9a-f]\{12\}): collect them first" err
'

test_expect_success 'perun collect marks its profiles too' '
	cd proj && perun collect -c ./run.sh time --repeat 1 >out 2>err &&
	diff=$(perun status --format json | jq -r .worktree.diff | cut -c1-12) &&
	ls .perun/jobs/ | grep -q -- "-dirty-$diff.perf$"
'

test_expect_success 'on a clean tree there is nothing to check: one line, exit 2' '
	cd proj && git checkout -q run.sh &&
	test_exit_code 2 perun check worktree 2>err &&
	test_grep "^perun: check worktree: the working tree has no uncommitted changes to tracked files$" err
'

test_done
