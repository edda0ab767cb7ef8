#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The FIPS provider with its self-tests deferred (OpenSSL 4.0's
# "fipsinstall -defer_tests": each known-answer test runs at the first use
# of its algorithm, the CTR-DRBG's when libcrypto creates the primary DRBG
# over our seed source): conf/rdrand-fips.cnf still seeds from RDRAND and
# fails closed the same way as with the tests run at load (test_fips.sh).
# Skips (77) on releases without the option (3.x: it is new in 4.0) and
# where there is no FIPS provider; fails in scripts/test.sh's private
# builds if the option or fips.so is missing.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/cli/fips.sh
. "$(dirname "$0")/fips.sh"

if ! openssl_at_least 4 0; then
    echo "SKIP: $("$OPENSSL_BIN" version) has no fipsinstall -defer_tests" \
        "(new in OpenSSL 4.0)"
    exit 77
fi
fips_setup deferred
check "fipsmodule.cnf defers the self-tests" \
    grep -qx 'defer-tests = 1' "$OUT/fipsmodule.cnf"
fips_fails_closed

# The first use of the module in a process that fails to seed: the
# deferred CTR-DRBG test runs (and passes) while libcrypto creates the
# primary DRBG, whose instantiation then fails on our seed, with our
# reason and nothing of the module's tests.
# shellcheck disable=SC2046
run $(fenv "$OUT/sim.cnf" "fail-from=1") -- "$OPENSSL_BIN" rand -hex 16
check "deferred, fail-from=1: no self-test failed" \
    stderr_lacks 'self.?test|SELF_TEST|error state'
check "deferred, fail-from=1: the failure is our seed's" \
    stderr_has ':rdrand-sim:[a-z_]+:RDRAND reported failure'

finish
