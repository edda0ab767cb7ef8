#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The FIPS provider seeded through RDRAND (OpenSSL 3.5+ with fips.so):
# conf/rdrand-fips.cnf as shipped (with the real module on the real CPU)
# and with the simulated-CPU module, and what the other orders do.
# Skips (77) where the OpenSSL under test has no FIPS provider, fails
# instead in scripts/test.sh's private 3.5+ builds (they are built with it).
# The same with the module's self-tests deferred (4.0): test_fips_defer.sh.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/cli/fips.sh
. "$(dirname "$0")/fips.sh"

fips_setup at-load
fips_fails_closed

# What happens otherwise: no random_provider (3.5's default is "fips"),
# and random_provider read after the providers were activated.
grep -v '^random_provider' "$OUT/sim.cnf" >"$OUT/sim-routed.cnf"
sed -e 's/^random = random_sect$/XX/' \
    -e 's/^providers = provider_sect$/providers = provider_sect\nrandom = random_sect/' \
    -e '/^XX$/d' "$OUT/sim.cnf" >"$OUT/sim-late.cnf"

# The DRBG is the FIPS provider's: without fips.so there is no
# CTR-DRBG with fips=yes and nothing to fall back to.
sed -e 's/^fips = fips_sect$//' "$OUT/sim.cnf" >"$OUT/nofips.cnf"
# shellcheck disable=SC2046
run $(fenv "$OUT/nofips.cnf" "") -- "$OPENSSL_BIN" rand -hex 16
check "sim without fips.so: no DRBG at all" exited_fail
check "sim without fips.so: CTR-DRBG fips=yes not found" \
    stderr_has 'CTR-DRBG.*fips=yes'

# Otherwise: RAND_bytes goes to the provider named "fips" and never
# reaches libcrypto's DRBGs: no seed request, a broken RDRAND unnoticed.
for variant in sim-routed sim-late; do
    seeds "$OUT/$variant.cnf" ""
    check "$variant: RAND_bytes made no seed request" line_is 1 0
    # shellcheck disable=SC2046
    run $(fenv "$OUT/$variant.cnf" "fail-from=1") -- "$OPENSSL_BIN" rand \
        -hex 16
    check "$variant fail-from=1: rand still succeeds (OS entropy)" exited_ok
done
# Even then, what first creates the seed context wins: genpkey's
# RAND_status() does, so the FIPS provider's own DRBG is ours.
# shellcheck disable=SC2046
run $(fenv "$OUT/sim-routed.cnf" "fail-from=1") -- "$OPENSSL_BIN" genpkey \
    -algorithm EC -pkeyopt ec_paramgen_curve:P-256
check "sim-routed fail-from=1: FIPS keygen still fails closed" exited_fail

# rdrand-check on the same files: the shipped one is live, with a warning
# about the FIPS provider's own DRBGs; without random_provider, with
# random after providers, and with random_provider naming a provider of
# the file, it is misconfigured, on the line to fix.
CHECK=$RDRAND_BUILD_DIR/rdrand-check
sed 's/^random_provider = .*/random_provider = base/' "$OUT/sim.cnf" \
    >"$OUT/sim-base.cnf"
# OpenSSL matches [random] keys ignoring case: so must the checker.
sed 's/^random_provider = .*/RANDOM_PROVIDER = base/' "$OUT/sim.cnf" \
    >"$OUT/sim-base-upper.cnf"
checker() { # checker CONF
    # shellcheck disable=SC2046
    run $(fenv "$1" "") -- "$CHECK" --here -c "$1" --provider rdrand-sim
}
checker "$OUT/sim.cnf"
check "rdrand-check: shipped file live" test "$status" -eq 0
check "rdrand-check: warns that the FIPS DRBGs need the seed context first" \
    stdout_has '^warning: .*fips: .*only if the application first calls RAND_status'
for row in "sim-routed|$(grep -n -m1 '^\[random_sect\]' "$OUT/sim-routed.cnf" | cut -d: -f1)|the fips provider is activated and no random_provider" \
    "sim-late|$(grep -n -m1 '^random = ' "$OUT/sim-late.cnf" | cut -d: -f1)|random comes after providers" \
    "sim-base|$(grep -n -m1 '^random_provider' "$OUT/sim-base.cnf" | cut -d: -f1)|random_provider = base names a provider of this file" \
    "sim-base-upper|$(grep -n -m1 '^RANDOM_PROVIDER' "$OUT/sim-base-upper.cnf" | cut -d: -f1)|random_provider = base names a provider of this file"; do
    IFS='|' read -r variant line why <<<"$row"
    checker "$OUT/$variant.cnf"
    check "rdrand-check $variant: exit 2" test "$status" -eq 2
    check "rdrand-check $variant: line $line, why" \
        stdout_has "^misconfigured: $OUT/$variant.cnf:$line: .*$why"
done

# The live draw takes RAND_bytes's path and says which it was: through
# libcrypto's DRBGs to the seed source with the shipped file; to the FIPS
# provider's own generator without random_provider, or with random after
# providers (fips claims RAND_bytes first), where the verdict, not a
# "reached" line, follows.
checker "$OUT/sim.cnf"
check "rdrand-check shipped: RAND_bytes's seeds reached the provider" \
    stdout_has '^live draw: RAND_bytes: [1-9][0-9]* seed requests? reached provider rdrand-sim, 0 failed$'
for variant in sim-routed sim-late; do
    checker "$OUT/$variant.cnf"
    check "rdrand-check $variant: the live line says RAND_bytes bypasses us" \
        stdout_has '^live draw: RAND_bytes: no seed request reached provider rdrand-sim: RAND_bytes goes to provider fips.s own generator, past this seed source$'
    check "rdrand-check $variant: no line says RAND_bytes reached us" \
        stdout_lacks 'reached provider rdrand-sim during RAND_bytes|^seed source: live'
    check "rdrand-check $variant: the verdict names the line to fix" \
        stdout_has "^verdict: 2 misconfigured, because $OUT/$variant.cnf:[0-9]+: "
    # shellcheck disable=SC2046
    run $(fenv "$OUT/$variant.cnf" "") -- "$CHECK" --here -c "$OUT/$variant.cnf" \
        --provider rdrand-sim --json
    check "rdrand-check $variant --json: RAND_bytes to fips, 0 seeds" \
        python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["draw"]
assert d["rand_bytes_to"] == "fips" and d["rand_bytes_seed_requests"] == 0, d
' "$OUT/stdout"
done

# The shipped file with rdrand.so on this machine's CPU.
run "OPENSSL_MODULES=$REAL_MODULES" "OPENSSL_CONF=/dev/null" -- \
    "$PROBE" -l rdrand-available
if [ "$(cat "$OUT/stdout")" = 1 ]; then
    run "OPENSSL_MODULES=$OUT/modules" "OPENSSL_CONF_INCLUDE=$OUT" \
        "OPENSSL_CONF=$SHIPPED" -- "$PROBE" -n 16 seed-requests
    check "real: conf/rdrand-fips.cnf seeds from rdrand.so" line_at_least 1 1
    run "OPENSSL_MODULES=$OUT/modules" "OPENSSL_CONF_INCLUDE=$OUT" \
        "OPENSSL_CONF=$SHIPPED" -- "$OPENSSL_BIN" rand -hex 16
    check "real: rand works" hex32
else
    echo "# real CPU has no RDRAND: shipped-module checks not run"
fi

finish
