#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install the Debian 12 packages Perun needs to build, test and benchmark.
# Only what is missing is installed; runs apt-get through sudo when not root.
set -euo pipefail

packages=(
	build-essential autoconf automake libtool libltdl-dev pkg-config
	libjansson-dev libyaml-dev zlib1g-dev libdeflate-dev libisal-dev libzstd-dev nettle-dev libgit2-dev libgsl-dev
	libmicrohttpd-dev
	git python3 python3-jsonschema hyperfine jq groff-base clang-format openssh-server
	curl wrk
	chromium libjs-chart.js
	libprotobuf-c-dev protobuf-c-compiler
	libbpf-dev bpftool clang llvm libelf-dev libdw-dev libiberty-dev systemtap-sdt-dev
	bpftrace uftrace valgrind
	libunwind-dev heaptrack
	libpfm4-dev linux-perf
	debhelper dpkg-dev lintian
	libclang-dev libz3-dev
)

# From the npm registry, installed globally for the tests that read Perun's
# exports with another program's own reader (Node.js comes with npm; where
# neither is, Debian's nodejs and npm are installed first).
npm_packages=(speedscope@1.25.0 @paulirish/trace_engine@0.0.65)

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

command -v npm >/dev/null || packages+=(nodejs npm)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

root=$(npm root -g)
for p in "${npm_packages[@]}"; do
	want=${p##*@}
	have=$(node -p "require('$root/${p%@*}/package.json').version" 2>/dev/null || true)
	[ "$have" = "$want" ] && continue
	echo "installing from npm: $p"
	$sudo npm install -g --no-audit --no-fund "$p"
done
