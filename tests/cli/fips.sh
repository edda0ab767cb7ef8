# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Shared by test_fips.sh and test_fips_defer.sh (after lib.sh): the FIPS
# provider of the OpenSSL under test, with fips.so, rdrand.so and
# rdrand-sim.so in one modules directory ($OUT/modules), a module config
# from fipsinstall against that fips.so ($OUT/fipsmodule.cnf), and the
# shipped conf/rdrand-fips.cnf on the simulated-CPU module ($OUT/sim.cnf).
# Skips (77) where that OpenSSL has no FIPS provider, fails instead in
# scripts/test.sh's private 3.5+ builds (they are built with it).

# SHIPPED: the file under test; fenv CONF SIM: the environment for it.
# shellcheck disable=SC2034 # used by the scripts that source this file
SHIPPED=$CONF/rdrand-fips.cnf
fenv() {
    echo "OPENSSL_MODULES=$OUT/modules" "OPENSSL_CONF_INCLUDE=$OUT" \
        "OPENSSL_CONF=$1" "RDRAND_SIM=$2"
}
seeds() { # seeds CONF SIM: rdrand-sim's seed requests after RAND_bytes
    # shellcheck disable=SC2046
    run $(fenv "$1" "$2") -- "$PROBE" -p rdrand-sim -n 16 seed-requests
}

# fips_setup at-load|deferred: all of the above, the module's self-tests
# run when it loads (fipsinstall's default) or deferred to each
# algorithm's first use (-defer_tests, 4.0); or exit 77/1.
fips_setup() {
    local options=()
    [ "$1" = deferred ] && options=(-defer_tests)
    modulesdir=$("$OPENSSL_BIN" version -m |
        sed -n 's/^MODULESDIR: "\(.*\)"$/\1/p')
    if ! openssl_at_least 3 5 || [ ! -f "$modulesdir/fips.so" ]; then
        # scripts/test.sh's private 3.5+ builds have one: missing fails.
        if openssl_at_least 3 5 \
            && [ -n "${RDRAND_EXPECT_OPENSSL_VERSION:-}" ]; then
            echo "FAIL: OpenSSL $RDRAND_EXPECT_OPENSSL_VERSION built by" \
                "scripts/test.sh has no $modulesdir/fips.so"
            exit 1
        fi
        echo "SKIP: $("$OPENSSL_BIN" version) has no FIPS provider to test"
        exit 77
    fi
    mkdir "$OUT/modules"
    ln -s "$modulesdir/fips.so" "$REAL_MODULES/rdrand.so" \
        "$SIM_MODULES/rdrand-sim.so" "$OUT/modules/"
    run -- "$OPENSSL_BIN" fipsinstall -module "$OUT/modules/fips.so" \
        -out "$OUT/fipsmodule.cnf" "${options[@]}"
    check "fipsinstall ${options[*]} against $modulesdir/fips.so" exited_ok

    sed -e 's/^rdrand = rdrand_sect/rdrand-sim = rdrand_sim_sect/' \
        -e 's/^\[rdrand_sect\]/[rdrand_sim_sect]/' \
        -e 's/^module = rdrand\.so/module = rdrand-sim.so/' \
        -e 's/^warn = syslog/warn = stderr/' \
        -e 's/provider=rdrand,-fips/provider=rdrand-sim,-fips/' \
        -e "s|^\.include fipsmodule\.cnf\$|.include $OUT/fipsmodule.cnf|" \
        "$SHIPPED" >"$OUT/sim.cnf"
    # The include made absolute, as a service needs it (rdrand-check
    # reports one that OPENSSL_CONF_INCLUDE resolves).
    check "sim variant differs only in the module and the include's path" \
        test "$(diff "$SHIPPED" "$OUT/sim.cnf" | grep -c '^>')" -eq 6
}

# fips_fails_closed: with conf/rdrand-fips.cnf on the simulated CPU,
# seeding works, and a broken RDRAND fails openssl rand and a FIPS key
# generation (genpkey calls RAND_status() first, so the FIPS provider's
# DRBGs take their entropy from libcrypto's seed context, i.e. from us).
# A failed FIPS key generation puts the whole FIPS module into its error
# state on 3.x (any key generation failure does), not on 4.0, which
# fails that operation only.
fips_fails_closed() {
    # shellcheck disable=SC2046
    run $(fenv "$OUT/sim.cnf" "") -- "$OPENSSL_BIN" list -providers
    check "sim: fips provider active" listed fips active
    check "sim: base provider active" listed base active
    check "sim: rdrand-sim active" listed rdrand-sim active
    check "sim: no default provider" stdout_lacks '^  default$'

    # shellcheck disable=SC2046
    run $(fenv "$OUT/sim.cnf" "") -- "$OPENSSL_BIN" rand -hex 16
    check "sim: rand works" exited_ok
    check "sim: 16 bytes" hex32
    seeds "$OUT/sim.cnf" ""
    check "sim: RAND_bytes made seed requests" line_at_least 1 1

    # shellcheck disable=SC2046
    run $(fenv "$OUT/sim.cnf" "fail-from=1") -- "$OPENSSL_BIN" rand -hex 16
    check "sim fail-from=1: rand fails" exited_fail
    check "sim fail-from=1: our reason" stderr_has 'RDRAND reported failure'
    check "sim fail-from=1: no bytes" stdout_lacks '[0-9a-f]{8}'
    # shellcheck disable=SC2046
    run $(fenv "$OUT/sim.cnf" "fail-from=1") -- "$OPENSSL_BIN" genpkey \
        -algorithm EC -pkeyopt ec_paramgen_curve:P-256
    check "sim fail-from=1: FIPS keygen fails" exited_fail
    check "sim fail-from=1: because of our seed" \
        stderr_has 'RDRAND reported failure'
    check "sim fail-from=1: no key" stdout_lacks 'PRIVATE KEY'
    if openssl_at_least 4 0; then
        check "sim fail-from=1: the FIPS module stays out of its error state (4.0)" \
            stderr_lacks 'fips module entering error state'
    else
        check "sim fail-from=1: FIPS module enters its error state (3.x)" \
            stderr_has 'fips module entering error state'
    fi
    # shellcheck disable=SC2046
    run $(fenv "$OUT/sim.cnf" "") -- "$OPENSSL_BIN" genpkey \
        -algorithm EC -pkeyopt ec_paramgen_curve:P-256
    check "sim: FIPS keygen works" stdout_has 'BEGIN PRIVATE KEY'
}
