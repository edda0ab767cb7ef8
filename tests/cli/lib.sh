# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Shared by the CLI tests: run the real openssl binary against our modules
# and conf/ files, count checks, print "N passed, N failed" at the end.
set -uo pipefail
: "${OPENSSL_BIN:?set by ctest}" "${RDRAND_BUILD_DIR:?}" "${RDRAND_SOURCE_DIR:?}"

# shellcheck disable=SC2034 # used by the scripts that source this file
CONF=$RDRAND_SOURCE_DIR/conf
# shellcheck disable=SC2034
REAL_MODULES=$RDRAND_BUILD_DIR
SIM_MODULES=$RDRAND_BUILD_DIR/tests
# shellcheck disable=SC2034
PROBE=$RDRAND_BUILD_DIR/rdrand-params
OUT=$(mktemp -d)
# Readable by every user, as a service's configuration must be
# (rdrand-check reports a file or directory closed to others).
chmod 755 "$OUT"
trap 'rm -rf "$OUT"' EXIT
# shellcheck source=tests/checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../checks.sh"

# A failed check shows what the last run printed.
check_failed() {
    echo "  --- stdout:"; sed 's/^/  | /' "$OUT/stdout" 2>/dev/null
    echo "  --- stderr:"; sed 's/^/  | /' "$OUT/stderr" 2>/dev/null
}

# run ENV... -- CMD...: run with extra environment, keep output and status
run() {
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$@" >"$OUT/stdout" 2>"$OUT/stderr"
    status=$?
}

exited_ok() { [ "$status" -eq 0 ]; }
exited_with() { [ "$status" -eq "$1" ]; } # exited_with N
exited_fail() { [ "$status" -ne 0 ] && [ "$status" -lt 128 ]; }
stdout_has() { grep -qE -- "$1" "$OUT/stdout"; }
stderr_has() { grep -qE -- "$1" "$OUT/stderr"; }
hex32() { stdout_has '^[0-9a-f]{32}$'; }
listed() { # listed NAME STATUS: openssl list -providers shows NAME so
    grep -A3 -x "  $1" "$OUT/stdout" | grep -x "    status: $2" >/dev/null
}
stdout_lacks() { ! grep -qE -- "$1" "$OUT/stdout"; }
stderr_lacks() { ! grep -qE -- "$1" "$OUT/stderr"; }
line_is() { [ "$(sed -n "$1p" "$OUT/stdout")" = "$2" ]; }     # line_is N TEXT
line_at_least() { [ "$(sed -n "$1p" "$OUT/stdout")" -ge "$2" ]; } # N MIN

sim_env() { # sim_env SPEC: environment for the simulated-CPU module
    echo "OPENSSL_MODULES=$SIM_MODULES" "OPENSSL_CONF=$CONF/rdrand-sim.cnf" \
        "RDRAND_SIM=$1"
}

# Exit 77 (ctest: skipped) unless the real module sees RDRAND in CPUID.
require_real_rdrand() {
    run "OPENSSL_MODULES=$REAL_MODULES" "OPENSSL_CONF=/dev/null" -- \
        "$PROBE" -l rdrand-available
    if [ "$(cat "$OUT/stdout")" != 1 ]; then
        echo "SKIP: CPUID reports no RDRAND on this machine"
        exit 77
    fi
}

# openssl_at_least MAJOR MINOR: the openssl binary under test is at least
# that release (compared as numbers, from "openssl version").
openssl_at_least() {
    local v major minor
    v=$("$OPENSSL_BIN" version | awk '{ print $2 }')
    major=${v%%.*}
    minor=${v#*.}
    minor=${minor%%.*}
    [ "$major" -gt "$1" ] || { [ "$major" -eq "$1" ] && [ "$minor" -ge "$2" ]; }
}
