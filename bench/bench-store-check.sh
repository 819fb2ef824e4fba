#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# perun fsck and perun gc on a store of realistic size beside git fsck
# --full and git gc --prune=now on a git repository of about as many
# objects of the same sizes: wall time, CPU time and peak RSS of each and
# the ratio perun / git.  Asserts nothing.
#
# The store: VERSIONS (200) commits of a real history (a clone of this
# repository) with PER_VERSION (10) time profiles each, all different
# (amounts, workloads, a few to a few dozen resources), then one profile
# removed per version so that gc has objects to drop.  The git side: the
# same profiles as files, PER_VERSION added per commit over VERSIONS
# commits (fast-import, loose objects), and as many dangling blobs as
# perun gc drops.
#
# Usage: bench/bench-store-check.sh [build-dir]    (default ./build)
# Needs GNU time (Debian: time), python3.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/bench-lib.sh"
versions=${VERSIONS:-200}
per=${PER_VERSION:-10}
build=$(cd "${1:-$top/build}" && pwd)
bench_setup bench-store-check "$build"
# The real binary, not libtool's wrapper script (its shell would be measured).
if [ -x "$build/.libs/perun" ] && [ "$PERUN" = "$build/perun" ]; then
	PERUN=$build/.libs/perun
	export LD_LIBRARY_PATH="$build/sdk/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b \
	GIT_COMMITTER_EMAIL=b@example.com

echo "store: $versions versions x $per profiles of a clone of $top in $work" >&2
git clone -q "$top" "$work/real"
cd "$work/real"
[ "$(git rev-list --count HEAD)" -ge "$versions" ] ||
	{ echo "bench-store-check: fewer than $versions commits in $top" >&2; exit 2; }
"$PERUN" init >/dev/null
"$PERUN" collect -c true -w 1 time -r 10 -w 0 >/dev/null 2>&1 ||
	"$PERUN" collect -c true time -r 10 >/dev/null
template=$(ls .perun/jobs/*.perf | head -n 1)
git rev-list --first-parent -n "$versions" HEAD >"$work/shas"

# Profiles in gen/<sha>/, and the same bytes as a fast-import stream of
# the comparison repository (plus the dangling blobs).
python3 - "$template" "$per" "$work/shas" "$work/gen" "$work/git.stream" <<'PY'
import json, os, random, sys
tmpl = json.load(open(sys.argv[1]))
per, shas, gen, stream = int(sys.argv[2]), open(sys.argv[3]).read().split(), sys.argv[4], sys.argv[5]
rnd = random.Random(1)
res = next(iter(tmpl["resources"].values()))
out = open(stream, "wb")
def blob(data):
    out.write(b"blob\ndata %d\n" % len(data) + data + b"\n")
for i, sha in enumerate(reversed(shas)):
    os.makedirs(os.path.join(gen, sha))
    files = []
    for k in range(per):
        p = json.loads(json.dumps(tmpl))
        p["origin"] = sha
        p["header"]["workload"] = f"w{k}-{rnd.randint(0, 10**6)}"
        p["resources"], p["resource_type_map"] = {}, {}
        for r in range(rnd.choice([1, 2, 4, 8, 16, 32])):
            uid = f"fn{r}"
            amounts = [round(rnd.uniform(0.001, 2.0), 6) for _ in res["amount"]]
            p["resources"][f"{uid}#0"] = dict(res, amount=amounts)
            p["resource_type_map"][f"{uid}#0"] = {"uid": uid, "type": "time"}
        data = json.dumps(p, indent=2).encode()
        open(os.path.join(gen, sha, f"time-{k}.perf"), "wb").write(data)
        files.append((f"v{i}/time-{k}.perf", data))
    msg = f"version {i}\n".encode()
    out.write(b"commit refs/heads/main\ncommitter b <b@example.com> %d +0000\ndata %d\n%s"
              % (1700000000 + i, len(msg), msg))
    for name, data in files:
        out.write(b"M 644 inline %s\ndata %d\n%s\n" % (name.encode(), len(data), data))
for k in range(len(shas)):
    blob(json.dumps({"dangling": k, "pad": "x" * rnd.randint(500, 5000)}).encode())
PY
rm -f .perun/jobs/*.perf
for sha in $(cat "$work/shas"); do
	"$PERUN" add -m "$sha" "$work/gen/$sha"/*.perf >/dev/null
	"$PERUN" rm -m "$sha" 0@i >/dev/null
done

git init -q "$work/cmp"
(cd "$work/cmp" && git fast-import --quiet --big-file-threshold=1g \
	--max-pack-size=1g <"$work/git.stream" && git checkout -q main &&
	# fast-import writes a pack (unless small): unpack it so that git, as
	# perun, starts from loose objects.
	mkdir -p ../packs && for p in .git/objects/pack/*.pack; do
		[ -f "$p" ] || continue
		mv "$p" ../packs/ && rm -f "${p%.pack}.idx" &&
			git unpack-objects -q <"../packs/${p##*/}" || exit 1
	done)

echo "perun: $(find .perun/objects -type f | wc -l) objects, $(du -sk .perun/objects | cut -f1) KB;" \
	"git: $(find "$work/cmp/.git/objects" -type f | wc -l) objects," \
	"$(du -sk "$work/cmp/.git/objects" | cut -f1) KB"

# measure <label> <cmd>...: m_wall (s), m_cpu (s), m_rss (KB) of one run.
measure() {
	_m_label=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" ||
		echo "$_m_label: exit $? ($(tail -n 1 "$work/err"))"
	read -r m_wall _m_user _m_sys m_rss <"$work/time"
	m_cpu=$(echo "$_m_user + $_m_sys" | bc)
	printf '%-24s %8.2f s wall %8.2f s cpu %8d KB peak RSS\n' "$_m_label" "$m_wall" "$m_cpu" "$m_rss"
}
ratio() { echo "$1 $2" | awk '{ printf "%.2f", ($2 > 0 ? $1 / $2 : 0) }'; }

measure "perun fsck" "$PERUN" fsck
pf_wall=$m_wall pf_cpu=$m_cpu pf_rss=$m_rss
measure "perun gc" "$PERUN" gc
pg_wall=$m_wall pg_cpu=$m_cpu pg_rss=$m_rss
echo "  (perun gc: $(tail -n 1 "$work/out"))"
cd "$work/cmp"
measure "git fsck --full" git fsck --full
gf_wall=$m_wall gf_cpu=$m_cpu gf_rss=$m_rss
measure "git gc --prune=now" git gc -q --prune=now
gg_wall=$m_wall gg_cpu=$m_cpu gg_rss=$m_rss
echo "perun / git: fsck wall $(ratio "$pf_wall" "$gf_wall"), cpu $(ratio "$pf_cpu" "$gf_cpu"), RSS $(ratio "$pf_rss" "$gf_rss");" \
	"gc wall $(ratio "$pg_wall" "$gg_wall"), cpu $(ratio "$pg_cpu" "$gg_cpu"), RSS $(ratio "$pg_rss" "$gg_rss")"
