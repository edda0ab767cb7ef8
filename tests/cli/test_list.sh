#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# openssl list shows the algorithm and the provider's parameters.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

for module in real sim; do
    if [ $module = real ]; then
        envs=("OPENSSL_MODULES=$REAL_MODULES" "OPENSSL_CONF=$CONF/rdrand.cnf")
        name=rdrand
    else
        envs=("OPENSSL_MODULES=$SIM_MODULES" "OPENSSL_CONF=$CONF/rdrand-sim.cnf")
        name=rdrand-sim
    fi
    run "${envs[@]}" -- "$OPENSSL_BIN" list -random-generators
    check "$module: list -random-generators exits 0" exited_ok
    check "$module: shows RDRAND @ $name" stdout_has "RDRAND @ $name\$"

    run "${envs[@]}" -- "$OPENSSL_BIN" list -providers -verbose
    check "$module: list -providers -verbose exits 0" exited_ok
    check "$module: provider listed" stdout_has "^  $name\$"
    check "$module: name" stdout_has 'name: rdrand-provider: RDRAND seed source'
    check "$module: version" stdout_has 'version: [0-9]+\.[0-9]+\.[0-9]+'
    check "$module: build info" stdout_has 'build info: RDRAND seed source'
    for p in rdrand-words rdrand-failures seed-requests seed-failures \
        seed-bytes rdrand-available; do
        check "$module: gettable parameter $p" stdout_has "^ +$p: "
    done
done
finish
