#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the Debian packages of debian/ from a clean copy of the tree (the
# files git knows, untracked but not ignored ones included), runs lintian
# (failing on errors), checks that every plugin and every installed file
# the build made is shipped by a package, installs the packages, runs a
# smoke job (perun init in a scratch git repository, collect time, status,
# show, plugins list), removes one plugin package and checks that
# `perun plugins list` lost exactly its plugins while the smoke job still
# works, and builds the plugin template of libperun-dev against the
# installed SDK.  Prints TAP, the build time and the size of every package.
#
# Environment:
#   PERUN_DEBIAN_INSTALL  scratch (default): dpkg --root into a scratch
#                         directory, perun run from there with
#                         LD_LIBRARY_PATH, PERUN_PLUGIN_PATH and PERUN_SPAWN;
#                         system: apt-get install the packages on this
#                         machine (root, a throw-away CI machine), purged at
#                         the end
#   PERUN_DEBIAN_REMOVE   the plugin package removed (perun-plugin-pprof)
#   PERUN_DEBIAN_DIR      work directory (default: a new one under /tmp,
#                         removed at the end unless PERUN_DEBIAN_KEEP=1)
#   PERUN_DEBIAN_REUSE    1: with PERUN_DEBIAN_DIR, check the packages built there
#                         by an earlier run instead of building again
#   DEB_BUILD_OPTIONS     default "nocheck parallel=2" (the test suite runs
#                         in its own CI stage)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mode=${PERUN_DEBIAN_INSTALL:-scratch}
remove_pkg=${PERUN_DEBIAN_REMOVE:-perun-plugin-pprof}
export DEB_BUILD_OPTIONS=${DEB_BUILD_OPTIONS:-nocheck parallel=2}
# Without nocheck, dh_auto_test runs make check on the copy, which has no
# shared test data beside it.
if [ -z "${PERUN_TESTDATA:-}" ] && [ -d "$top/../shared/testdata/perun-profiles" ]; then
	PERUN_TESTDATA=$(cd "$top/../shared/testdata/perun-profiles" && pwd)
	export PERUN_TESTDATA
fi
case $mode in scratch | system) ;; *)
	echo "PERUN_DEBIAN_INSTALL is scratch or system, not '$mode'" >&2
	exit 2
	;;
esac
for tool in dpkg-buildpackage dh lintian jq git; do
	command -v "$tool" >/dev/null ||
		{ echo "check-debian-packages: $tool missing (scripts/install-deps.sh)" >&2; exit 2; }
done

git -C "$top" rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "check-debian-packages: $top is not a git checkout" >&2; exit 2; }
if [ "$mode" = system ] && dpkg-query -W -f='${Status}\n' perun 2>/dev/null | grep -q ' installed$'; then
	echo "check-debian-packages: perun is installed here already; it would be purged" >&2
	exit 2
fi

work=${PERUN_DEBIAN_DIR:-$(mktemp -d /tmp/perun-deb.XXXXXX)}
mkdir -p "$work"
installed_system=""
cleanup() {
	if [ -n "$installed_system" ]; then
		# Those still known to dpkg: apt-get refuses a name it cannot find.
		local left
		left=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' $installed_system 2>/dev/null |
			awk '$2 != "un" { print $1 }' || true)
		[ -z "$left" ] || env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq $left >/dev/null ||
			echo "# check-debian-packages: could not purge $left" >&2
	fi
	[ "${PERUN_DEBIAN_KEEP:-0}" = 1 ] || [ -n "${PERUN_DEBIAN_DIR:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
# check <description> <command...>: one TAP line; the command's output is
# shown (as TAP comments) when it fails.
check() {
	local what=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$what"
	else
		not_ok "$what"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
}

version=$(sed -n '1s/^perun (\([^)]*\)).*/\1/p' "$top/debian/changelog")
upstream=${version%-*}
src=$work/perun-$upstream
changes=$work/perun_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).changes
log=$work/build.log
if [ "${PERUN_DEBIAN_REUSE:-0}" = 1 ] && [ -f "$changes" ] && [ -d "$src/debian/tmp" ]; then
	build_secs="(not measured: the build of $work was reused)"
	ok "reusing the packages built in $work (PERUN_DEBIAN_REUSE=1)"
else
	# ---- a clean copy of the tree ------------------------------------------
	rm -rf "$src"
	mkdir -p "$src"
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		xargs -0 cp --parents -t "$src")
	ok "clean copy of the tree for perun $version in $src"

	# ---- build ---------------------------------------------------------------
	start=$(date +%s)
	if (cd "$src" && dpkg-buildpackage -us -uc -b) >"$log" 2>&1; then
		build_secs="$(($(date +%s) - start))s"
		ok "dpkg-buildpackage -us -uc -b ($build_secs, DEB_BUILD_OPTIONS='$DEB_BUILD_OPTIONS')"
	else
		not_ok "dpkg-buildpackage -us -uc -b (log: $log)"
		tail -40 "$log" | sed 's/^/# /'
		trap - EXIT
		echo "1..$n"
		exit 1
	fi
fi
mapfile -t debs < <(sed -n '/^Files:/,/^[^ ]/s/^ .* \([^ ]*\.deb\)$/\1/p' "$changes" | grep -v -- '-dbgsym_')
[ ${#debs[@]} -gt 0 ] || { echo "no .deb named in $changes" >&2; exit 1; }
pkgs=()
for d in "${debs[@]}"; do pkgs+=("$(dpkg-deb -f "$work/$d" Package)"); done

# ---- lintian -------------------------------------------------------------
lintian_out=$work/lintian.txt
# With --show-overrides, lintian fails on an overridden error too: the
# errors are counted here (exit 1 is lintian's own failure).
lintian_rc=0
lintian --fail-on error --show-overrides "$changes" >"$lintian_out" 2>&1 || lintian_rc=$?
if [ "$lintian_rc" != 1 ] && ! grep -q '^E: ' "$lintian_out"; then
	ok "lintian: no errors ($(grep -c '^W: ' "$lintian_out" || true) warnings, $(grep -c '^O: ' "$lintian_out" || true) overridden)"
else
	not_ok "lintian: errors (exit $lintian_rc)"
	grep -vE '^(E|W|O|N): ' "$lintian_out" | sed 's/^/# /' || true
fi
grep -E '^(E|W|O): ' "$lintian_out" | sed 's/^/# /' || true

# ---- everything built is shipped ----------------------------------------
contents=$work/contents.txt
for d in "${debs[@]}"; do
	dpkg-deb -c "$work/$d" | awk -v p="$(dpkg-deb -f "$work/$d" Package)" \
		'{ f = $6; sub(/^\.\//, "", f); if (f ~ /\/$/) next
		   if (f ~ /^usr\/share\/man\//) sub(/\.gz$/, "", f); print p "\t" f }'
done >"$contents"
unshipped=$(cd "$src/debian/tmp" && find . \( -type f -o -type l \) ! -name '*.la' | sed 's|^\./||' |
	sort | comm -23 - <(cut -f2 "$contents" | sort -u))
if [ -z "$unshipped" ]; then
	ok "every file make install wrote is in a package"
else
	not_ok "files make install wrote that no package ships"
	printf '%s\n' "$unshipped" | sed 's/^/# /'
fi
built_plugins=$(cd "$src/stage/plugins" && ls -1 */*.so | sed 's/\.so$//' | sort)
shipped_plugins=$(sed -n 's|^[^\t]*\tusr/lib/[^/]*/perun/plugins/\([^/]*/[^/]*\)\.so$|\1|p' "$contents" | sort)
missing=$(comm -23 <(printf '%s\n' "$built_plugins") <(printf '%s\n' "$shipped_plugins"))
if [ -n "$built_plugins" ] && [ -z "$missing" ]; then
	ok "all $(printf '%s\n' "$built_plugins" | wc -l) built plugins are shipped"
else
	not_ok "built plugins that no package ships: ${missing:-(none built)}"
fi
# The configure summary: every plugin was built (--enable-all-plugins=yes).
summary=$(sed -n '/summary of plugins to build:$/,/^[^ ]/p' "$log" |
	grep -E '^    [a-z]+ +[A-Za-z0-9_-]+ +(yes|no)' || true)
not_built=$(printf '%s\n' "$summary" | awk 'NF >= 3 && $3 != "yes"')
if [ -n "$summary" ] && [ -z "$not_built" ]; then
	ok "configure built every plugin of its summary ($(printf '%s\n' "$summary" | wc -l))"
else
	not_ok "configure left plugins out"
	printf '%s\n' "$not_built" | sed 's/^/# /'
fi
dup=$(cut -f2 "$contents" | sort | uniq -d)
if [ -z "$dup" ]; then ok "no file is in two packages"; else
	not_ok "files in two packages"
	printf '%s\n' "$dup" | sed 's/^/# /'
fi
removed_plugins=$(awk -F'\t' -v p="$remove_pkg" '$1 == p' "$contents" |
	sed -n 's|^[^\t]*\tusr/lib/[^/]*/perun/plugins/\([^/]*/[^/]*\)\.so$|\1|p' | sort)
[ -n "$removed_plugins" ] ||
	{ echo "Bail out! $remove_pkg ships no plugin"; exit 1; }

# ---- sizes ---------------------------------------------------------------
echo "# package build time: $build_secs"
echo "# package                      .deb bytes  installed KiB"
for d in "${debs[@]}"; do
	printf '# %-28s %10s  %13s\n' "$(dpkg-deb -f "$work/$d" Package)" \
		"$(stat -c %s "$work/$d")" "$(dpkg-deb -f "$work/$d" Installed-Size)"
done

# ---- install ---------------------------------------------------------------
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
if [ "$mode" = system ]; then
	root=""
	deb_paths=()
	for d in "${debs[@]}"; do deb_paths+=("$work/$d"); done
	if env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${deb_paths[@]}" >"$work/install.log" 2>&1; then
		installed_system="${pkgs[*]}"
		ok "apt-get install of ${#debs[@]} packages"
	else
		not_ok "apt-get install of ${#debs[@]} packages"
		sed 's/^/# /' "$work/install.log"
		echo "1..$n"
		exit 1
	fi
	run_perun() { /usr/bin/perun "$@"; }
	remove() { env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "$@"; }
else
	if [ -e "/usr/lib/$multiarch/perun/plugins" ]; then
		echo "Bail out! /usr/lib/$multiarch/perun/plugins exists: perun is installed on this" \
			"machine and would load its plugins too (PERUN_DEBIAN_INSTALL=system?)"
		exit 1
	fi
	# The packages' dependencies on Debian's libraries resolve here...
	if command -v apt-get >/dev/null; then
		deb_paths=()
		for d in "${debs[@]}"; do deb_paths+=("$work/$d"); done
		check "apt-get resolves the packages' dependencies (simulated install)" \
			apt-get install -s --no-install-recommends "${deb_paths[@]}"
	fi
	# ... and dpkg installs them into a scratch root, where only ours are
	# known, so their dependencies on each other are checked by dpkg while
	# those on the rest of Debian are forced.
	root=$work/root
	rm -rf "$root"
	mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/log"
	: >"$root/var/lib/dpkg/status"
	: >"$root/var/lib/dpkg/available"
	dpkg_root() {
		dpkg --root="$root" --force-not-root --force-script-chrootless \
			--force-depends --log="$root/var/log/dpkg.log" "$@"
	}
	deb_paths=()
	for d in "${debs[@]}"; do deb_paths+=("$work/$d"); done
	check "dpkg --root installs ${#debs[@]} packages into $root" dpkg_root -i "${deb_paths[@]}"
	export LD_LIBRARY_PATH="$root/usr/lib/$multiarch${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	export PERUN_PLUGIN_PATH="$root/usr/lib/$multiarch/perun/plugins"
	export PERUN_SPAWN="$root/usr/libexec/perun/perun-spawn"
	export PERUN_CHARTJS=/usr/share/javascript/chart.js/chart.min.js
	run_perun() { "$root/usr/bin/perun" "$@"; }
	remove() { dpkg_root -r "$@"; }
fi
export XDG_DATA_HOME=$work/xdg-data XDG_CONFIG_HOME=$work/xdg-config XDG_STATE_HOME=$work/xdg-state
export PAGER=cat

# ---- smoke job ---------------------------------------------------------------
# plugins_list: "kind/name" of every plugin perun lists as loaded.
plugins_list() {
	run_perun plugins list --format json |
		jq -r '.plugins[] | select(.status == "ok") | .kind + "/" + .name' | sort
}
smoke() {
	local tag=$1 repo=$work/repo-$1
	rm -rf "$repo"
	mkdir -p "$repo"
	(
		set -e
		cd "$repo"
		git init -q
		git config user.email smoke@example.invalid
		git config user.name smoke
		echo 'int main(void) { return 0; }' >prog.c
		git add prog.c
		git commit -qm smoke
		run_perun init
		run_perun collect -c true time
		run_perun status | grep -q '0@p'
		run_perun add 0@p
		run_perun show 0@i tableof resources | grep -q 'true'
		run_perun status
	) >"$work/smoke-$tag.log" 2>&1
}
if smoke installed; then ok "smoke job: init, collect -c true time, status, add, show"; else
	not_ok "smoke job: init, collect -c true time, status, add, show"
	sed 's/^/# /' "$work/smoke-installed.log"
fi
before=$(plugins_list || true)
shipped_sorted=$(printf '%s\n' "$shipped_plugins" | sort)
if [ "$before" = "$shipped_sorted" ]; then
	ok "perun plugins list: every shipped plugin loads ($(printf '%s\n' "$before" | wc -l))"
else
	not_ok "perun plugins list differs from the plugins shipped"
	diff <(echo "$shipped_sorted") <(echo "$before") | sed 's/^/# /' || true
	run_perun plugins list -v 2>&1 | sed 's/^/# /' || true
fi

# ---- remove one plugin package ----------------------------------------------
# perun-all depends on every plugin package: it goes first, as apt would
# remove it.
check "remove perun-all and $remove_pkg" remove perun-all "$remove_pkg"
after=$(plugins_list || true)
expected=$(comm -23 <(echo "$before") <(printf '%s\n' "$removed_plugins"))
lost=$(comm -23 <(echo "$before") <(echo "$after") | tr '\n' ' ')
if [ "$after" = "$expected" ]; then
	ok "perun plugins list lost exactly $remove_pkg's plugins: $lost"
else
	not_ok "perun plugins list after removing $remove_pkg"
	diff <(echo "$expected") <(echo "$after") | sed 's/^/# /' || true
fi
if smoke removed; then ok "smoke job still works without $remove_pkg"; else
	not_ok "smoke job without $remove_pkg"
	sed 's/^/# /' "$work/smoke-removed.log"
fi

# ---- libperun-dev: a plugin built out of tree ---------------------------------
# The view template that perun utils create writes, compiled with the flags
# of the installed perun-plugin.pc and put where per-user plugins go, loads
# and shows a profile.
sdk_plugin() {
	local d=$work/sdk flags
	rm -rf "$d"
	mkdir -p "$d" "$XDG_DATA_HOME/perun/plugins/view"
	sed 's/@name@/debsmoke/g; s/@NAME@/DEBSMOKE/g' \
		"$root/usr/share/perun/templates/in-tree/view/@name@.c" >"$d/debsmoke.c"
	flags=$(PKG_CONFIG_SYSROOT_DIR=$root \
		PKG_CONFIG_LIBDIR="$root/usr/lib/$multiarch/pkgconfig:/usr/lib/$multiarch/pkgconfig:/usr/share/pkgconfig" \
		pkg-config --cflags --libs perun-plugin)
	# shellcheck disable=SC2086
	${CC:-cc} -std=c11 -Wall -Werror -shared -fPIC -o "$XDG_DATA_HOME/perun/plugins/view/debsmoke.so" \
		"$d/debsmoke.c" $flags
	run_perun plugins list --format json |
		jq -e '.plugins[] | select(.name == "debsmoke" and .status == "ok")' >/dev/null
	(cd "$work/repo-removed" && run_perun show 0@i debsmoke | grep -q true)
}
check "libperun-dev: the view template builds with perun-plugin.pc, loads and shows" sdk_plugin

echo "1..$n"
[ "$failed" -eq 0 ]
