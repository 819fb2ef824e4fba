#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun push, fetch and pull over ssh://localhost: a private sshd of the
# test's own (host key, config, authorized_keys in the trash directory),
# the user's key held by an ssh agent only, the host key accepted through
# a known_hosts the test writes.  An unknown or changed host key, and an
# agent without the key, each get one line and leave the store alone.
. "$srcdir/tests/test-lib.sh"

SSHD=$(command -v sshd || echo /usr/sbin/sshd)
test -x "$SSHD" || test_skip_all "sshd is needed (openssh-server)"
for tool in ssh-keygen ssh-agent ssh-add python3; do
	command -v $tool >/dev/null || test_skip_all "$tool is needed"
done

# Under the sanitizers: libgit2 1.5's ssh transport leaks what libssh2
# hands it (the userauth list, the known_hosts collection, a few strings)
# on every connection, perun's calls or not.  Those leaks, and only in
# this test, are suppressed by the connection they happen under; whole
# stacks are needed to see it (libgit2 has no frame pointers).
if [ "${PERUN_TEST_SANITIZED:-0}" = 1 ] && [ -n "${LSAN_OPTIONS:-}" ]; then
	supp=$(printf "%s\n" "$LSAN_OPTIONS" | tr ":" "\n" | sed -n "s/^suppressions=//p")
	{ test -z "$supp" || cat "$supp"; echo "leak:git_remote_connect_ext"; } >"$TRASH_DIRECTORY/lsan.supp"
	LSAN_OPTIONS=$(printf "%s\n" "$LSAN_OPTIONS" | tr ":" "\n" | grep -v "^suppressions=" | tr "\n" ":")
	export LSAN_OPTIONS="${LSAN_OPTIONS}suppressions=$TRASH_DIRECTORY/lsan.supp:fast_unwind_on_malloc=0"
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:fast_unwind_on_malloc=0"
fi

# A free port, as the kernel hands one out.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SRV="$TRASH_DIRECTORY/sshd"
mkdir -p "$SRV" && chmod 700 "$SRV" &&
ssh-keygen -q -t ed25519 -N "" -C "perun test host" -f "$SRV/host_key" &&
ssh-keygen -q -t ed25519 -N "" -C "perun test user" -f "$SRV/user_key" &&
cp "$SRV/user_key.pub" "$SRV/authorized_keys" || test_skip_all "ssh-keygen failed"
cat >"$SRV/sshd_config" <<EOF
Port $PORT
ListenAddress 127.0.0.1
HostKey $SRV/host_key
PidFile $SRV/sshd.pid
AuthorizedKeysFile $SRV/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
LogLevel VERBOSE
EOF
# sshd's privilege separation wants its empty directory (root only).
[ "$(id -u)" -ne 0 ] || mkdir -p /run/sshd 2>/dev/null
"$SSHD" -t -f "$SRV/sshd_config" >"$SRV/check.log" 2>&1 ||
	test_skip_all "sshd -t refuses the test's configuration: $(head -1 "$SRV/check.log" | grep . || echo "$SSHD exits non-zero")"
"$SSHD" -D -e -f "$SRV/sshd_config" 2>"$SRV/sshd.log" &
sshd_pid=$!
eval "$(ssh-agent -s)" >/dev/null || test_skip_all "ssh-agent did not start"
trap 'kill $sshd_pid 2>/dev/null; kill $SSH_AGENT_PID 2>/dev/null' EXIT
for _ in $(seq 50); do
	grep -q "Server listening" "$SRV/sshd.log" 2>/dev/null && break
	kill -0 $sshd_pid 2>/dev/null || break
	sleep 0.1
done
grep -q "Server listening" "$SRV/sshd.log" ||
	test_skip_all "sshd did not start: $(tail -1 "$SRV/sshd.log")"
ssh-add -q "$SRV/user_key" 2>/dev/null || test_skip_all "ssh-add failed"
# Only the agent holds the key from here on.
rm -f "$SRV/user_key"

USER_NAME=$(id -un)
URL="ssh://$USER_NAME@localhost:$PORT$TRASH_DIRECTORY/remote.git"
mkdir -p "$HOME/.ssh" &&
echo "[localhost]:$PORT $(cut -d" " -f1,2 "$SRV/host_key.pub")" >"$HOME/.ssh/known_hosts"

# add_profile <name> <amount>: register a time profile at HEAD as <name>.
add_profile() {
	test_time_profile "$2" "$(git rev-parse HEAD)" >".perun/jobs/$1.perf" &&
	perun add ".perun/jobs/$1.perf" >/dev/null
}

git init -q --bare remote.git && test_make_git_project a &&
(cd a && git remote add origin "$URL" && git push -q ../remote.git master &&
 perun init >/dev/null &&
 printf ".perun\n" >.git/info/exclude) || exit 1
(cd a && perun fetch >../probe 2>&1)
grep -q "built without ssh" probe && test_skip_all "libgit2 of this perun has no ssh: $(cat probe)"

test_expect_success 'ssh itself logs in with the agent'"'"'s key' '
	ssh -o BatchMode=yes -o UserKnownHostsFile="$HOME/.ssh/known_hosts" -p $PORT \
		"$USER_NAME@localhost" true
'

test_expect_success 'push over ssh: the profiles land on the remote' '
	(cd a && git checkout -q HEAD~1 && add_profile one 1.0 && git checkout -q master &&
	 add_profile two 2.0 && perun push >../out) &&
	test_grep "^push: sent (" out &&
	git --git-dir=remote.git ls-tree -r --name-only refs/perun/profiles >tree &&
	test $(grep -c "^objects/" tree) = 2 &&
	grep -q "Accepted publickey for $USER_NAME" "$SRV/sshd.log"
'

test_expect_success 'fetch over ssh in a clone, then pull takes them in' '
	git clone -q remote.git b &&
	(cd b && git remote set-url origin "$URL" && perun init >/dev/null &&
	 store_snapshot . >../before && perun fetch >../out && store_snapshot . >../after) &&
	test_grep "^fetch: the remote.s profiles are updated" out && test_cmp before after &&
	(cd b && perun status >../out) && test_grep "1 remote only" out &&
	(cd b && perun pull >../out) &&
	test_grep "^pull: 2 profiles taken in (2 new objects)$" out
'

test_expect_success 'a second push over ssh merges and sends the new profile' '
	(cd b && add_profile three 3.0 && perun push >../out) && test_grep "^push: sent (" out &&
	(cd a && perun pull >../out) && test_grep "^pull: 1 profile taken in" out
'

test_expect_success 'an unknown host key: one line, store unchanged' '
	mv "$HOME/.ssh/known_hosts" "$HOME/.ssh/known_hosts.good" && store_snapshot a >before &&
	(cd a && test_exit_code 3 perun pull 2>../err) &&
	test_grep "^perun: cannot fetch from remote .origin.: the ssh host key of \[localhost\]:$PORT is unknown" err &&
	test $(wc -l <err) = 1 && store_snapshot a >after && test_cmp before after
'

test_expect_success 'a changed host key: refused, one line' '
	ssh-keygen -q -t ed25519 -N "" -f other_key &&
	echo "[localhost]:$PORT $(cut -d" " -f1,2 other_key.pub)" >"$HOME/.ssh/known_hosts" &&
	(cd a && test_exit_code 3 perun fetch 2>../err) &&
	test_grep "^perun: cannot fetch from remote .origin.: the ssh host key of \[localhost\]:$PORT is not the one known_hosts has for it" err &&
	test $(wc -l <err) = 1
'

test_expect_success 'a known_hosts with hashed names is read too' '
	cp "$HOME/.ssh/known_hosts.good" "$HOME/.ssh/known_hosts" &&
	ssh-keygen -q -H -f "$HOME/.ssh/known_hosts" 2>/dev/null &&
	! grep -q localhost "$HOME/.ssh/known_hosts" &&
	(cd a && perun fetch >../out) && test_grep "^fetch: up to date$" out
'

test_expect_success 'an agent without the key: authentication fails, one line' '
	ssh-add -q -D 2>/dev/null && store_snapshot a >before &&
	(cd a && test_exit_code 3 perun pull 2>../err) &&
	test_grep "^perun: cannot fetch from remote .origin.: " err &&
	test $(wc -l <err) = 1 && store_snapshot a >after && test_cmp before after
'

test_expect_success 'no agent at all: one line saying so' '
	(cd a && unset SSH_AUTH_SOCK && test_exit_code 3 perun fetch 2>../err) &&
	test_grep "^perun: cannot fetch from remote .origin.: no ssh agent to authenticate with (SSH_AUTH_SOCK is not set): start one and ssh-add a key$" err
'

test_done
