#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Build the libFuzzer harnesses (tests/fuzz: clang, ASan+UBSan) and run
# each one in turn for RDRAND_FUZZ_SECONDS (default 60), starting from its
# committed seed corpus (tests/fuzz/corpus/NAME, only read); what the
# fuzzer finds on the way goes to BUILD_DIR/fuzz/corpus-NAME.  Prints the
# executions per harness; fails, with the crashing input kept in
# BUILD_DIR/fuzz/, on the first finding.  Hours-long runs: docs/hardening.md.
#   Usage: scripts/fuzz.sh [BUILD_DIR] [HARNESS...]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh clang libclang-rt-14-dev

dir=${1:-build-fuzz}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(config params seed sim)
seconds=${RDRAND_FUZZ_SECONDS:-60}

cmake -S . -B "$dir" -DCMAKE_C_COMPILER=clang -DRDRAND_FUZZ=ON \
    -DRDRAND_SANITIZE=address,undefined -DRDRAND_WERROR=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$dir" -j "$(nproc)" \
    --target "${harnesses[@]/#/fuzz_}" >/dev/null

for h in "${harnesses[@]}"; do
    out=$dir/fuzz
    mkdir -p "$out/corpus-$h"
    log=$out/$h.log
    # -timeout: an input that runs 10 s is a finding (a hang), not a stall.
    if ! "$out/fuzz_$h" -max_total_time="$seconds" -timeout=10 \
        -print_final_stats=1 \
        -artifact_prefix="$out/$h-" "$out/corpus-$h" \
        "tests/fuzz/corpus/$h" >"$log" 2>&1; then
        tail -n 40 "$log"
        echo "fuzz_$h: FOUND a failure; input kept as $out/$h-*" >&2
        exit 1
    fi
    execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    echo "fuzz_$h: $execs executions in ${seconds}s, $cov, no finding"
done
