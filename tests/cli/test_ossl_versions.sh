#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shellcheck disable=SC2317 # the helpers below are called through check
# openssl.cnf behaviour that differs between OpenSSL releases, checked on
# the release under test (scripts/test.sh runs the system's, 3.5 and 4.0;
# 3.6 on demand): the binary, the library and our modules are that release's
# (libcrypto.so.3 for 3.x, libcrypto.so.4 for 4.x), "activate" is a
# boolean from 3.3, random_provider exists from 3.5.  The FIPS provider:
# test_fips.sh; a seed source that cannot be fetched: test_check.sh.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# --- The openssl binary and the libcrypto are the release built against.
run -- "$OPENSSL_BIN" version
check "openssl is $RDRAND_OPENSSL_VERSION (pkg-config's libcrypto)" \
    stdout_has "^OpenSSL ${RDRAND_OPENSSL_VERSION//./\\.} "
# "(Library: ...)" appears when the library differs (Debian: always).
library_matches() {
    ! grep -q 'Library:' "$OUT/stdout" \
        || stdout_has "Library: OpenSSL ${RDRAND_OPENSSL_VERSION//./\\.} "
}
check "openssl runs with libcrypto $RDRAND_OPENSSL_VERSION" library_matches
if [ -n "${RDRAND_EXPECT_OPENSSL_VERSION:-}" ]; then
    check "the version test.sh built ($RDRAND_EXPECT_OPENSSL_VERSION)" \
        test "$RDRAND_OPENSSL_VERSION" = "$RDRAND_EXPECT_OPENSSL_VERSION"
fi
# The soname's number is the major version (3.x: libcrypto.so.3; 4.0
# bumped it, and every symbol's version is OPENSSL_4.0.0): a module built
# against one cannot load into the other's processes.
soname=libcrypto.so.${RDRAND_OPENSSL_VERSION%%.*}
for program in "$RDRAND_BUILD_DIR/rdrand-check" "$PROBE"; do
    run -- ldd "$program"
    # Fixed strings: a directory's name may hold regex characters.
    check "${program##*/} loads $soname from $LD_LIBRARY_PATH" \
        grep -qF -- "$soname => $LD_LIBRARY_PATH/$soname " "$OUT/stdout"
done
for module in "$REAL_MODULES/rdrand.so" "$SIM_MODULES/rdrand-sim.so"; do
    run -- readelf -d "$module"
    check "${module##*/} needs $soname, and no other libcrypto" \
        test "$(grep -o 'Shared library: \[libcrypto[^]]*\]' "$OUT/stdout")" \
        = "Shared library: [$soname]"
done

# --- activate: any value activated the provider up to 3.2 (even 0);
# 3.3+ parse a boolean.  Our files write 1.
for value in 0 no yes; do
    sed "/^\[rdrand_sim_sect\]/,/^\[/ s/^activate = 1$/activate = $value/" \
        "$CONF/rdrand-sim.cnf" >"$OUT/activate.cnf"
    run "OPENSSL_MODULES=$SIM_MODULES" "OPENSSL_CONF=$OUT/activate.cnf" -- \
        "$OPENSSL_BIN" list -providers
    if [ "$value" = yes ] || ! openssl_at_least 3 3; then
        check "activate = $value: rdrand-sim active" listed rdrand-sim active
    else
        check "activate = $value: rdrand-sim not loaded (3.3+)" \
            stdout_lacks 'rdrand-sim'
    fi
done

# --- random_provider: routes RAND_bytes to a provider (3.5+).
with_random_provider() { # NAME: conf/rdrand-sim.cnf plus random_provider
    sed "s/^seed_properties.*/&\nrandom_provider = $1/" \
        "$CONF/rdrand-sim.cnf" >"$OUT/rp.cnf"
}
with_random_provider rdrand-sim
# shellcheck disable=SC2046
run $(sim_env "") OPENSSL_CONF="$OUT/rp.cnf" -- "$OPENSSL_BIN" rand -hex 16
if openssl_at_least 3 5; then
    # A loaded provider without a random_bytes function (ours, default,
    # base): every RAND_bytes fails, and openssl rand says nothing.
    check "random_provider = rdrand-sim: rand fails (3.5+)" exited_fail
    check "random_provider = rdrand-sim: silently" stdout_lacks '.'
    for name in default libcrypto-drbgs; do
        with_random_provider "$name"
        # shellcheck disable=SC2046
        run $(sim_env "") OPENSSL_CONF="$OUT/rp.cnf" -- "$OPENSSL_BIN" rand \
            -hex 16
        if [ "$name" = default ]; then
            check "random_provider = default: rand fails" exited_fail
        else
            # A name no provider has: libcrypto's DRBGs, our seed.
            check "random_provider = $name (not loaded): rand works" hex32
            # shellcheck disable=SC2046
            run $(sim_env "fail-from=1") OPENSSL_CONF="$OUT/rp.cnf" -- \
                "$OPENSSL_BIN" rand -hex 16
            check "random_provider = $name: still seeded by us" exited_fail
        fi
    done
else
    # Before 3.5 the key is unknown: config_diagnostics = 1 (our files)
    # makes that a startup failure.
    check "random_provider before 3.5: openssl refuses the config" \
        exited_fail
    check "random_provider before 3.5: says which key" \
        stderr_has 'unknown name in random section.*random_provider'
fi

finish
