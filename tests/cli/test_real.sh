#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The shipped rdrand.so on this machine's real CPU through the real
# openssl binary and conf/ files.  Exits 77 (a skip for ctest, never a
# pass) where CPUID reports no RDRAND.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
require_real_rdrand

# --- openssl rand: via conf/rdrand.cnf and via -provider ---
run "OPENSSL_MODULES=$REAL_MODULES" "OPENSSL_CONF=$CONF/rdrand.cnf" -- \
    "$OPENSSL_BIN" rand -hex 32
check "real: rand via conf/rdrand.cnf" exited_ok
check "real: 32 bytes of hex" stdout_has '^[0-9a-f]{64}$'
run "OPENSSL_MODULES=$REAL_MODULES" "OPENSSL_CONF=$CONF/seed-only.cnf" \
    -- "$OPENSSL_BIN" rand -provider rdrand -provider default -hex 16
check "real: rand via -provider" exited_ok
run "OPENSSL_MODULES=$REAL_MODULES" "OPENSSL_CONF=$CONF/rdrand.cnf" -- \
    "$PROBE" -n 32 -r seed-requests rdrand-failures
check "real: the seed source was used (seed-requests >= 2)" \
    line_at_least 1 2
check "real: no RDRAND failures" line_is 2 0

# --- rdrand-check: the correct conf/rdrand.cnf proves RDRAND is live ---
for conf in rdrand.cnf rdrand-coco.cnf; do
    run "OPENSSL_MODULES=$REAL_MODULES" "OPENSSL_CONF=$CONF/$conf" -- \
        "$RDRAND_BUILD_DIR/rdrand-check" --here
    check "real: rdrand-check with $conf (OPENSSL_CONF) exits 0" exited_ok
    check "real: rdrand-check with $conf: live" \
        stdout_has '^seed source: live: '
done

# --- conf/rdrand-reduce512.cnf: seed-grade blocks (docs/conditioning.md) ---
red=("OPENSSL_MODULES=$REAL_MODULES" "OPENSSL_CONF=$CONF/rdrand-reduce512.cnf")
if grep -m1 '^flags' /proc/cpuinfo | grep -qw aes; then
    run "${red[@]}" -- "$OPENSSL_BIN" rand -hex 32
    check "real, reduce512: openssl rand exits 0" exited_ok
    check "real, reduce512: 32 bytes of hex" stdout_has '^[0-9a-f]{64}$'
    run "${red[@]}" -- "$PROBE" -n 8 -r conditioning conditioned-blocks \
        rdrand-words seed-bytes rdrand-failures
    check "real, reduce512: conditioning = reduce512" line_is 1 reduce512
    # Seeds of 32 and 48 bytes: whole blocks, one per 16 bytes delivered.
    check "real, reduce512: conditioned-blocks = seed-bytes / 16" \
        test "$(sed -n 2p "$OUT/stdout")" -eq $(($(sed -n 4p "$OUT/stdout") / 16))
    # 1024 words a block, the self-test's 64 and the key's 2 at load, and
    # one APT reference per 511 words on the way: nothing else drawn.
    # shellcheck disable=SC2317 # called through check
    words_ok() {
        local blocks words refs
        blocks=$(sed -n 2p "$OUT/stdout") words=$(sed -n 3p "$OUT/stdout")
        refs=$((words - 66 - 1024 * blocks))
        echo "reduce512: $blocks blocks, $words words, $refs references"
        [ "$blocks" -ge 2 ] && [ "$refs" -ge 1 ] &&
            [ "$refs" -le $(((1024 * blocks + 66) / 511 + 1)) ]
    }
    check "real, reduce512: rdrand-words = 1024 per block + load + references" \
        words_ok
    check "real, reduce512: no RDRAND failures" line_is 5 0
else
    run "${red[@]}" -- "$OPENSSL_BIN" rand -hex 32
    check "real, reduce512 without AES-NI: openssl rand fails" exited_fail
    check "real, reduce512 without AES-NI: says so" stderr_has 'AES-NI'
fi

# --- conf/rdrand-mix.cnf: the OS's entropy in every seed (docs/mix.md) ---
mix=("OPENSSL_MODULES=$REAL_MODULES" "OPENSSL_CONF=$CONF/rdrand-mix.cnf")
run "${mix[@]}" -- "$OPENSSL_BIN" rand -hex 32
check "real, mix = os: openssl rand exits 0" exited_ok
check "real, mix = os: 32 bytes of hex" stdout_has '^[0-9a-f]{64}$'
run "${mix[@]}" -- "$PROBE" -n 8 -r mix os-bytes os-failures seed-bytes \
    rdrand-failures
check "real, mix = os: mix = os" line_is 1 os
# 64 OS bytes per 48-byte seed, 32 per 32-byte one: 4 OS bytes per 3
# seed bytes at most, and never none.
# shellcheck disable=SC2317 # called through check
os_bytes_ok() {
    local os seed
    os=$(sed -n 2p "$OUT/stdout") seed=$(sed -n 4p "$OUT/stdout")
    echo "mix = os: $os OS bytes for $seed seed bytes"
    [ "$seed" -ge 32 ] && [ "$os" -ge "$seed" ] && [ "$os" -le $((seed * 2)) ]
}
check "real, mix = os: os-bytes between seed-bytes and twice it" os_bytes_ok
check "real, mix = os: no OS read failed" line_is 3 0
check "real, mix = os: no RDRAND failures" line_is 5 0
run "${mix[@]}" -- "$RDRAND_BUILD_DIR/rdrand-check" --here
check "real, mix = os: rdrand-check exits 0" exited_ok
check "real, mix = os: rdrand-check shows it" stdout_has '^  mix = os$'

# --- openssl speed rand ---
run "OPENSSL_MODULES=$REAL_MODULES" "OPENSSL_CONF=$CONF/rdrand.cnf" -- \
    "$OPENSSL_BIN" speed -seconds 1 rand
check "real: speed -seconds 1 rand exits 0" exited_ok
check "real: prints a rand row" stdout_has '^rand '

# --- conf/rdrand-coco.cnf on this machine ---
# What this machine is, from the kernel files a shell can see (CPUID-only
# guests, such as Azure's, are not visible here: see docs/coco.md).
kernel_says_coco() {
    local f
    for f in /dev/tdx_guest /dev/sev-guest /sys/devices/platform/sev-guest \
        /sys/kernel/config/tsm/report /sys/devices/system/cpu/sev; do
        [ -e "$f" ] && return 0
    done
    grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | grep -w tdx_guest >/dev/null
}
real=("OPENSSL_MODULES=$REAL_MODULES" "OPENSSL_CONF=$CONF/rdrand-coco.cnf")
run "${real[@]}" -- "$OPENSSL_BIN" rand -hex 16
check "real, rdrand-coco.cnf: openssl rand exits 0" exited_ok
check "real, rdrand-coco.cnf: and prints bytes" hex32
run "${real[@]}" -- "$OPENSSL_BIN" list -providers
check "real, rdrand-coco.cnf: listed, status: active" \
    listed rdrand active
run "${real[@]}" -- "$PROBE" -n 32 -r coco-platform coco-seed-bits \
    seed-failures seed-requests
check "real, rdrand-coco.cnf: rdrand-params exits 0" exited_ok
if kernel_says_coco; then
    echo "NOTE: the kernel says this is a confidential guest"
    check "real CoCo guest: coco-platform names a platform" \
        stdout_has '^(sev|sev-es|sev-snp|tdx|hyperv-snp|hyperv-tdx|unknown-cvm)$'
    check "real CoCo guest: 256 bits checked at load" line_is 2 256
else
    check "real non-CoCo machine: coco-platform = none" line_is 1 none
    check "real non-CoCo machine: coco-seed-bits = 0" line_is 2 0
fi
check "real, rdrand-coco.cnf: no seed failures" line_is 3 0
check "real, rdrand-coco.cnf: seeds from RDRAND (seed-requests >= 2)" \
    line_at_least 4 2
finish
