#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Install the Debian packages the build and the tests need, if missing.
# Usage: scripts/deps.sh [extra-package...]
set -euo pipefail

# What the README's two commands need on a minimal Debian (debootstrap
# --variant=minbase; tests/fresh/fresh-debian.sh proves it):
#   libc6-dev: crt1.o and the C headers, only a Recommends of gcc;
#   scdoc: the man pages are generated from docs/man/*.scd at build time;
#   file, dpkg-dev: the package build (cpack -G DEB) stops without file,
#     and without dpkg-shlibdeps (dpkg-dev) builds a .deb with no Depends.
packages=(cmake make gcc libc6-dev pkg-config libssl-dev libcmocka-dev openssl
    scdoc file dpkg-dev "$@")
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'ok installed' >/dev/null \
        || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing ${missing[*]}; run as root or install them" >&2
    exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Wait for a dpkg/apt run of someone else (another build, unattended
# upgrades) instead of failing on its lock.
lock=(-o DPkg::Lock::Timeout=600)
apt-get "${lock[@]}" update -qq
apt-get "${lock[@]}" install -y -qq --no-install-recommends "${missing[@]}" \
    >/dev/null
