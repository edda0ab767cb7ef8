#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Health-test failures as an operator meets them: openssl rand fails
# closed with the reason on stderr and one warning line, and rdrand-stat
# shows health-state and health-failures (simulated CPU, RDRAND_SIM).
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# The reason strings of provider/errors.c, as extended regular expressions.
UNUSABLE="the CPU.s random number generator is not usable"
ONES="RDRAND returned an all-ones word: $UNUSABLE"
ZERO="RDRAND returned an all-zero word: $UNUSABLE"
REPEAT='RDRAND returned the same 64-bit word twice in a row'
REPEAT="$REPEAT \(repetition count test\): $UNUSABLE"

# Used through check (shellcheck cannot see the indirect calls).
# shellcheck disable=SC2317
line_matches() { sed -n "$1p" "$OUT/stdout" | grep -qE -- "$2"; } # N ERE
# shellcheck disable=SC2317
warned_once() { [ "$(grep -c '^rdrand-provider: ' "$OUT/stderr")" -eq 1 ]; }
# shellcheck disable=SC2317
raised_by_us() { # an error line from our provider, with our detail
    stderr_has ":error:[0-9A-F]+:rdrand-sim:.*:seed request of [0-9]+ bytes failed closed: nothing was delivered$"
}

# fails_closed NAME SPEC REASON: openssl rand on this simulated CPU
fails_closed() {
    local name=$1 spec=$2 reason=$3
    # shellcheck disable=SC2046
    run $(sim_env "$spec") -- "$OPENSSL_BIN" rand -hex 16
    check "$name: openssl rand exits non-zero" exited_fail
    check "$name: no bytes printed" stdout_lacks '[0-9a-f]{8}'
    check "$name: the reason on stderr" stderr_has "$reason"
    check "$name: raised by rdrand-sim, failed closed" raised_by_us
    check "$name: one warning line (warn = stderr)" warned_once
    check "$name: the warning names the reason" \
        stderr_has "^rdrand-provider: $reason"
}

# Constant outputs: the init self-test latches, the request's self-test
# finds the same fault again.
fails_closed "stuck ~0" value=ffffffffffffffff "$ONES"
fails_closed "stuck 0" value=0 "$ZERO"

# Eight good words (the init self-test passes), then each word twice: the
# seed request's continuous test trips on its second word.
{
    printf '%s\n' e220a8397b1dcdaf 6e789e6aa1b965f4 06c45d188009454f \
        f88bb8a8724c81ec d2acd4a48d8ff5c2 2f6d7b0df5a3b1b3 \
        a0d8c4c5f4a3e7b1 5b1f8a2c9d3e6f70
    for w in c3a5c85c97cb3127 b492b66fbe98f273 9ae16a3b2f90404f \
        cbf29ce484222325; do
        printf '%s\n%s\n' "$w" "$w"
    done
} >"$OUT/twice.words"
fails_closed "each word twice" "words=$OUT/twice.words" "$REPEAT"

# The same CPU seen by rdrand-stat with nothing drawn: the init
# self-test passed on the eight good words.
# shellcheck disable=SC2046
run $(sim_env "words=$OUT/twice.words") -- "$STAT" -p rdrand-sim \
    health-state health-failures status rdrand-words
check "rdrand-stat, words file: exits 0" exited_ok
check "rdrand-stat, words file: health-state ok" line_is 1 ok
check "rdrand-stat, words file: health-failures 0" line_is 2 0
check "rdrand-stat, words file: status 1" line_is 3 1
check "rdrand-stat, words file: 8 self-test words" line_is 4 8

# A self-test failure at load: the provider is loaded but latched, and
# rdrand-stat shows why (the one failure so far is the init self-test).
for case in "ffffffffffffffff|$ONES" "0|$ZERO" "0123456789abcdef|$REPEAT"; do
    value=${case%%|*}
    reason=${case#*|}
    # shellcheck disable=SC2046
    run $(sim_env "value=$value") -- "$STAT" -p rdrand-sim \
        health-state health-failures status rdrand-words rdrand-failures
    check "rdrand-stat, value=$value: exits 0" exited_ok
    check "rdrand-stat, value=$value: health-state is the reason" \
        line_matches 1 "^$reason"
    check "rdrand-stat, value=$value: health-failures 1" line_is 2 1
    check "rdrand-stat, value=$value: status 0" line_is 3 0
    check "rdrand-stat, value=$value: 8 words drawn" line_is 4 8
    check "rdrand-stat, value=$value: no CF=0" line_is 5 0
    check "rdrand-stat, value=$value: warned once at load" warned_once
done

# CF=0 in the init self-test is not a health failure.
# shellcheck disable=SC2046
run $(sim_env "fail-at=3") -- "$STAT" -p rdrand-sim \
    health-state health-failures status rdrand-words rdrand-failures
check "rdrand-stat, fail-at=3: exits 0" exited_ok
check "rdrand-stat, fail-at=3: health-state is the CF=0 reason" \
    line_matches 1 '^RDRAND reported failure \(CF=0\)'
check "rdrand-stat, fail-at=3: health-failures 0" line_is 2 0
check "rdrand-stat, fail-at=3: status 0" line_is 3 0
check "rdrand-stat, fail-at=3: stopped at word 3" line_is 4 3
check "rdrand-stat, fail-at=3: one CF=0" line_is 5 1

# Drawing through a latched source: rdrand-stat fails with the reason.
# shellcheck disable=SC2046
run $(sim_env "value=0") -- "$STAT" -p rdrand-sim -n 16 health-state
check "rdrand-stat -n 16, stuck 0: exits 1" exited_fail
check "rdrand-stat -n 16, stuck 0: the reason on stderr" stderr_has "$ZERO"
finish
