#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# openssl rand with the provider as seed source: via openssl.cnf, via
# -provider, and the fail-closed path that proves the seed was used.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# --- the simulated CPU (runs everywhere) ---
# shellcheck disable=SC2046
run $(sim_env "") -- "$OPENSSL_BIN" rand -hex 32
check "sim: rand via conf/rdrand-sim.cnf" exited_ok
check "sim: 32 bytes of hex" stdout_has '^[0-9a-f]{64}$'

# The seed source is really used: a broken simulated RDRAND makes
# openssl rand fail with our reason (if the seed source were never
# fetched, OpenSSL 3.0-3.6 would seed from the OS silently, and 4.0 fail
# with "unable to fetch drbg", not our reason).
# shellcheck disable=SC2046
run $(sim_env "fail-from=1") -- "$OPENSSL_BIN" rand -hex 32
check "sim fail-from=1: rand exits non-zero" exited_fail
check "sim fail-from=1: our reason on stderr" \
    stderr_has 'RDRAND reported failure \(CF=0\)'
check "sim fail-from=1: no bytes printed" stdout_lacks '[0-9a-f]{8}'
check "sim fail-from=1: one-shot warning (warn = stderr)" \
    stderr_has '^rdrand-provider: RDRAND'

# A failure inside the first seed request (after the 64-word self-test).
# shellcheck disable=SC2046
run $(sim_env "fail-at=65") -- "$OPENSSL_BIN" rand -hex 16
check "sim fail-at=65: rand exits non-zero" exited_fail
check "sim fail-at=65: our reason" stderr_has 'RDRAND reported failure'

# shellcheck disable=SC2046
run $(sim_env "rdrand=absent") -- "$OPENSSL_BIN" rand -hex 16
check "sim rdrand=absent: rand fails closed" exited_fail
check "sim rdrand=absent: says RDRAND is missing" \
    stderr_has 'RDRAND is not available on this CPU'

# shellcheck disable=SC2046
run $(sim_env "value=ffffffffffffffff") -- "$OPENSSL_BIN" rand -hex 16
check "sim stuck ~0: rand fails closed" exited_fail

# -provider on the command line; the config only names the seed.
run "OPENSSL_MODULES=$SIM_MODULES" "OPENSSL_CONF=$CONF/seed-only.cnf" \
    "RDRAND_SIM=" -- "$OPENSSL_BIN" rand -provider rdrand-sim \
    -provider default -hex 16
check "sim: rand via -provider" exited_ok
run "OPENSSL_MODULES=$SIM_MODULES" "OPENSSL_CONF=$CONF/seed-only.cnf" \
    "RDRAND_SIM=fail-from=1" -- "$OPENSSL_BIN" rand -provider rdrand-sim \
    -provider default -hex 16
check "sim: -provider path really seeds from us (fails when broken)" \
    exited_fail

finish
