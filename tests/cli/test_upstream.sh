#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# docs/upstream/: the reproducer of OpenSSL 4.0's first-call gap does, on
# the libcrypto and openssl binary under test, what its report says:
# with first-call-repro.cnf (a seed source no provider offers), openssl
# rand fails from 4.0 on and a program loading the config first fails
# likewise; a program whose first call is RAND_bytes succeeds on 4.0 (the
# file never read) unless that libcrypto carries the fix (0001-*.patch,
# RDRAND_OPENSSL_PATCHES).  Before 4.0 an unfetchable seed source falls
# back to the OS (docs/compatibility.md): all three succeed there.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

REPRO=$RDRAND_BUILD_DIR/first-call-repro
CNF=$RDRAND_SOURCE_DIR/docs/upstream/first-call-repro.cnf
PATCH=0001-rand-load-the-configuration-before-choosing-the-seed-source.patch
check "the patch named here is in docs/upstream" \
    test -f "$RDRAND_SOURCE_DIR/docs/upstream/$PATCH"

fixed=0
[[ " ${RDRAND_OPENSSL_PATCHES:-} " == *" $PATCH "* ]] && fixed=1
v=$("$OPENSSL_BIN" version | awk '{ print $2 }')
if openssl_at_least 4 0; then
    cli=fail config=0 first=1 # the repro's exit: 0 used the file, 1 not
    [ "$fixed" = 0 ] || first=0
else
    cli=ok config=1 first=1
fi
echo "# OpenSSL $v, fix applied: $fixed"

run "OPENSSL_CONF=$CNF" -- "$OPENSSL_BIN" rand -hex 16
if [ "$cli" = fail ]; then
    check "openssl rand with the file: fails closed (unable to fetch)" \
        eval 'exited_fail && stderr_has "unable to fetch drbg"'
else
    check "openssl rand with the file: falls back to the OS (3.x)" exited_ok
fi
run "OPENSSL_CONF=$CNF" -- "$REPRO" config
check "repro, the config loaded first: exit $config" exited_with "$config"
run "OPENSSL_CONF=$CNF" -- "$REPRO"
check "repro, RAND_bytes first: exit $first" exited_with "$first"
check "repro: ran on OpenSSL $v, as the openssl binary" \
    stdout_has "^OpenSSL ${v//./\\.} "
finish
