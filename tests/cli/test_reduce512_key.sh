#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# conditioning = reduce512 on a simulated CPU whose CBC-MAC key draw at
# load fails (the key is words 65 and 66, after the 64-word self-test;
# no CoCo check on the base machine): openssl rand fails closed and the
# warn channel (stderr) carries exactly one line, naming both the fault
# and that reduce512 was refused for good.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

sed 's/^warn = stderr$/&\nconditioning = reduce512/' \
    "$CONF/rdrand-sim.cnf" >"$OUT/reduce512.cnf"

CF0='RDRAND reported failure \(CF=0\)'
REPEAT='RDRAND returned the same 64-bit word twice in a row'
REFUSED='conditioning = reduce512 refused: drawing the CBC-MAC key from RDRAND'
REFUSED="$REFUSED at load failed, so every request from this instance fails"

# Used through check (shellcheck cannot see the indirect calls).
# shellcheck disable=SC2317
one_line() { [ "$(grep -c '^rdrand-provider: ' "$OUT/stderr")" -eq 1 ]; }
# shellcheck disable=SC2317
configured() { grep -qx 'conditioning = reduce512' "$OUT/reduce512.cnf"; }
check "the test's config asks for reduce512, warn = stderr" configured

# key_fails NAME SPEC REASON: the key draw fails with REASON
key_fails() {
    local name=$1 spec=$2 reason=$3
    run "OPENSSL_MODULES=$SIM_MODULES" "OPENSSL_CONF=$OUT/reduce512.cnf" \
        "RDRAND_SIM=$spec" -- "$OPENSSL_BIN" rand -hex 16
    check "$name: openssl rand exits non-zero" exited_fail
    check "$name: no bytes printed" stdout_lacks '[0-9a-f]{8}'
    check "$name: exactly one warning line" one_line
    check "$name: it names the fault, the refusal, what to do" \
        stderr_has "^rdrand-provider: $reason.*: $REFUSED; restart the process"
}

key_fails "CF=0 on the key's first word" fail-at=65 "$CF0"
key_fails "CF=0 on the key's second word" fail-at=66 "$CF0"

# 64 words of AES-128-CTR keystream (the self-test passes), then one
# word twice: the key's two words trip the repetition count test.
{
    head -c 512 /dev/zero |
        "$OPENSSL_BIN" enc -aes-128-ctr -nosalt -iv "$(printf '%032d' 0)" \
            -K 000102030405060708090a0b0c0d0e0f | od -An -v -tx8 -w8 |
        tr -d ' '
    printf '%016x\n' 0x0123456789abcdef 0x0123456789abcdef
} >"$OUT/keyrep.words"
key_fails "the key's words repeat" "words=$OUT/keyrep.words" "$REPEAT"

# CF=0 in the load's self-test, before the key: no key is drawn; still one
# line, naming the fault and the refusal (it was two before).
run "OPENSSL_MODULES=$SIM_MODULES" "OPENSSL_CONF=$OUT/reduce512.cnf" \
    "RDRAND_SIM=fail-at=5" -- "$OPENSSL_BIN" rand -hex 16
check "self-test CF=0: openssl rand exits non-zero" exited_fail
check "self-test CF=0: exactly one warning line" one_line
check "self-test CF=0: it names the fault and the refusal" \
    stderr_has "^rdrand-provider: $CF0.*no CBC-MAC key was drawn"
finish
