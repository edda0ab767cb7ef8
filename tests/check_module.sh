#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shellcheck disable=SC2317 # the helpers below are called through check
# The shipped module: exports only OSSL_provider_init and the status
# block (include/rdrand_status.h), carries no
# simulation and reads no environment variable.
set -uo pipefail
: "${RDRAND_BUILD_DIR:?}"
so=$RDRAND_BUILD_DIR/rdrand.so
sim=$RDRAND_BUILD_DIR/tests/rdrand-sim.so
# shellcheck source=tests/checks.sh
. "$(dirname "$0")/checks.sh"
# grep reading all its input: "grep -q" exits at the first match and,
# under pipefail, the writer's SIGPIPE could fail a check that passed.
has() { grep "$@" >/dev/null; }
exports_only_init() {
    [ "$(nm -D --defined-only "$1" | awk '$2 ~ /[TDBRW]/ {print $3}' |
        grep -v '^_' | sort | tr '\n' ' ')" = "OSSL_provider_init rdrand_status " ]
}
# The block is data, of the size the header gives (rdrand-check --pid
# reads it by that symbol).
exports_status_block() {
    local size
    size=$(awk '/define RDRAND_STATUS_SIZE/ {sub("u$", "", $3); print $3}' \
        "$(dirname "$0")/../include/rdrand_status.h")
    [ -n "$size" ] || return 1
    read -r got type < <(nm -D -S --defined-only "$1" |
        awk '$4 == "rdrand_status" {print $2, $3}')
    [[ $type == [DdBb] ]] && ((16#${got:-x} == size))
}
no_simulation() { ! strings "$1" | has RDRAND_SIM; }
# Test-only entry points (every function and variable tests/seams/seams.h
# declares, whatever its type or how many lines it takes: each rdrand_
# name outside comments that is not a struct's) live in tests/seams/,
# never in the module's sources.  17 today: fewer means the reading broke.
seams=$(perl -0777 -pe 's{/\*.*?\*/}{}gs; s{struct\s+rdrand_\w+}{}g' \
    "$(dirname "$0")/seams/seams.h" | grep -o '\brdrand_[a-z_0-9]*' | sort -u)
no_seam_in_sources() {
    local seam
    [ "$(wc -w <<<"$seams")" -ge 17 ] || return 1
    for seam in $seams; do
        ! grep -qw "$seam" "$(dirname "$0")"/../provider/*.[ch] || return 1
    done
}
# The symbol table $1 has none of the names $2 (nor a compiler's clone of
# one, name.lto_priv.0), and $2 names at least $3 of them.
lacks_all() {
    local name
    [ "$(wc -w <<<"$2")" -ge "$3" ] || return 1
    for name in $2; do
        ! has -E "[[:space:]]$name(\.|\$)" <<<"$1" || return 1
    done
}
no_test_hooks() {
    local syms
    syms=$(nm "$1") && has -w OSSL_provider_init <<<"$syms" &&
        lacks_all "$syms" "$seams" 17
}
# Every function of provider/health_step.h but the AES-NI digest (whose
# target must match its caller's) is forced inline (RDRAND_STEP): an
# out-of-line copy would take a delivered word as its argument below the
# frame the draw wipes.
steps=$(grep -A1 -E '^(RDRAND_STEP|static inline|RDRAND_AESNI static)' \
    "$(dirname "$0")/../provider/health_step.h" | grep -o '^rdrand_[a-z_]*(\|[ *]rdrand_[a-z_]*(' |
    tr -d '( *' | grep -v -x -e rdrand_health_digest -e rdrand_health_digest_aes |
    sort -u)
steps_inlined() {
    local syms
    syms=$(nm "$1") && has -w rdrand_draw <<<"$syms" &&
        lacks_all "$syms" "$steps" 15
}
no_getenv() { ! nm -D --undefined-only "$1" | has -w -e getenv -e secure_getenv; }
bind_now() { readelf -d "$1" | has -e BIND_NOW -e 'FLAGS.*NOW'; }
no_delete() { readelf -d "$1" | has 'FLAGS_1.*NODELETE'; }
# Hardening (CMakeLists.txt, "Hardening" block).
full_relro() { readelf -lW "$1" | has GNU_RELRO && bind_now "$1"; }
stack_not_exec() { readelf -lW "$1" | has -E 'GNU_STACK .* RW  '; }
stack_protector() { nm -D --undefined-only "$1" | has -w __stack_chk_fail; }
fortified() { nm -D --undefined-only "$1" | has -E ' __[a-z_]+_chk(@|$)'; }
# -fcf-protection: every function whose address is taken starts with
# ENDBR64.  Those are OSSL_provider_init (.dynsym) and every code address
# stored in data: the dispatch tables' R_X86_64_RELATIVE relocations whose
# addend lies in .text (.init_array/.fini_array are left out: they hold
# the toolchain's crtstuff, called directly by ld.so, not ours).  The ELF
# property note (readelf -n "x86 feature: IBT, SHSTK") is the AND over
# every linked object, and Debian's crti.o carries none, so it is required
# only when the toolchain's does.
crti_has_cet() { readelf -n "$(gcc -print-file-name=crti.o)" | has IBT; }
section() { # section SO NAME: "start size" in hex, or "0 0"
    readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] //p' |
        awk -v n="$2" '$1 == n {s = $3 " " $5} END {print s ? s : "0 0"}'
}
indirect_targets() { # the addresses an indirect call or jump may reach
    local t ts i is f fs off addend
    read -r t ts < <(section "$1" .text)
    read -r i is < <(section "$1" .init_array)
    read -r f fs < <(section "$1" .fini_array)
    while read -r off addend; do
        off=$((16#$off)) addend=$((16#$addend))
        ((addend >= 16#$t && addend < 16#$t + 16#$ts)) || continue
        ((off >= 16#$i && off < 16#$i + 16#$is)) && continue
        ((off >= 16#$f && off < 16#$f + 16#$fs)) && continue
        printf '%x\n' "$addend"
    done < <(readelf -rW "$1" | awk '$3 == "R_X86_64_RELATIVE" {print $1, $4}')
    nm -D --defined-only "$1" | awk '$3 == "OSSL_provider_init" {print $1}' |
        sed 's/^0*//'
}
endbr_at() { # the addresses of the ENDBR64 instructions
    objdump -d --no-show-raw-insn "$1" |
        awk '$2 == "endbr64" { sub(":", "", $1); print $1 }'
}
every_target_endbr() {
    local targets missing
    targets=$(indirect_targets "$1" | sort -u)
    # The dispatch tables alone take more than ten functions' addresses.
    [ "$(wc -l <<<"$targets")" -ge 10 ] || return 1
    missing=$(comm -23 <(echo "$targets") <(endbr_at "$1" | sort -u))
    [ -z "$missing" ] || {
        echo "# no ENDBR64 at: $missing" >&2
        return 1
    }
}
cet() {
    every_target_endbr "$1" || return 1
    crti_has_cet || return 0
    readelf -n "$1" | has 'x86 feature: IBT, SHSTK'
}

check "rdrand.so exists with no lib prefix" test -f "$so"
check "rdrand.so exports exactly OSSL_provider_init and rdrand_status" \
    exports_only_init "$so"
check "rdrand.so's rdrand_status is a data object of RDRAND_STATUS_SIZE bytes" \
    exports_status_block "$so"
check "rdrand.so carries no simulation (no RDRAND_SIM)" no_simulation "$so"
check "rdrand.so carries no test-only function (those of tests/seams/seams.h)" \
    no_test_hooks "$so"
check "no module source names a test seam (provider/)" no_seam_in_sources
check "rdrand.so has no out-of-line copy of a health step (RDRAND_STEP)" \
    steps_inlined "$so"
check "rdrand.so imports no getenv" no_getenv "$so"
check "rdrand.so is linked with -z now" bind_now "$so"
check "rdrand.so stays mapped after dlclose (-z nodelete)" no_delete "$so"
check "rdrand.so has full RELRO (GNU_RELRO and BIND_NOW)" full_relro "$so"
check "rdrand.so has a non-executable stack (GNU_STACK RW)" \
    stack_not_exec "$so"
check "rdrand.so is built with stack protection (__stack_chk_fail)" \
    stack_protector "$so"
if [ "${RDRAND_FORTIFY:?}" != 0 ]; then
    # The level is not visible in the module: none of its calls has a
    # size only =3's __builtin_dynamic_object_size knows.  What this
    # proves is that FORTIFY took effect at all (it needs optimisation).
    check "rdrand.so is fortified (a __*_chk import; level $RDRAND_FORTIFY asked)" \
        fortified "$so"
else
    echo "skip - _FORTIFY_SOURCE: not applied to Debug or sanitizer builds"
fi
# FORTIFY asked for without optimisation does nothing, silently (glibc
# 2.36): provider/params.c refuses to compile then; with -O2 it compiles.
src=$(dirname "$0")/../provider/params.c
fortify_cc() {
    # shellcheck disable=SC2046 # pkg-config prints several words
    gcc -fsyntax-only -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2 "$@" \
        $(pkg-config --cflags libcrypto) "$src" 2>&1
}
fortify_needs_optimisation() {
    local out
    if out=$(fortify_cc -O0); then return 1; fi
    [[ $out == *'without optimisation'* ]] && fortify_cc -O2 >/dev/null
}
check "FORTIFY without optimisation fails the build (params.c #error)" \
    fortify_needs_optimisation
check "rdrand.so is built with -fcf-protection (ENDBR64, CET note)" cet "$so"
check "rdrand-sim.so exports exactly OSSL_provider_init and rdrand_status" \
    exports_only_init "$sim"
check "rdrand-sim.so's rdrand_status is a data object of RDRAND_STATUS_SIZE bytes" \
    exports_status_block "$sim"
# mix = os (docs/mix.md): the mix and its SHA-256 call nothing of
# libcrypto but OPENSSL_cleanse, so the seed path cannot recurse into
# the RAND machinery; the rest is the module's own (rdrand_*), libc's
# string and errno helpers, the GOT and the compilers' instrumentation.
mix_calls_no_libcrypto() {
    local o bad found=0
    for o in "$RDRAND_BUILD_DIR"/CMakeFiles/rdrand_core.dir/provider/{mix,sha256}.c.o; do
        [ -f "$o" ] || return 1
        found=$((found + 1))
        bad=$(nm -u "$o" | awk '{print $2}' | grep -Ev \
            '^(OPENSSL_cleanse|rdrand_[a-z0-9_]+|_GLOBAL_OFFSET_TABLE_|__errno_location|mem(cpy|set)|__mem(cpy|set)_chk|(__)?snprintf(_chk)?|__stack_chk_fail|__(asan|ubsan|tsan|sanitizer)_[A-Za-z0-9_]+)$')
        [ -z "$bad" ] || {
            echo "$o calls: $bad"
            return 1
        }
    done
    [ "$found" = 2 ]
}
check "mix.c and sha256.c call nothing of libcrypto but OPENSSL_cleanse" \
    mix_calls_no_libcrypto
finish
