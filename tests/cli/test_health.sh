#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Health-test failures as an operator meets them: openssl rand fails
# closed with the reason on stderr and one warning line of each kind (the
# fault's; the permanent verdict's when a recovery trips again), and rdrand-params
# shows health-state and health-failures (simulated CPU, RDRAND_SIM).
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# The reason strings of provider/errors.c, as extended regular expressions.
UNUSABLE="the CPU.s random number generator is not usable"
ONES="RDRAND returned an all-ones word: $UNUSABLE"
ZERO="RDRAND returned an all-zero word: $UNUSABLE"
REPEAT='RDRAND returned the same 64-bit word twice in a row'
REPEAT="$REPEAT \(repetition count test\): $UNUSABLE"
CYCLE="RDRAND returned a word equal to one of the recent words drawn in"
CYCLE="$CYCLE this process or a process forked from the same one"
CYCLE="$CYCLE \(recent-words test, at least the last 4096\): its output repeats; $UNUSABLE"
STUCK_BIT="RDRAND returned 64 words in which one bit position never changed"
STUCK_BIT="$STUCK_BIT \(stuck-bit test\): $UNUSABLE"

# Used through check (shellcheck cannot see the indirect calls).
# shellcheck disable=SC2317
line_matches() { sed -n "$1p" "$OUT/stdout" | grep -E -- "$2" >/dev/null; } # N ERE
# shellcheck disable=SC2317
warned_once() { [ "$(grep -c '^rdrand-provider: ' "$OUT/stderr")" -eq 1 ]; }
# One line of each kind that happened: the fault's, and the permanent
# verdict's when the process reached it (the error queue says so); one
# line saying both when the first fault was permanent at once (a repeat).
# shellcheck disable=SC2317
warned_each_once() {
    local permanent=0 at_once=0
    grep -q ':error:.*verdict on RDRAND is now permanent' "$OUT/stderr" &&
        permanent=1
    grep -m 1 '^rdrand-provider: ' "$OUT/stderr" |
        grep -q 'verdict on RDRAND is now permanent' && at_once=1
    [ "$(grep -c '^rdrand-provider: ' "$OUT/stderr")" -eq $((1 + permanent - at_once)) ] &&
        [ "$(grep -c '^rdrand-provider: .*verdict on RDRAND is now permanent' \
            "$OUT/stderr")" -eq "$permanent" ]
}
# shellcheck disable=SC2317
raised_by_us() { # an error line from our provider, with our detail
    stderr_has ":error:[0-9A-F]+:rdrand-sim:.*:seed request of [0-9]+ bytes failed closed: nothing was delivered(; the process.s verdict on RDRAND is now permanent .*)?$"
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
    check "$name: one line of each kind met (warn = stderr)" \
        warned_each_once
    check "$name: the warning names the reason" \
        stderr_has "^rdrand-provider: $reason"
}

# Constant outputs: the init self-test latches, the request's self-test
# finds the same fault again.
fails_closed "stuck ~0" value=ffffffffffffffff "$ONES"
fails_closed "stuck 0" value=0 "$ZERO"

# good_words SERIES N: N distinct, uniform-looking words (splitmix64 of
# SERIES * 2^32 + i, in 64-bit shell arithmetic; >> is arithmetic, so the
# shifted-in bits are masked off).
good_words() {
    local i z
    for ((i = 0; i < $2; i++)); do
        z=$((($1 << 32 | i) * 0x9e3779b97f4a7c15 + 1))
        z=$(((z ^ ((z >> 30) & 0x3ffffffff)) * 0xbf58476d1ce4e5b9))
        z=$(((z ^ ((z >> 27) & 0x1fffffffff)) * 0x94d049bb133111eb))
        printf '%016x\n' $((z ^ ((z >> 31) & 0x1ffffffff)))
    done
}

# 64 good words (the init self-test passes), then each word twice: the
# seed request's continuous test trips on its second word.
{
    good_words 1 64
    good_words 2 8 | sed p
} >"$OUT/twice.words"
fails_closed "each word twice" "words=$OUT/twice.words" "$REPEAT"
# A repeat is a proof: the first trip is the permanent verdict (the
# first warning, printed at the first trip, says so).
# shellcheck disable=SC2317
first_trip_permanent() {
    grep -m 1 '^rdrand-provider: ' "$OUT/stderr" |
        grep -q 'verdict on RDRAND is now permanent'
}
# shellcheck disable=SC2317
first_trip_intermittent() { ! first_trip_permanent; }
check "each word twice: permanent at the first trip" first_trip_permanent

# 64 good words, then a cycle of 5: the recent-words test trips on the
# first word of the second period (a 16-byte request takes 2 words).
{
    good_words 1 64
    for _ in 1 2 3 4; do good_words 3 5; done
} >"$OUT/cycle.words"
fails_closed "cycle of 5" "words=$OUT/cycle.words" "$CYCLE"
check "cycle of 5: permanent at the first trip" first_trip_permanent

# Bit 17 stuck at 1 from the first word: the init self-test's 64 words
# are one whole stuck-bit block, which trips at its end; the request's
# recovery self-test meets the next block stuck too.
good_words 4 200 | while read -r w; do
    printf '%016x\n' $((0x$w | 1 << 17))
done >"$OUT/bit.words"
fails_closed "bit 17 stuck at 1" "words=$OUT/bit.words" "$STUCK_BIT"
check "bit 17 stuck at 1: not permanent at the first trip (a statistic, not a proof)" \
    first_trip_intermittent

# The same CPU seen by rdrand-params with nothing drawn: the init
# self-test passed on the 64 good words.
# shellcheck disable=SC2046
run $(sim_env "words=$OUT/twice.words") -- "$PROBE" -p rdrand-sim \
    health-state health-failures status rdrand-words
check "rdrand-params, words file: exits 0" exited_ok
check "rdrand-params, words file: health-state ok" line_is 1 ok
check "rdrand-params, words file: health-failures 0" line_is 2 0
check "rdrand-params, words file: status 1" line_is 3 1
check "rdrand-params, words file: 64 self-test words" line_is 4 64

# A self-test failure at load: the provider is loaded but latched, and
# rdrand-params shows why (the one failure so far is the init self-test).
for case in "ffffffffffffffff|$ONES" "0|$ZERO" "0123456789abcdef|$REPEAT"; do
    value=${case%%|*}
    reason=${case#*|}
    # shellcheck disable=SC2046
    run $(sim_env "value=$value") -- "$PROBE" -p rdrand-sim \
        health-state health-failures status rdrand-words rdrand-failures
    check "rdrand-params, value=$value: exits 0" exited_ok
    check "rdrand-params, value=$value: health-state is the reason" \
        line_matches 1 "^$reason"
    check "rdrand-params, value=$value: health-failures 1" line_is 2 1
    check "rdrand-params, value=$value: status 0" line_is 3 0
    check "rdrand-params, value=$value: 64 words drawn" line_is 4 64
    check "rdrand-params, value=$value: no CF=0" line_is 5 0
    check "rdrand-params, value=$value: warned once at load" warned_once
done

# CF=0 in the init self-test is not a health failure.
# shellcheck disable=SC2046
run $(sim_env "fail-at=3") -- "$PROBE" -p rdrand-sim \
    health-state health-failures status rdrand-words rdrand-failures
check "rdrand-params, fail-at=3: exits 0" exited_ok
check "rdrand-params, fail-at=3: health-state is the CF=0 reason" \
    line_matches 1 '^RDRAND reported failure \(CF=0\)'
check "rdrand-params, fail-at=3: health-failures 0" line_is 2 0
check "rdrand-params, fail-at=3: status 0" line_is 3 0
check "rdrand-params, fail-at=3: stopped at word 3" line_is 4 3
check "rdrand-params, fail-at=3: one CF=0" line_is 5 1

# Drawing through a latched source: rdrand-params fails with the reason.
# shellcheck disable=SC2046
run $(sim_env "value=0") -- "$PROBE" -p rdrand-sim -n 16 health-state
check "rdrand-params -n 16, stuck 0: exits 1" exited_fail
check "rdrand-params -n 16, stuck 0: the reason on stderr" stderr_has "$ZERO"
finish
