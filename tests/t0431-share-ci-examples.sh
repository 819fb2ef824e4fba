#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The CI examples of docs/ci/ are valid YAML, and their perun commands,
# run as written (shards, push, pull, the gating check with its report),
# work against a bare repository standing in for the git host.
. "$srcdir/tests/test-lib.sh"

PY=/usr/bin/python3
$PY -c "import yaml" 2>/dev/null || test_skip_all "python3-yaml is needed to read the examples"
DOCS="$TEST_SRCDIR/docs/ci"

# commands <file> <job> <stage>: the example's lines that are perun
# commands or copy its configuration, from the job's steps (GitHub) or
# before_script + script (GitLab), with ${{ matrix.shard }} as $SHARD.
commands() {
	$PY - "$@" <<-\PY
	import sys, yaml
	doc = yaml.safe_load(open(sys.argv[1]))
	job = doc["jobs"][sys.argv[2]] if "jobs" in doc else doc[sys.argv[2]]
	texts = [s.get("run", "") for s in job.get("steps", [])]
	texts += doc.get("default", {}).get("before_script", []) + job.get("script", [])
	for text in texts:
	    for line in text.splitlines():
	        line = line.strip().replace("${{ matrix.shard }}", "$SHARD")
	        if line.startswith("perun ") or line.startswith("cp ci/perun.yml"):
	            print(line)
	PY
}

test_expect_success 'the examples are YAML with the jobs the docs describe' '
	commands "$DOCS/github-actions.yml" collect >gh-collect &&
	commands "$DOCS/github-actions.yml" check >gh-check &&
	commands "$DOCS/gitlab-ci.yml" perf:collect >gl-collect &&
	commands "$DOCS/gitlab-ci.yml" perf:check >gl-check &&
	test_grep "^perun run --shard \$SHARD/4 matrix$" gh-collect &&
	test_grep "^perun push origin$" gh-collect &&
	test_grep "^perun check --format sarif --fail-on degradation head > perun.sarif$" gh-check &&
	test_grep "^perun run --shard \${CI_NODE_INDEX}/\${CI_NODE_TOTAL} matrix$" gl-collect &&
	test_grep "^perun check --format junit --fail-on degradation head > perun-junit.xml$" gl-check &&
	sh -n "$DOCS/slurm-array.sh"
'

test_expect_success 'setup: a project on a bare "host" with profiles of the parent' '
	git init -q --bare host.git && test_make_git_project seed &&
	(cd seed && mkdir ci && cat >ci/perun.yml <<-EOC &&
	vcs:
	  type: git
	  url: ../
	cmds: [/bin/true]
	workloads: [a, b, c]
	collectors:
	  - name: time
	    params: {repeat: 3, warmup: 0}
	EOC
	git add ci && git commit -q -m "perun config" &&
	git remote add origin ../host.git && git push -q origin master &&
	perun init >/dev/null && cp ci/perun.yml .perun/local.yml &&
	printf ".perun\n" >.git/info/exclude &&
	perun config --local set profiles.register_after_run true &&
	perun run -m HEAD~1 matrix >/dev/null && perun push origin >/dev/null)
'

# run_job <commands> <dir> [VAR=value...]: run the commands as the
# example's job does, in a fresh clone.
run_job() {
	_rj_cmds=$1 _rj_dir=$2 && shift 2 &&
	git clone -q host.git "$_rj_dir" && printf ".perun\nperun*\n" >"$_rj_dir/.git/info/exclude" &&
	(cd "$_rj_dir" && env "$@" sh -e "$TRASH_DIRECTORY/$_rj_cmds")
}

test_expect_success 'GitHub Actions: four shards collect and push, the check gates' '
	for s in 1 2 3 4; do
		(run_job gh-collect gh$s SHARD=$s >gh$s.out 2>&1; echo $? >gh$s.rc) &
	done && wait && cat gh?.rc | sort -u >rcs && echo 0 >expect && test_cmp expect rcs &&
	run_job gh-check ghc >out 2>&1; test $? -le 1 &&
	$PY -c "import json; d = json.load(open(\"ghc/perun.sarif\")); assert d[\"version\"] == \"2.1.0\"" &&
	(cd ghc && perun status --short >../st) && test_grep "^3 tracked profiles" st
'

test_expect_success 'GitLab CI: parallel jobs by CI_NODE_INDEX, then JUnit' '
	for s in 1 2 3 4; do
		(run_job gl-collect gl$s CI_NODE_INDEX=$s CI_NODE_TOTAL=4 >gl$s.out 2>&1; echo $? >gl$s.rc) &
	done && wait && cat gl?.rc | sort -u >rcs && echo 0 >expect && test_cmp expect rcs &&
	run_job gl-check glc >out 2>&1; test $? -le 1 &&
	test_grep "<testsuite" glc/perun-junit.xml
'

test_done
