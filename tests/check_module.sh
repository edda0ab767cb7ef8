#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shellcheck disable=SC2317 # the helpers below are called through check
# The shipped module: exports only OSSL_provider_init, carries no
# simulation and reads no environment variable.
set -uo pipefail
: "${RDRAND_BUILD_DIR:?}"
so=$RDRAND_BUILD_DIR/rdrand.so
sim=$RDRAND_BUILD_DIR/tests/rdrand-sim.so
# shellcheck source=tests/checks.sh
. "$(dirname "$0")/checks.sh"
exports_only_init() {
    [ "$(nm -D --defined-only "$1" | awk '$2 ~ /[TDBRW]/ {print $3}' |
        grep -v '^_' | sort | tr '\n' ' ')" = "OSSL_provider_init " ]
}
no_simulation() { ! strings "$1" | grep -q RDRAND_SIM; }
no_getenv() { ! nm -D --undefined-only "$1" | grep -qw -e getenv -e secure_getenv; }
bind_now() { readelf -d "$1" | grep -q -e BIND_NOW -e 'FLAGS.*NOW'; }
no_delete() { readelf -d "$1" | grep -q 'FLAGS_1.*NODELETE'; }

check "rdrand.so exists with no lib prefix" test -f "$so"
check "rdrand.so exports exactly OSSL_provider_init" exports_only_init "$so"
check "rdrand.so carries no simulation (no RDRAND_SIM)" no_simulation "$so"
check "rdrand.so imports no getenv" no_getenv "$so"
check "rdrand.so is linked with -z now" bind_now "$so"
check "rdrand.so stays mapped after dlclose (-z nodelete)" no_delete "$so"
check "rdrand-sim.so exports exactly OSSL_provider_init" \
    exports_only_init "$sim"
finish
