#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Install the Debian packages the build and the tests need, if missing.
# Usage: scripts/deps.sh [extra-package...]
set -euo pipefail

# scdoc: the man pages are generated from docs/man/*.scd at build time.
packages=(cmake make gcc pkg-config libssl-dev libcmocka-dev openssl scdoc
    "$@")
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
