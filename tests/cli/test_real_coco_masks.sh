#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CoCo detection of the shipped rdrand.so through its real hw seam and
# the real kernel's errors: in a private mount namespace, hide /sys or
# /proc, or make a kernel directory unreadable (EACCES, root without
# CAP_DAC_OVERRIDE), and the module must call the machine unknown-cvm,
# name what it could not see, and run the 256-bit check at load
# (docs/coco.md).  A private /dev is a plain "absent", by design.
# Exits 77 (a skip for ctest, never a pass) without RDRAND, where a mount
# namespace cannot be made (no root, a container), or where the machine
# is not plainly "none" to begin with (a real guest, a sandbox).
# shellcheck disable=SC2317 # the helpers below are called through check
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
require_real_rdrand

REAL=("OPENSSL_MODULES=$REAL_MODULES" "OPENSSL_CONF=$CONF/rdrand-coco.cnf")
PARAMS=(coco-platform coco-signal coco-seed-bits rdrand-words)
values_are() { [ "$(cat "$OUT/stdout")" = "$(printf '%s\n' "$@")" ]; }

# masked SETUP [DROP]: rdrand-stat after SETUP (shell, run as root in a
# new mount namespace); with DROP, without the capabilities that bypass
# file permissions, so that a mode-000 directory answers EACCES.
masked() {
    local drop=() caps=-dac_override,-dac_read_search
    [ $# -gt 1 ] && drop=(setpriv "--bounding-set=$caps")
    run "${REAL[@]}" -- unshare -m sh -c "$1"' && exec "$@"' sh \
        "${drop[@]}" "$STAT" "${PARAMS[@]}"
}

if ! unshare -m true 2>/dev/null \
    || ! setpriv --bounding-set=-dac_override true 2>/dev/null; then
    echo "SKIP: cannot make a mount namespace or drop capabilities here"
    exit 77
fi
run "${REAL[@]}" -- "$STAT" "${PARAMS[@]}"
if ! values_are none none 0 8; then
    echo "SKIP: this machine is not plainly \"none\":" "$(cat "$OUT/stdout")"
    exit 77
fi
masked true
check "control: a namespace that hides nothing is none, no check, 8 words" \
    values_are none none 0 8

# SETUP | DROP | coco-signal
cases=(
    "mount -t tmpfs none /sys||unmounted:/sys"
    "mount -t tmpfs none /proc||unmounted:/proc"
    "mount --bind /dev/null /proc/cpuinfo||unreadable:/proc/cpuinfo"
    "mount -t tmpfs -o mode=000 none /sys/kernel|drop|unreadable:/sys/kernel/config/tsm/report"
    "mount -t tmpfs -o mode=000 none /sys/devices/platform|drop|unreadable:/sys/devices/platform/sev-guest"
    "mount -t tmpfs -o mode=000 none /sys|drop|unreadable:/sys/devices"
)
for row in "${cases[@]}"; do
    IFS='|' read -r setup drop signal <<<"$row"
    # A sanitizer runtime reads its options and threads from /proc and
    # dies without it; the uninstrumented build runs this row.
    if [ "$setup" = "mount -t tmpfs none /proc" ] \
        && ldd "$STAT" | grep -qE 'lib(a|t|ub)san'; then
        echo "not run here (sanitizer build, needs /proc): $setup"
        continue
    fi
    if [ -n "$drop" ]; then masked "$setup" drop; else masked "$setup"; fi
    check "$setup${drop:+ (no DAC override)}: rdrand-stat exits 0" exited_ok
    check "$setup${drop:+ (no DAC override)}: unknown-cvm, $signal, \
256 bits checked, 12 words" values_are unknown-cvm "$signal" 256 12
done

# A container's private /dev lacks the guest nodes: ENOENT is "absent".
masked "mount -t tmpfs none /dev && touch /dev/null"
check "private /dev: none, no check, 8 words" values_are none none 0 8
finish
