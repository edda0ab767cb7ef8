#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The benchmark runs (short mode, timings never judged) and prints every
# figure of issues 13, 12 and 22 exactly once as "bench: NAME=NUMBER",
# and bench_tests' cost of each health test per word (ns; instructions
# where valgrind is installed).
set -uo pipefail
: "${RDRAND_BUILD_DIR:?set by ctest}" "${RDRAND_SOURCE_DIR:?}"
# shellcheck source=tests/checks.sh
. "$RDRAND_SOURCE_DIR/tests/checks.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
check_failed() { sed 's/^/  | /' "$out"; }

RDRAND_BENCH_DIR=$RDRAND_BUILD_DIR \
    bash "$RDRAND_SOURCE_DIR/scripts/bench.sh" --short --no-build >"$out" 2>&1
status=$?
if [ "$status" = 77 ]; then
    echo "SKIP: no RDRAND on this CPU"
    exit 77
fi
check "scripts/bench.sh --short exits 0" test "$status" -eq 0
for name in generate_4k_vs_raw generate_48_vs_raw6 generate_48_vs_seed_src \
    get_seed_48_vs_raw6 health_vs_no_health_4k pr_drbg_vs_seed_src \
    threads2_scaling_vs_raw speed_rand_16k_ratio load_unload_us \
    coco_check_us coco_detect_us seed_48_none_vs_seed_src \
    seed_48_reduce512_vs_seed_src pr_drbg_reduce512_vs_seed_src \
    seed_48_none_us seed_48_reduce512_us seed_48_mix_vs_none \
    seed_48_mix_vs_seed_src seed_48_reduce512_mix_vs_seed_src \
    pr_drbg_mix_vs_none pr_drbg_mix_vs_seed_src \
    pr_drbg_reduce512_mix_vs_seed_src seed_48_mix_us test_loop_ns \
    test_digest_ns test_repeat_ns test_seen_ns test_stuck_ns test_apt_ns \
    test_bits_ns test_rdrand_ns test_draw_plain_ns test_draw_health_ns \
    tests_added_ns tests_added_vs_draw contention_cf0_per_1e9 \
    contention_p50_vs_alone; do
    check "prints bench: $name once, with a number" test "$(grep -cE \
        "^bench: $name=-?[0-9]+\.[0-9]+$" "$out")" = 1
done
expected=37
if grep -q '^bench_tests: a sanitizer build' "$out"; then
    # shellcheck disable=SC2317 # called through check
    sanitized() { nm -D "$RDRAND_BUILD_DIR/bench/bench_tests" |
        grep -E '__(a|t)san_init' >/dev/null; }
    check "no instruction counts only because the build is sanitized" sanitized
elif command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null
then
    for name in test_digest_instructions test_repeat_instructions \
        test_seen_instructions test_stuck_instructions test_apt_instructions \
        test_bits_instructions tests_added_instructions; do
        # A count of instructions is never negative (the parse of
        # callgrind_annotate once took an inlined part for the whole).
        check "prints bench: $name once, with a count >= 0" test "$(grep -cE \
            "^bench: $name=[0-9]+\.[0-9]+$" "$out")" = 1
    done
    expected=44
else
    check "says why there are no instruction counts" \
        grep -q '^bench_tests: no valgrind' "$out"
fi
check "no other bench: line" test "$(grep -c '^bench: ' "$out")" = "$expected"
finish
