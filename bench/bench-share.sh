#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# perun push / fetch / pull on a store of 100,000 distinct profiles over
# 10,000 commits, against git moving the same objects.  Prints figures,
# asserts nothing.  Usage:
#   bench/bench-share.sh [build-dir]          (default: ./build)
#   COMMITS=1000 PROFILES_PER_COMMIT=10 ...   a smaller store
# Targets (issue 20): a fetch with nothing new under 1 s; the time and
# bytes of a first pull of the profiles next to git fetching the same
# objects.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
commits=${COMMITS:-10000}
per_commit=${PROFILES_PER_COMMIT:-10}

# shellcheck source=bench/bench-lib.sh
. "$top/bench/bench-lib.sh"
bench_binary "$build"
bench_workdir perun-bench-share
export GIT_CONFIG_NOSYSTEM=1
git config --global user.name Bench && git config --global user.email bench@example.com

# seconds <cmd>...: wall seconds of one run.
seconds() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null
	t1=$(date +%s%N)
	echo "scale=3; ($t1 - $t0) / 1000000000" | bc
}
# packed <git-dir>: bytes of its packs and loose objects.
packed() { du -sb "$1/objects" | cut -f1; }

echo "building $commits commits with $per_commit distinct profiles each in $work"
cd "$work"
git init -q --bare code.git
git init -q a && cd a
bench_commits "$commits"
git push -q ../code.git master
"$bin" init >/dev/null
printf ".perun\n" >.git/info/exclude
# The store written as perun writes it: zlib objects named by the SHA-1
# of "profile time <n>\0<json>", a pidx v2 index per commit.
t0=$(date +%s%N)
git rev-list master >"$work/revs"
python3 - "$per_commit" "$work/revs" <<'PY'
import hashlib, json, os, random, struct, sys, zlib
per = int(sys.argv[1])
rnd = random.Random(20)
def lstr(s):
    b = s.encode()
    return struct.pack("<I", len(b)) + b
for n, sha in enumerate(open(sys.argv[2]).read().split()):
    entries = []
    for k in range(per):
        amounts = [round(rnd.uniform(0.9, 1.1) * (1 + k), 6) for _ in range(5)]
        prof = {"header": {"type": "time", "cmd": "prog", "args": "", "workload": f"w{k}",
                           "units": {"time": "s"}},
                "collector_info": {"name": "time", "params": {"repeat": 5}},
                "postprocessors": [], "models": [],
                "resources": {"prog#0": {"amount": amounts}},
                "resource_type_map": {"prog#0": {"uid": "prog", "type": "time"}}}
        body = json.dumps(prof, separators=(",", ":")).encode()
        payload = b"profile time %d\0" % len(body) + body
        osha = hashlib.sha1(payload).hexdigest()
        d = os.path.join(".perun/objects", osha[:2])
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, osha[2:]), "wb") as f:
            f.write(zlib.compress(payload))
        entries.append((f"time-prog-w{k}-{n}.perf", 1700000000 + n, osha, f"w{k}"))
    entries.sort()
    out = b"pidx" + struct.pack("<ii", 2, len(entries))
    for name, mtime, osha, w in entries:
        out += struct.pack("<I", mtime) + bytes.fromhex(osha) + name.encode() + b"\0"
        out += lstr("time") + lstr("prog") + lstr(w) + lstr("time") + lstr("")
    d = os.path.join(".perun/objects", sha[:2])
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, sha[2:]), "wb") as f:
        f.write(out)
PY
t1=$(date +%s%N)
echo "store: $(find .perun/objects -type f | wc -l) files, $(du -sb .perun/objects | cut -f1) bytes" \
	"(written in $(echo "scale=1; ($t1 - $t0) / 1000000000" | bc) s)"

git init -q --bare "$work/profiles.git"
echo "first push (builds the tree of the whole store): $(seconds "$bin" push "$work/profiles.git") s"
echo "push with nothing new: $(seconds "$bin" push "$work/profiles.git") s"
echo "remote: $(packed "$work/profiles.git") bytes"

cd "$work" && git clone -q code.git b && cd b && "$bin" init >/dev/null
before=$(packed .git)
echo "first pull into a fresh clone: $(seconds "$bin" pull "$work/profiles.git") s," \
	"$(( $(packed .git) - before )) bytes of git objects received," \
	"$(find .perun/objects -type f | wc -l) store files"
echo "fetch with nothing new: $(seconds "$bin" fetch "$work/profiles.git") s"
echo "pull with nothing new: $(seconds "$bin" pull "$work/profiles.git") s"

# git alone moving the same objects: a fetch of the same ref.
cd "$work" && git init -q --bare g.git
before=$(packed g.git)
echo "git fetch of the same ref: $(seconds git -C g.git fetch -q "$work/profiles.git" \
	refs/perun/profiles:refs/perun/profiles) s, $(( $(packed g.git) - before )) bytes"
echo "git clone --mirror --no-local of the profiles remote: $(seconds git clone -q --mirror --no-local \
	"$work/profiles.git" m.git) s, $(packed m.git) bytes"
