# SPDX-License-Identifier: GPL-3.0-or-later
# test-lib.sh - a small git-style shell test library emitting TAP.
#
#   . "$srcdir/tests/test-lib.sh"     (done by each tNNNN-*.sh)
#   test_expect_success 'what it checks' '<commands>'
#   test_expect_failure 'known breakage' '<commands>' ['why it fails']
#   test_must_fail <cmd>...   the command exits non-zero (not by a signal)
#   test_cmp expected actual
#   test_skip_all 'reason'
#   test_skip_sanitized 'reason'   skip all under ASan and UBSan
#   test_done
#
# Each test file runs in its own trash directory under tests/trash/, with
# HOME and XDG dirs inside it and PATH/PERUN_PLUGIN_PATH pointing at the
# build tree, so nothing outside is touched.
set -u

: "${srcdir:=.}"
TEST_SRCDIR=$(cd "$srcdir" && pwd)
TEST_BUILDDIR=${abs_top_builddir:-$(pwd)}
TEST_NAME=$(basename "$0" .sh)
TRASH_DIRECTORY="$TEST_BUILDDIR/tests/trash/$TEST_NAME"
TESTDATA="${PERUN_TESTDATA:-$TEST_SRCDIR/../shared/testdata/perun-profiles}"
export TEST_SRCDIR TEST_BUILDDIR TESTDATA

rm -rf "$TRASH_DIRECTORY"
mkdir -p "$TRASH_DIRECTORY/home" || exit 1
export HOME="$TRASH_DIRECTORY/home"
export XDG_DATA_HOME="$HOME/.local/share"
export XDG_CONFIG_HOME="$HOME/.config"
export XDG_STATE_HOME="$HOME/.local/state"
export PERUN_CONFIG_DIR="$HOME/.config/perun"
export PERUN_PLUGIN_PATH="$TEST_BUILDDIR/stage/plugins"
export PATH="$TEST_BUILDDIR:$PATH"
# A standalone plugin project (perun utils create --standalone) runs the
# perun its configure found, $PERUN.
case ${PERUN:-} in */*) PATH="${PERUN%/*}:$PATH" ;; esac
export NO_COLOR=1 LC_ALL=C TZ=UTC
# make check -j hands its jobserver down; a project's own make run by a
# job (pre_run) would find its pipe closed.
unset MAKEFLAGS MFLAGS MAKELEVEL
export GIT_AUTHOR_NAME="Perun Tester" GIT_AUTHOR_EMAIL="tester@example.com"
export GIT_COMMITTER_NAME="Perun Tester" GIT_COMMITTER_EMAIL="tester@example.com"
export GIT_CONFIG_NOSYSTEM=1
git config --global init.defaultBranch master 2>/dev/null
git config --global user.name "Perun Tester" 2>/dev/null
git config --global user.email "tester@example.com" 2>/dev/null
cd "$TRASH_DIRECTORY" || exit 1

test_count=0
test_failed=0
test_broken=0

say() { printf '# %s\n' "$*"; }

test_skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# scripts/run-sanitized-tests.sh sets PERUN_TEST_SANITIZED: a test that
# cannot work under the sanitizers says why and skips there only.
test_skip_sanitized() {
	[ "${PERUN_TEST_SANITIZED:-0}" = 1 ] && test_skip_all "under ASan and UBSan: $*"
	return 0
}

_run_test() {
	# Each test body runs in a subshell in the trash directory.
	(cd "$TRASH_DIRECTORY" && eval "$1") >"$TRASH_DIRECTORY/.out" 2>&1
}

test_expect_success() {
	test_count=$((test_count + 1))
	if _run_test "$2"; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		sed 's/^/#   /' "$TRASH_DIRECTORY/.out"
		printf '#   %s\n' "--- the test was:" 
		printf '%s\n' "$2" | sed 's/^/#   /'
	fi
}

# A TAP TODO: the case runs, its failure is expected (the third argument
# says why, in the directive); a pass shows as "known breakage vanished".
test_expect_failure() {
	test_count=$((test_count + 1))
	if _run_test "$2"; then
		echo "ok $test_count - $1 # TODO known breakage vanished${3:+: $3}"
	else
		test_broken=$((test_broken + 1))
		echo "not ok $test_count - $1 # TODO ${3:-known breakage}"
	fi
}

test_must_fail() {
	"$@"
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "test_must_fail: command succeeded: $*" >&2
		return 1
	elif [ $rc -gt 128 ]; then
		echo "test_must_fail: command died of a signal ($rc): $*" >&2
		return 1
	fi
	return 0
}

# test_exit_code N cmd...: the command exits with exactly N.
test_exit_code() {
	want=$1
	shift
	"$@"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "test_exit_code: wanted $want, got $rc: $*" >&2
		return 1
	fi
}

# test_interrupt CONDITION COMMAND...: run COMMAND in the background, wait
# until the shell CONDITION holds (at most 30 s; "sleep 1" waits a second),
# press Ctrl-C (SIGINT) and return COMMAND's exit status.  The call's
# redirections are COMMAND's.
test_interrupt() {
	_ti_condition=$1
	shift
	"$@" &
	_ti_pid=$!
	_ti_n=0
	while ! eval "$_ti_condition" >/dev/null 2>&1 && [ $_ti_n -lt 300 ]; do
		sleep 0.1
		_ti_n=$((_ti_n + 1))
	done
	kill -INT $_ti_pid
	wait $_ti_pid
}

# Permission errors are tested as nobody (65534), which needs root and
# setpriv: test_can_drop_privileges says so when they are missing (the
# test then passes, as one that does not apply here).
test_can_drop_privileges() {
	test "$(id -u)" = 0 && command -v setpriv >/dev/null && return 0
	echo "needs root and setpriv to drop privileges: skipped"
	return 1
}

# test_as_nobody DIR SCRIPT: DIR (made if missing, given to nobody) becomes
# a git repository with a perun instance, and SCRIPT runs there as nobody.
test_as_nobody() {
	mkdir -p "$1" && chown -R 65534:65534 "$1" && (
		cd "$1" &&
		setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$PWD" sh -c "
			git init -q . &&
			git -c user.email=t@t -c user.name=t commit -q --allow-empty -m i &&
			perun init >/dev/null && $2"
	)
}

test_cmp() {
	diff -u "$1" "$2"
}

# test_grep pattern file: like grep, but shows the file when it fails.
test_grep() {
	if ! grep "$@"; then
		eval "last=\${$#}"
		echo "test_grep: no match for '$1' in:" >&2
		cat "$last" >&2
		return 1
	fi
}

# A snapshot of the store, to prove a failed command left it unchanged.
store_snapshot() {
	(cd "${1:-.}" && find .perun -type f ! -name lock -print0 | sort -z |
		xargs -0 sha1sum 2>/dev/null)
}

# test_forge_profiles <repo> <file> <blob>: a commit on refs/perun/profiles
# of repo (the share tests' remote) whose tree is the current one with
# <file> the blob <blob>: a remote with a corrupt or foreign object.
test_forge_profiles() {
	GIT_INDEX_FILE="$TRASH_DIRECTORY/forge.idx" && export GIT_INDEX_FILE &&
	git --git-dir="$1" read-tree refs/perun/profiles &&
	git --git-dir="$1" update-index --add --cacheinfo 100644 "$3" "$2" &&
	tree=$(git --git-dir="$1" write-tree) &&
	commit=$(echo forged | git --git-dir="$1" commit-tree "$tree" -p refs/perun/profiles) &&
	git --git-dir="$1" update-ref refs/perun/profiles "$commit" &&
	rm -f "$GIT_INDEX_FILE" && unset GIT_INDEX_FILE
}

# The fault-injection sweeps (t0404, t0405; tests/helpers/fault-inject.c).
# test_fault_snapshot <dir>: the store as a sweep compares it: all of it,
# or with scratch set (run matrix, status) all but the log, scratch and pending
# profiles (.perun/logs, tmp, jobs), which a failed run may grow.
test_fault_snapshot() {
	store_snapshot "$1" | if [ -n "${scratch:-}" ]; then
		grep -v " \.perun/\(logs\|tmp\|jobs\)/"
	else
		cat
	fi
}

# test_fault_no_partial_profile <what>: every pending profile of work/ is
# whole JSON (they are written atomically).
test_fault_no_partial_profile() {
	for _tfp in work/.perun/jobs/*.perf; do
		test -f "$_tfp" || continue
		jq empty "$_tfp" 2>/dev/null || { echo "$1: a partial profile $_tfp"; return 1; }
	done
}

# test_fault_shim: SHIM is the preloaded shim, or every test is skipped.
test_fault_shim() {
	SHIM="$TEST_BUILDDIR/tests/helpers/.libs/fault-inject.so"
	test -f "$SHIM" || test_skip_all "the fault-injection shim was not built"
	# A perun built with gcc's ASan (--enable-sanitizers) needs its runtime
	# as the first library of the process: preload it ahead of the shim.
	# It then runs in the libtool wrapper's sed too, whose leaks are not ours.
	ASAN_RT=$(ldd "$TEST_BUILDDIR/.libs/perun" 2>/dev/null | awk '/libasan/ { print $3 }')
	if [ -n "$ASAN_RT" ]; then
		SHIM="$ASAN_RT $SHIM"
		export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	fi
}

# test_fault_base <dir>: a git repository whose instance has one tracked
# profile (a.perf) and one pending (b.perf), what each sweep starts from.
test_fault_base() {
	git init -q "$1" && (cd "$1" && perun init >/dev/null &&
	git commit -q --allow-empty -m v1 &&
	test_time_profile 1.0 "$(git rev-parse HEAD)" >.perun/jobs/a.perf &&
	perun add .perun/jobs/a.perf >/dev/null &&
	test_time_profile 2.0 "$(git rev-parse HEAD)" >.perun/jobs/b.perf)
}

# test_fault_count <name> <perun args...>: run the command once in count/,
# a copy of base/, with the shim counting its calls into $name.counts.
test_fault_count() {
	_tfc_name=$1
	shift
	rm -rf count && cp -a base count &&
	(cd count && PERUN_FAULT_COUNT="$TRASH_DIRECTORY/$_tfc_name.counts" LD_PRELOAD="$SHIM" \
		perun "$@" >/dev/null 2>&1) ||
		{ echo "$_tfc_name: the command fails without faults"; return 1; }
}

# Make a git repository with a small C program and two commits.
# test_time_profile [<amount> [<origin>]]: a small time profile of one uid
# (main, amounts given three times) on stdout, as Python Perun writes one.
test_time_profile() {
	cat <<-EOF
	{
	  "header": {"type": "time", "cmd": "prog", "args": "", "workload": "in",
	             "units": {"time": "s"}},
	  "collector_info": {"name": "time", "params": {}},
	  "postprocessors": [],
	  "models": [],
	  "origin": "${2:-}",
	  "resources": {"main#0": {"amount": [${1:-1.0}, ${1:-1.0}, ${1:-1.0}]}},
	  "resource_type_map": {"main#0": {"uid": "main", "type": "time"}}
	}
	EOF
}

# The project's own profiles, every type the shared set has, with known
# answers (tests/fixtures/gen-profiles.py says which): test_fixtures makes
# them once per test file and sets FIXTURES to their directory.
test_fixtures() {
	FIXTURES="$TRASH_DIRECTORY/fixtures"
	test -d "$FIXTURES" && return 0
	command -v python3 >/dev/null || test_skip_all "python3 is needed for the test profiles"
	python3 "$TEST_SRCDIR/tests/fixtures/gen-profiles.py" "$FIXTURES" ||
		{ echo "Bail out! tests/fixtures/gen-profiles.py failed"; exit 1; }
}

# Python Perun's profiles (../shared, or PERUN_TESTDATA) only add
# comparisons with Python Perun: without them just those cases skip.
# test_have_shared succeeds when they are there; test_expect_shared is
# test_expect_success for such a case, or reports it skipped.
test_have_shared() {
	test -d "$TESTDATA"
}

test_skip_shared() {
	test_count=$((test_count + 1))
	echo "ok $test_count - $1 # SKIP no shared test data at $TESTDATA"
}

test_expect_shared() {
	if test_have_shared; then
		test_expect_success "$@"
	else
		test_skip_shared "$1"
	fi
}

test_make_git_project() {
	mkdir -p "$1" && (
		cd "$1" &&
		git init -q &&
		cat >prog.c <<-'EOC' &&
		#include <stdlib.h>
		int main(int argc, char **argv)
		{
			long n = argc > 1 ? atol(argv[1]) : 1000, s = 0;
			for (long i = 0; i < n; i++)
				s += i % 7;
			return s == -1;
		}
		EOC
		git add prog.c &&
		git commit -q -m "first version" &&
		echo "/* tweak */" >>prog.c &&
		git commit -q -am "second version"
	)
}

# SARIF 2.1.0 (tests/schemas), validated with python3-jsonschema:
# test_have_jsonschema succeeds when it is installed; test_sarif_valid
# <file> fails unless the file is schema-valid and has what GitHub code
# scanning needs: results, each with a physical location (no "./") and a
# rule with a name and descriptions.
test_have_jsonschema() {
	/usr/bin/python3 -c "import jsonschema" 2>/dev/null
}

test_sarif_valid() {
	/usr/bin/python3 - "$TEST_SRCDIR/tests/schemas/sarif-2.1.0-rtm.5.json" "$1" <<-\EOF
	import json, sys, jsonschema
	schema = json.load(open(sys.argv[1]))
	doc = json.load(open(sys.argv[2]))
	jsonschema.Draft4Validator(schema).validate(doc)
	run, = doc["runs"]
	rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
	assert run["results"], "no results"
	for res in run["results"]:
	    loc = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
	    assert loc and not loc.startswith("./"), loc
	    rule = rules[res["ruleId"]]
	    assert rule["name"] and rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
	    assert run["tool"]["driver"]["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
	EOF
}

test_done() {
	echo "1..$test_count"
	if [ "$test_failed" -eq 0 ]; then
		rm -rf "$TRASH_DIRECTORY"
		exit 0
	fi
	exit 1
}
