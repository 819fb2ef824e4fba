# SPDX-License-Identifier: GPL-3.0-or-later
# serve-runs-lib.sh - a perun serve of the current instance for shell tests.
#
#   . "$TEST_SRCDIR/tests/helpers/serve-runs-lib.sh"   (after test-lib.sh)
#   serve_require           skip the whole file when perun cannot serve
#   counters_require        skip it when the counters collector cannot
#                           count task-clock here
#   serve_start [options]   start 'perun serve --listen 127.0.0.1:0' here,
#                           read its URL from its first line of output and
#                           write serve.base (http://127.0.0.1:PORT),
#                           serve.token, serve.csrf and serve.pid
#   serve_stop              SIGTERM, and wait until it has exited
#   api METHOD PATH [BODY]  request with the token (and the CSRF token for
#                           POST, PUT, DELETE): the status on stdout, the
#                           body in ./resp
#   wait_for CMD...         run CMD until it succeeds (up to a minute)

serve_require() {
	command -v jq >/dev/null || test_skip_all "jq is needed to read the answers"
	command -v curl >/dev/null || test_skip_all "curl is needed to talk to the server"
	grep -q "define HAVE_LIBMICROHTTPD 1" "$TEST_BUILDDIR/autoconfig.h" ||
		test_skip_all "perun was built without libmicrohttpd"
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

serve_start() {
	rm -f serve.out serve.err
	perun serve --listen 127.0.0.1:0 "$@" >serve.out 2>serve.err &
	echo $! >serve.pid
	wait_for grep -q "token=" serve.out || { cat serve.err >&2; return 1; }
	url=$(sed -n "1s/.*\(http:[^ ]*\).*/\1/p" serve.out)
	echo "${url%%/?token=*}" >serve.base
	echo "${url##*token=}" >serve.token
	curl -sf -H "Authorization: Bearer $(cat serve.token)" "$(cat serve.base)/api/csrf" |
		jq -r .csrf >serve.csrf
	test -s serve.csrf
}

serve_stop() {
	kill "$(cat serve.pid)" 2>/dev/null
	wait_for sh -c "! kill -0 $(cat serve.pid) 2>/dev/null"
}

api() {
	_m=$1 _p=$2
	shift 2
	set -- -s -o resp -w "%{http_code}" -X "$_m" \
		-H "Authorization: Bearer $(cat serve.token)" "$@"
	case $_m in POST | PUT | DELETE) set -- "$@" -H "X-CSRF-Token: $(cat serve.csrf)" ;; esac
	curl "$@" "$(cat serve.base)$_p"
}

wait_for() {
	_i=0
	until "$@" 2>/dev/null; do
		_i=$((_i + 1))
		[ $_i -gt 1200 ] && { echo "wait_for: still failing: $*" >&2; return 1; }
		sleep 0.05
	done
}
