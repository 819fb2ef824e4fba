# SPDX-License-Identifier: GPL-3.0-or-later
# serve-runs-lib.sh - what the tests of perun serve's runs add to
# serve-lib.sh (which it sources: serve_require, serve_start, serve_stop,
# serve_load, api).
#
#   . "$TEST_SRCDIR/tests/helpers/serve-runs-lib.sh"   (after test-lib.sh)
#   counters_require        skip the file when the counters collector
#                           cannot count task-clock here
#   req METHOD PATH [curl args]
#                           api with the method and, for POST, PUT and
#                           DELETE, the CSRF token: the status on stdout,
#                           the body in ./resp
#   wait_for CMD...         run CMD until it succeeds (up to a minute)
#   runs_project EXCLUDE    proj: a git project with an instance, waiter.sh
#                           (busy until ./go exists) and fails.sh (exit 3),
#                           EXCLUDE and the files the tests make ignored by
#                           git; the working directory ends in it

. "$TEST_SRCDIR/tests/helpers/serve-lib.sh"

runs_project() {
	test_make_git_project proj &&
	cd proj && perun init >/dev/null &&
	printf "resp\ngo\n*.sh\n%s\n" "$1" >>.git/info/exclude &&
	cat >waiter.sh <<-EOS &&
	#!/bin/sh
	while [ ! -e go ]; do i=0; while [ \$i -lt 3000 ]; do i=\$((i+1)); done; done
	EOS
	printf "#!/bin/sh\necho boom >&2\nexit 3\n" >fails.sh &&
	chmod +x waiter.sh fails.sh
}

counters_require() {
	test -e "$PERUN_PLUGIN_PATH/collect/counters.so" ||
		test_skip_all "the counters collector is not built"
	test_make_git_project counters-probe &&
	(cd counters-probe && perun init >/dev/null 2>&1 &&
	 perun collect -c true counters -e task-clock >/dev/null 2>&1) ||
		test_skip_all "the counters collector cannot count task-clock here"
	rm -rf counters-probe
}

req() {
	_rq_m=$1 _rq_p=$2
	shift 2
	case $_rq_m in
	POST | PUT | DELETE)
		api /api/csrf >/dev/null || return 1
		set -- -H "X-CSRF-Token: $(jq -r .csrf body)" "$@"
		;;
	esac
	_rq_status=$(api "$_rq_p" -X "$_rq_m" "$@") || return 1
	mv body resp
	echo "$_rq_status"
}

wait_for() {
	_wf_i=0
	until "$@" 2>/dev/null; do
		_wf_i=$((_wf_i + 1))
		[ $_wf_i -gt 1200 ] && { echo "wait_for: still failing: $*" >&2; return 1; }
		sleep 0.05
	done
}
