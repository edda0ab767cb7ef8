#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CoCo detection of the shipped rdrand.so through its real hw seam and
# the real kernel's errors, in private mount namespaces.  Where the
# kernel's sysfs platform bus is not there to be read (no sysfs, a tmpfs
# stand-in over it, EACCES for root without CAP_DAC_OVERRIDE) the module
# must call the machine unknown-cvm, name it, and run the 256-bit check
# at load; what else a sandbox hides (/proc/cpuinfo, as systemd's
# ProcSubset=pid or a cut or FIFO copy bound over it; configfs; /dev)
# says nothing on a machine with CPUID, and it stays "none" (docs/coco.md).
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
# RDRAND words at load: the startup self-test, and with the check 256
# bits more (docs/health-tests.md, docs/coco.md).
NO_CHECK=64
CHECKED=$((NO_CHECK + 256 / 64))

# masked SETUP [DROP]: rdrand-params after SETUP (shell, run as root in a
# new mount namespace); with DROP, without the capabilities that bypass
# file permissions, so that a mode-000 directory answers EACCES.  A load
# that hangs (a FIFO read without O_NONBLOCK) is killed and fails.
masked() {
    local drop=() caps=-dac_override,-dac_read_search
    [ $# -gt 1 ] && drop=(setpriv "--bounding-set=$caps")
    run "${REAL[@]}" -- timeout 60 unshare -m sh -c "$1"' && exec "$@"' sh \
        "${drop[@]}" "$PROBE" "${PARAMS[@]}"
}

if ! unshare -m true 2>/dev/null \
    || ! setpriv --bounding-set=-dac_override true 2>/dev/null; then
    echo "SKIP: cannot make a mount namespace or drop capabilities here"
    exit 77
fi
run "${REAL[@]}" -- "$PROBE" "${PARAMS[@]}"
if ! values_are none none 0 $NO_CHECK; then
    echo "SKIP: this machine is not plainly \"none\":" "$(cat "$OUT/stdout")"
    exit 77
fi
masked true
check "control: a namespace that hides nothing is none, no check, \
$NO_CHECK words" values_are none none 0 $NO_CHECK

# Fixtures: a flags line cut off by EOF (as a FUSE /proc that answers
# offsets past 0 with EOF would leave it), and a FIFO.
FX=$OUT/fixtures
mkdir "$FX" && head -c 1024 /proc/cpuinfo >"$FX/cut" && mkfifo "$FX/fifo"
SUBSET_PID="mount -t proc -o subset=pid proc /proc"
UNMOUNTED=unmounted:/sys/devices/platform

# SETUP | DROP | coco-platform | coco-signal
cases=(
    "mount -t tmpfs none /sys||unknown-cvm|$UNMOUNTED"
    "mount -t tmpfs none /sys/devices||unknown-cvm|$UNMOUNTED"
    "mount -t tmpfs none /sys/devices/platform||unknown-cvm|$UNMOUNTED"
    "mount -t tmpfs -o mode=000 none /sys/devices/platform|drop|unknown-cvm|$UNMOUNTED"
    "mount -t tmpfs -o mode=000 none /sys|drop|unknown-cvm|unreadable:/sys/devices/platform"
    "mount -t tmpfs none /proc||none|none"
    "$SUBSET_PID||none|none"
    "mount --bind /dev/null /proc/cpuinfo||none|none"
    "mount --bind $FX/cut /proc/cpuinfo||none|none"
    "mount --bind $FX/fifo /proc/cpuinfo||none|none"
    "mount -t tmpfs -o mode=000 none /sys/kernel|drop|none|none"
    "mount -t tmpfs -o mode=000 none /dev|drop|none|none"
    # A container's private /dev lacks the guest nodes: ENOENT is "absent".
    "mount -t tmpfs none /dev && touch /dev/null||none|none"
)
for row in "${cases[@]}"; do
    IFS='|' read -r setup drop platform signal <<<"$row"
    # A sanitizer runtime reads its options and threads from /proc and
    # dies without it; the uninstrumented build runs this row.  (No grep
    # -q: under pipefail, ldd killed by SIGPIPE would fail the test.)
    if [ "$setup" = "mount -t tmpfs none /proc" ] \
        && ldd "$PROBE" | grep -E 'lib(a|t|ub)san' >/dev/null; then
        echo "not run here (sanitizer build, needs /proc): $setup"
        continue
    fi
    # subset=pid needs Linux 5.8.
    if [ "$setup" = "$SUBSET_PID" ] && ! unshare -m sh -c "$setup"; then
        echo "not run here (this kernel's procfs has no subset=pid): $setup"
        continue
    fi
    if [ -n "$drop" ]; then masked "$setup" drop; else masked "$setup"; fi
    t="$setup${drop:+ (no DAC override)}"
    check "$t: rdrand-params exits 0" exited_ok
    if [ "$platform" = none ]; then
        check "$t: none, no check, $NO_CHECK words" \
            values_are none none 0 $NO_CHECK
    else
        check "$t: $platform, $signal, 256 bits checked, $CHECKED words" \
            values_are "$platform" "$signal" 256 $CHECKED
    fi
done
finish
