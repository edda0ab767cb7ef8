#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Confidential-computing guests through the real openssl CLI and
# rdrand-params: each on_coco_failure policy on failing simulated guests,
# through openssl.cnf (conf/sim-coco.cnf) and through OSSL_PROVIDER_load
# (conf/sim-coco-load.cnf, rdrand-params -l); working simulated guests;
# coco = require; coco_seed_bits; the real module with conf/rdrand-coco.cnf.
# shellcheck disable=SC2317 # the helpers below are called through check
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
ulimit -c 0 # the abort policy must not leave core files behind

SIM=rdrand-sim
SEED_FAILED="confidential-computing guest: RDRAND failed the check at load; \
this provider will not seed anything"
NO_RDRAND="confidential-computing guest without RDRAND: there is no entropy \
source the host cannot influence; this provider will not seed anything"

# sim_coco CONF POLICY COCO BITS SPEC: the environment, in ENV, for a
# simulated guest under conf/CONF with those policy keys.
sim_coco() {
    ENV=("OPENSSL_MODULES=$SIM_MODULES" "OPENSSL_CONF=$CONF/$1"
        "RDRAND_TEST_ON_COCO_FAILURE=$2" "RDRAND_TEST_COCO=$3"
        "RDRAND_TEST_COCO_SEED_BITS=$4" "RDRAND_SIM=$5")
}
exited_abort() { [ "$status" -eq 134 ]; } # 128 + SIGABRT
stdout_empty() { [ ! -s "$OUT/stdout" ]; }
values_are() { # values_are V...: stdout is exactly these lines
    [ "$(cat "$OUT/stdout")" = "$(printf '%s\n' "$@")" ]
}
# The load's fault and its CoCo consequence are one line, not two.
one_warning() { [ "$(grep -c '^rdrand-provider: ' "$OUT/stderr")" -eq 1 ]; }

# --- failing guests: the startup self-test passes and the CoCo draw
# fails (fail-at=65), the self-test sees a stuck word, or no RDRAND ---
# SPEC | PLATFORM | SIGNAL | COCO REASON | CAUSE
failing=(
    "coco=tdx,fail-at=65|tdx|cpuinfo:tdx_guest|$SEED_FAILED|RDRAND reported failure (CF=0)"
    "coco=sev-snp,value=ffffffffffffffff|sev-snp|sysfs:sev-guest|$SEED_FAILED|RDRAND returned an all-ones word"
    "coco=tdx,rdrand=absent|tdx|cpuinfo:tdx_guest|$NO_RDRAND|CPUID reports no RDRAND"
    # Guests that detection round two no longer takes for "none".
    "coco=masked,fail-at=65|unknown-cvm|unreadable:/sys/devices/platform|$SEED_FAILED|RDRAND reported failure (CF=0)"
    # Round three: a tmpfs stand-in over the sysfs platform bus.
    "coco=snp-sysfs-standin,fail-at=66|unknown-cvm|unmounted:/sys/devices/platform|$SEED_FAILED|RDRAND reported failure (CF=0)"
    "coco=hyperv-vbs,fail-at=68|hyperv-vbs|cpuid:0x4000000c|$SEED_FAILED|RDRAND reported failure (CF=0)"
    "coco=tdx-leaf-hidden,rdrand=absent|tdx|cpuid:0x21|$NO_RDRAND|CPUID reports no RDRAND"
)
for row in "${failing[@]}"; do
    IFS='|' read -r spec platform signal reason cause <<<"$row"
    # The detail the provider adds to its error: platform, signal, cause.
    detail="platform $platform \\(decided by $signal\\); cause: ${cause//[()]/.}"
    t="$spec"

    # refuse: the same config works on a healthy guest of that platform,
    # so what follows is the refusal, not a config that never applied.
    sim_coco sim-coco.cnf refuse auto 256 "${spec%%,*}"
    run "${ENV[@]}" -- "$OPENSSL_BIN" list -providers
    check "$t refuse: control, a working $platform guest loads" \
        listed $SIM active
    # Through openssl.cnf OpenSSL skips the refusing provider.  3.0-3.6
    # then seed from the OS, openssl rand succeeds: the silent fallback.
    # 4.0 cannot fetch the seed source [random] names and fails closed.
    sim_coco sim-coco.cnf refuse auto 256 "$spec"
    run "${ENV[@]}" -- "$OPENSSL_BIN" rand -hex 16
    if openssl_at_least 4 0; then
        check "$t refuse: openssl rand fails closed (4.0)" exited_fail
        check "$t refuse: the seed source could not be fetched" \
            stderr_has 'rand_new_seed:unable to fetch drbg'
        check "$t refuse: no bytes printed" stdout_empty
    else
        check "$t refuse: openssl rand exits 0 (OS entropy, 3.x)" exited_ok
        check "$t refuse: and prints bytes" hex32
    fi
    check "$t refuse: the refusal is on the warning channel (stderr)" \
        stderr_has "^rdrand-provider: $reason; $detail.*; refused to load"
    check "$t refuse: one warning line" one_warning
    run "${ENV[@]}" -- "$OPENSSL_BIN" list -providers
    check "$t refuse: list -providers exits 0" exited_ok
    check "$t refuse: $SIM absent from list -providers" \
        stdout_lacks "^  $SIM\$"
    check "$t refuse: default still listed" listed default active
    run "${ENV[@]}" -- "$PROBE" -p $SIM
    check "$t refuse: rdrand-params exits 3" exited_with 3
    check "$t refuse: rdrand-params says not loaded" \
        stderr_has "^provider $SIM is not loaded\$"
    # OSSL_PROVIDER_load returns NULL with the provider's error.
    sim_coco sim-coco-load.cnf refuse auto 256 "$spec"
    run "${ENV[@]}" -- "$PROBE" -l -p $SIM
    check "$t refuse: OSSL_PROVIDER_load fails (exit 3)" exited_with 3
    check "$t refuse: error names the platform and the cause" \
        stderr_has "$detail"
    check "$t refuse: core reports init fail" \
        stderr_has "provider_init:init fail:.*name=$SIM"

    # fail-closed: loads with status 0; every seed request fails.
    sim_coco sim-coco.cnf fail-closed auto 256 "$spec"
    run "${ENV[@]}" -- "$OPENSSL_BIN" rand -hex 16
    check "$t fail-closed: openssl rand fails" exited_fail
    check "$t fail-closed: with the CoCo reason" stderr_has "$reason"
    check "$t fail-closed: latched, naming the platform" \
        stderr_has "latched in a confidential guest \\($platform\\)"
    check "$t fail-closed: no bytes printed" stdout_empty
    check "$t fail-closed: one warning line, the load's" one_warning
    check "$t fail-closed: it says every request fails" \
        stderr_has "^rdrand-provider: $reason; $detail.*; every seed request fails"
    run "${ENV[@]}" -- "$OPENSSL_BIN" list -providers
    check "$t fail-closed: list -providers exits 0" exited_ok
    check "$t fail-closed: listed, status: inactive" listed $SIM inactive
    run "${ENV[@]}" -- "$PROBE" -p $SIM status health-state coco-platform \
        coco-signal coco-seed-bits
    check "$t fail-closed: rdrand-params exits 0" exited_ok
    check "$t fail-closed: status 0, health-state = CoCo reason, \
$platform, $signal, 0 bits" values_are 0 "$reason" "$platform" "$signal" 0
    # OSSL_PROVIDER_load succeeds; the first random byte fails.
    sim_coco sim-coco-load.cnf fail-closed auto 256 "$spec"
    run "${ENV[@]}" -- "$PROBE" -l -p $SIM status health-state
    check "$t fail-closed: OSSL_PROVIDER_load succeeds" exited_ok
    check "$t fail-closed: loaded with status 0 and the CoCo reason" \
        values_are 0 "$reason"
    run "${ENV[@]}" -- "$PROBE" -l -p $SIM -n 16
    check "$t fail-closed: RAND_bytes after OSSL_PROVIDER_load fails" \
        exited_with 1
    check "$t fail-closed: with the CoCo reason" stderr_has "$reason"

    # abort: the process dies while OpenSSL loads the provider.
    msg="^rdrand-provider: $reason; platform $platform; \
cause: ${cause//[()]/.}.*; aborting\$"
    for conf in sim-coco.cnf sim-coco-load.cnf; do
        sim_coco $conf abort auto 256 "$spec"
        if [ $conf = sim-coco.cnf ]; then
            run "${ENV[@]}" -- "$OPENSSL_BIN" rand -hex 16
            how="openssl rand"
        else
            run "${ENV[@]}" -- "$PROBE" -l -p $SIM
            how="OSSL_PROVIDER_load"
        fi
        check "$t abort: $how dies of SIGABRT (134)" exited_abort
        check "$t abort: $how: stderr names reason, platform, cause" \
            stderr_has "$msg"
        check "$t abort: $how: no output" stdout_empty
    done
done

# --- working guests: each loads, checks coco_seed_bits at load (after
# the 64-word startup self-test: 64 + bits/64 RDRAND words) and seeds ---
# SIM PLATFORM | coco-platform | coco-signal
working=(
    "tdx|tdx|cpuinfo:tdx_guest"
    "sev-snp|sev-snp|sysfs:sev-guest"
    "hyperv-snp|hyperv-snp|cpuid:0x4000000c"
    "sev|sev|cpuid:0x8000001f"
    "hyperv-tdx|hyperv-tdx|cpuid:0x4000000c"
    "tsm-only|unknown-cvm|configfs:tsm"
    # What we could not see, VBS, leaf 0x21 beyond the maximum: each
    # once read as "none".
    "masked|unknown-cvm|unreadable:/sys/devices/platform"
    "unmounted|unknown-cvm|unmounted:/sys/devices/platform"
    "hyperv-vbs|hyperv-vbs|cpuid:0x4000000c"
    "tdx-leaf-hidden|tdx|cpuid:0x21"
    # Round three: SNP behind a sysfs stand-in, gVisor's sysfs without a
    # platform bus, an unstat-able sev-guest; Hyper-V's root bit no veto.
    "snp-sysfs-standin|unknown-cvm|unmounted:/sys/devices/platform"
    "snp-no-platform|unknown-cvm|unmounted:/sys/devices/platform"
    "snp-sev-guest-unreadable|unknown-cvm|unreadable:/sys/devices/platform/sev-guest"
    "hyperv-root-isolated|hyperv-snp|cpuid:0x4000000c"
)
for row in "${working[@]}"; do
    IFS='|' read -r sim platform signal <<<"$row"
    t="coco=$sim ok"
    sim_coco sim-coco.cnf fail-closed auto 256 "coco=$sim"
    run "${ENV[@]}" -- "$OPENSSL_BIN" rand -hex 16
    check "$t: openssl rand exits 0" exited_ok
    check "$t: and prints bytes" hex32
    run "${ENV[@]}" -- "$OPENSSL_BIN" list -providers
    check "$t: listed, status: active" listed $SIM active
    run "${ENV[@]}" -- "$PROBE" -p $SIM status health-state coco-platform \
        coco-signal coco-seed-bits rdrand-words
    check "$t: rdrand-params exits 0" exited_ok
    check "$t: status 1, ok, $platform, $signal, 256 bits, 68 words" \
        values_are 1 ok "$platform" "$signal" 256 68
    run "${ENV[@]}" -- "$PROBE" -p $SIM -n 32 -r seed-requests seed-failures
    check "$t: seeds from RDRAND (seed-requests >= 2)" line_at_least 1 2
    check "$t: no seed failures" line_is 2 0
done

# The policy does not matter when the check passes.
for policy in refuse abort; do
    sim_coco sim-coco.cnf $policy auto 256 coco=tdx
    run "${ENV[@]}" -- "$OPENSSL_BIN" rand -hex 16
    check "coco=tdx ok, $policy: openssl rand exits 0" exited_ok
    run "${ENV[@]}" -- "$PROBE" -p $SIM status coco-seed-bits
    check "coco=tdx ok, $policy: status 1, 256 bits" values_are 1 256
done

# --- coco_seed_bits: more words drawn at load ---
for bits in 512 4096; do
    sim_coco sim-coco.cnf fail-closed auto $bits coco=tdx
    run "${ENV[@]}" -- "$PROBE" -p $SIM status coco-seed-bits rdrand-words
    check "coco_seed_bits = $bits: status 1, $bits bits, \
$((64 + bits / 64)) words" values_are 1 $bits $((64 + bits / 64))
    run "${ENV[@]}" -- "$OPENSSL_BIN" rand -hex 16
    check "coco_seed_bits = $bits: openssl rand exits 0" exited_ok
done
# Word 70 fails: inside a 512-bit check (words 65-72), after a 256-bit one
# (words 65-68), so the same hardware passes one and fails the other.
sim_coco sim-coco.cnf fail-closed auto 256 coco=tdx,fail-at=70
run "${ENV[@]}" -- "$PROBE" -p $SIM status coco-seed-bits health-state
check "fail-at=70, 256 bits: passes the check" values_are 1 256 ok
sim_coco sim-coco.cnf fail-closed auto 512 coco=tdx,fail-at=70
run "${ENV[@]}" -- "$PROBE" -p $SIM status coco-seed-bits health-state
check "fail-at=70, 512 bits: fails the check" \
    values_are 0 0 "$SEED_FAILED"

# --- coco = require on guests with no CoCo signal (leaf 0x21, read on
# every CPU, answers an Intel or AMD VM and bare metal with no TDX), and
# on ordinary machines whose hidden inputs say nothing (ProcSubset=pid,
# configfs or /dev behind EACCES, a flags line cut off by EOF) ---
for spec in "" coco=none coco=intel-vm coco=epyc-host coco=hv-bit-clear \
    coco=proc-subset-pid coco=tsm-unreadable coco=dev-unreadable \
    coco=cpuinfo-cut; do
    t="require, RDRAND_SIM=\"$spec\""
    sim_coco sim-coco.cnf fail-closed auto 256 "$spec"
    run "${ENV[@]}" -- "$PROBE" -p $SIM status coco-platform coco-signal \
        coco-seed-bits rdrand-words
    check "auto, RDRAND_SIM=\"$spec\": no check (none, none, 0 bits, \
64 words)" values_are 1 none none 0 64
    sim_coco sim-coco.cnf fail-closed require 256 "$spec"
    run "${ENV[@]}" -- "$PROBE" -p $SIM status coco-platform coco-signal \
        coco-seed-bits rdrand-words
    check "$t: checked (none, none, 256 bits, 68 words)" \
        values_are 1 none none 256 68
    run "${ENV[@]}" -- "$OPENSSL_BIN" rand -hex 16
    check "$t: openssl rand exits 0" exited_ok
done
sim_coco sim-coco.cnf fail-closed require 256 coco=none,fail-at=65
run "${ENV[@]}" -- "$OPENSSL_BIN" rand -hex 16
check "require, fail-at=65, fail-closed: openssl rand fails" exited_fail
check "require, fail-at=65, fail-closed: the CoCo reason" \
    stderr_has "$SEED_FAILED"
sim_coco sim-coco-load.cnf refuse require 256 coco=none,fail-at=65
run "${ENV[@]}" -- "$PROBE" -l -p $SIM
check "require, fail-at=65, refuse: OSSL_PROVIDER_load fails" exited_with 3
check "require, fail-at=65, refuse: the error says coco = require" \
    stderr_has "platform none detected, coco = require \\(decided by none\\)"

# reduce512 in a failing guest under fail-closed: the CoCo line is the
# load's one line; the keyless reduce512 instance adds none (it added a
# second, review of round three).
sed 's/^warn = stderr$/&\nconditioning = reduce512/' "$CONF/sim-coco.cnf" \
    >"$OUT/sim-coco-reduce512.cnf"
for spec in coco=sev-snp,fail-at=66 coco=tdx,fail-at=5 \
    coco=tdx,value=ffffffffffffffff; do
    ENV=("OPENSSL_MODULES=$SIM_MODULES" "OPENSSL_CONF=$OUT/sim-coco-reduce512.cnf"
        "RDRAND_TEST_ON_COCO_FAILURE=fail-closed" "RDRAND_TEST_COCO=auto"
        "RDRAND_TEST_COCO_SEED_BITS=256" "RDRAND_SIM=$spec")
    run "${ENV[@]}" -- "$OPENSSL_BIN" rand -hex 16
    check "reduce512, $spec, fail-closed: openssl rand fails" exited_fail
    check "reduce512, $spec, fail-closed: one warning line, the CoCo one" \
        one_warning
    check "reduce512, $spec, fail-closed: it is the CoCo line" \
        stderr_has "^rdrand-provider: $SEED_FAILED"
done

# The real module with conf/rdrand-coco.cnf: tests/cli/test_real.sh.
finish
