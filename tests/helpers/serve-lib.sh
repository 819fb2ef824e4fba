# SPDX-License-Identifier: GPL-3.0-or-later
# serve-lib.sh - run perun serve in shell tests and call it with curl.
#
#   . "$TEST_SRCDIR/tests/helpers/serve-lib.sh"   (after test-lib.sh)
#   serve_require           skip the file without curl and jq, or when
#                           perun was built without libmicrohttpd
#   serve_start DIR [opts]  start "perun serve --listen 127.0.0.1:0 opts" in
#                           DIR and wait for its URL; sets SERVE_BASE
#                           (http://127.0.0.1:PORT) and SERVE_TOKEN
#   serve_stop [SIG]        stop it (TERM by default); fails unless it
#                           exits 0 within 10 s
#   api PATH [curl args]    GET (or what the args say) PATH with the token
#                           as a Bearer header; the body goes to ./body,
#                           the status is printed
#   api_raw [curl args] URL the same without the token
#
# Test bodies run in subshells, so the server's URL, pid and exit code are
# kept in $TRASH_DIRECTORY/serve.* and read back by each helper; the file
# sourcing this stops a server left running when it exits.

SERVE_STATE=$TRASH_DIRECTORY/serve

serve_require() {
	command -v curl >/dev/null 2>&1 || test_skip_all "curl is needed to call perun serve"
	command -v jq >/dev/null 2>&1 || test_skip_all "jq is needed to read perun serve's JSON"
	if perun serve --listen 127.0.0.1:0 2>&1 </dev/null | grep -q "built without libmicrohttpd"; then
		test_skip_all "perun was built without libmicrohttpd"
	fi
}

serve_load() {
	_sl_url=$(sed -n "s|^perun serve[^:]*: \(http://[^ ]*\)$|\1|p" "$SERVE_STATE.out" 2>/dev/null)
	SERVE_BASE=${_sl_url%%/?token=*}
	SERVE_TOKEN=${_sl_url##*token=}
	test -n "$_sl_url"
}

serve_start() {
	_ss_dir=$1
	shift
	rm -f "$SERVE_STATE".*
	(
		cd "$_ss_dir" || exit 1
		# A simple command, so that $! is perun itself in every shell.
		perun serve --listen 127.0.0.1:0 "$@" >"$SERVE_STATE.out" 2>"$SERVE_STATE.err" &
		echo $! >"$SERVE_STATE.pid"
		wait $!
		echo $? >"$SERVE_STATE.rc"
	) &
	_ss_i=0
	until grep -q "token=" "$SERVE_STATE.out" 2>/dev/null; do
		_ss_i=$((_ss_i + 1))
		if [ $_ss_i -gt 100 ] || [ -f "$SERVE_STATE.rc" ]; then
			echo "perun serve did not start:" >&2
			cat "$SERVE_STATE.out" "$SERVE_STATE.err" >&2
			return 1
		fi
		sleep 0.1
	done
	serve_load
}

serve_stop() {
	kill -"${1:-TERM}" "$(cat "$SERVE_STATE.pid")" || return 1
	_ss_i=0
	until [ -s "$SERVE_STATE.rc" ]; do
		_ss_i=$((_ss_i + 1))
		[ $_ss_i -le 100 ] || { echo "perun serve did not stop" >&2; return 1; }
		sleep 0.1
	done
	_ss_rc=$(cat "$SERVE_STATE.rc")
	[ "$_ss_rc" -eq 0 ] || { echo "perun serve exited $_ss_rc" >&2; cat "$SERVE_STATE.err" >&2; return 1; }
}

serve_cleanup() {
	[ -f "$SERVE_STATE.pid" ] && [ ! -f "$SERVE_STATE.rc" ] &&
		kill "$(cat "$SERVE_STATE.pid")" 2>/dev/null
	return 0
}
trap serve_cleanup EXIT

api() {
	[ -n "${SERVE_BASE:-}" ] || serve_load || return 1
	_api_path=$1
	shift
	curl -s -o body -w "%{http_code}\n" -H "Authorization: Bearer $SERVE_TOKEN" "$@" \
		"$SERVE_BASE$_api_path"
}

api_raw() {
	[ -n "${SERVE_BASE:-}" ] || serve_load || return 1
	curl -s -o body -w "%{http_code}\n" "$@"
}
