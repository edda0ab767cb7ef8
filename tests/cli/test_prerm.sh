#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shellcheck disable=SC2317 # the helpers below are called through check
# The package's prerm (cmake/debian/prerm) run as dpkg runs it, by
# /bin/sh (dash on Debian), on configurations given through OPENSSL_CONF:
# it must warn for every file that makes OpenSSL load rdrand.so, stay
# quiet for one that does not, and never fail the removal.
# tests/check_install.sh and tests/fresh run it through dpkg -r.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/checks.sh
. "$top/tests/checks.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

prerm() { # FILE ACTION: the output in $work/out, the status returned
    OPENSSL_CONF=$1 sh "$top/cmake/debian/prerm" "$2" >"$work/out" 2>&1
}
warns_for() { # FILE LINE: warned, naming FILE:LINE and --disable FILE
    prerm "$1" remove &&
        grep -q "^WARNING: rdrand-provider is being removed" "$work/out" &&
        grep -qxF "    $1:$2" "$work/out" &&
        grep -qxF "    rdrand-check --disable $1" "$work/out"
}
quiet_for() {
    prerm "$1" remove && ! grep -q WARNING "$work/out"
}

printf '[p]\nrdrand = rdrand_sect\n[rdrand_sect]\nmodule = rdrand.so\nactivate = 1\n' >"$work/enabled.cnf"
check "module = rdrand.so: warned" warns_for "$work/enabled.cnf" "4:module = rdrand.so"
printf '[p]\nrdrand = rdrand_sect\n[rdrand_sect]\n# module = rdrand.so\nactivate = 1\n' >"$work/name only.cnf"
# No module line: OpenSSL loads the provider's name, rdrand.so.
check "a provider entry named rdrand without module (a path with a blank): warned" \
    warns_for "$work/name only.cnf" "2:rdrand = rdrand_sect"
printf '[s]\nmodule=/usr/lib/x86_64-linux-gnu/ossl-modules/rdrand.so\r\n' >"$work/crlf.cnf"
check "module=/abs/rdrand.so with CRLF: warned, the line without its CR" \
    warns_for "$work/crlf.cnf" "2:module=/usr/lib/x86_64-linux-gnu/ossl-modules/rdrand.so"
printf '[s]\nrdrand_sect::module = rdrand.so\n' >"$work/colons.cnf"
check "section::module = rdrand.so: warned" warns_for "$work/colons.cnf" "2:rdrand_sect::module = rdrand.so"
printf '[q]\np::rdrand = r\n' >"$work/colons-entry.cnf"
check "section::rdrand = ... (an entry written from another section): warned" \
    warns_for "$work/colons-entry.cnf" "2:p::rdrand = r"
printf '[f]\nx.module = rdrand.so\n' >"$work/dotted.cnf"
check "x.module = rdrand.so (OpenSSL skips the dot): warned" \
    warns_for "$work/dotted.cnf" "2:x.module = rdrand.so"
printf '[f]\na.b.module = rdrand.so\nmodules = rdrand_x\nx = 1 # module = rdrand.so\n' >"$work/not-module.cnf"
check "a.b.module, modules = rdrand_x, a comment after a value: quiet" \
    quiet_for "$work/not-module.cnf"
printf '[s]\n# module = rdrand.so\n#rdrand = rdrand_sect\nother = 1\n' >"$work/commented.cnf"
check "only commented lines: quiet" quiet_for "$work/commented.cnf"
upgrade_quiet() { prerm "$work/enabled.cnf" upgrade && ! grep -q WARNING "$work/out"; }
check "upgrade: quiet, exit 0" upgrade_quiet
check "a file it cannot read: exit 0" prerm "$work/missing.cnf" remove
finish
