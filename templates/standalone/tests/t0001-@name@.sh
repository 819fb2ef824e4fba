#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# TAP test of the @name@ view: perun loads the freshly built plugin and
# shows a small profile with it.
PERUN=${PERUN:-perun}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/plugins/view" &&
cp .libs/@name@.so "$tmp/plugins/view/@name@.so" || exit 1
perun() { "$PERUN" --plugin-path "$tmp/plugins" "$@"; }

cat >"$tmp/prof.perf" <<'EOP'
{
  "header": {"type": "time", "cmd": "prog", "args": "", "workload": "",
             "units": {"time": "s"}},
  "collector_info": {"name": "time", "params": {}},
  "postprocessors": [],
  "models": [],
  "resources": {
    "main#0": {"amount": [3.0, 1.5]},
    "helper#0": {"amount": [0.5]}
  },
  "resource_type_map": {
    "main#0": {"uid": "main", "type": "time"},
    "helper#0": {"uid": "helper", "type": "time"}
  }
}
EOP

n=0
failed=0
check() {
	n=$((n + 1))
	if eval "$2" >"$tmp/out" 2>&1; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		sed 's/^/# /' "$tmp/out"
		failed=1
	fi
}

check 'perun loads the plugin' '
	perun plugins inspect @name@ >"$tmp/inspect" &&
	grep -q "^kind:    view$" "$tmp/inspect" &&
	! grep -q "^status:  rejected" "$tmp/inspect" &&
	grep -q -e "^  -l, --limit <n> " "$tmp/inspect"
'
check 'shows the uids, largest amount first' '
	perun show "$tmp/prof.perf" @name@ >"$tmp/actual" &&
	printf "%-30s %8s %14s\n" uid count amount main 2 4.5 helper 1 0.5 >"$tmp/expect" &&
	diff -u "$tmp/expect" "$tmp/actual"
'
check '--limit keeps the largest' '
	perun show "$tmp/prof.perf" @name@ --limit 1 >"$tmp/actual" &&
	printf "%-30s %8s %14s\n" uid count amount main 2 4.5 >"$tmp/expect" &&
	diff -u "$tmp/expect" "$tmp/actual"
'
check 'a negative --limit is an input error (exit 2)' '
	perun show "$tmp/prof.perf" @name@ --limit -1 2>"$tmp/err"
	test $? -eq 2 &&
	grep -q "@name@.*--limit must not be negative (got -1)" "$tmp/err"
'
echo "1..$n"
exit $failed
