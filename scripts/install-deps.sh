#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install the Debian 12 packages Perun needs to build, test and benchmark.
# Only what is missing is installed; runs apt-get through sudo when not root.
set -euo pipefail

packages=(
	build-essential autoconf automake libtool libltdl-dev pkg-config
	libjansson-dev libyaml-dev zlib1g-dev nettle-dev libgit2-dev libgsl-dev
	git python3 python3-jsonschema hyperfine jq groff-base clang-format
	chromium libjs-chart.js
	libprotobuf-c-dev protobuf-c-compiler
	libbpf-dev bpftool clang llvm libelf-dev libdw-dev libiberty-dev systemtap-sdt-dev
	bpftrace uftrace
	libunwind-dev heaptrack
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
