#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 19's table: defect class x request pattern -> bytes the provider
# delivered after the defect started and before the first trip, and after
# it (the goal: 0), through the real libcrypto and tests/rdrand-sim.so.
# Builds bench/defect_matrix and the module, then prints the markdown
# table on stdout (the goals each cell misses also go to stderr), then
# issue 31's fork rows (bench/fork_repeats: a child per request, the
# simulated CPU's stream shared with the children, cycles of 12, 100 and
# 1000 words, the constant 4 in 8-byte requests, a constant every 64th
# word; the goal: no child's output repeats another's).
#   scripts/defect-matrix.sh [--no-build] [defect_matrix options]
#     --no-build  use the build in RDRAND_MATRIX_DIR as it is
#     options     bench/defect_matrix.c's: --check, -d BUDGET, -a AFTER,
#                 -t SECONDS, -r ROW, -p PATTERNS
#   RDRAND_MATRIX_DIR=dir   build directory (default build)
set -euo pipefail
cd "$(dirname "$0")/.."

build=1
if [ "${1:-}" = --no-build ]; then
    build=0
    shift
fi
dir=${RDRAND_MATRIX_DIR:-build}
if [ "$build" = 1 ]; then
    scripts/deps.sh
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$dir" -j 2 --target defect_matrix fork_repeats rdrand-sim \
        >/dev/null
fi
# No system openssl.cnf and no inherited simulated CPU: each cell sets its own.
status=0
OPENSSL_CONF=/dev/null RDRAND_SIM='' \
    "$dir/bench/defect_matrix" "$@" "$dir/tests/rdrand-sim.so" || status=$?
echo
echo "Fork per request (600 children, 32 bytes each, from RAND_bytes and from the seed source itself):"
for period in 12 100 1000; do
    for raw in "" --raw; do
        # shellcheck disable=SC2086 # "" is no option
        "$dir/bench/fork_repeats" $raw "$dir/tests" conf/rdrand-sim.cnf 600 32 \
            "$period" 2>/dev/null || status=1
    done
done
echo
echo "Fork per request, generated defects from the first child's first word (600 children; from RAND_bytes and from the seed source itself):"
for defect in "8 value=4" "32 every=64:243F6A8885A308D3"; do
    for raw in "" --raw; do
        # shellcheck disable=SC2086 # "" is no option; $defect: BYTES ITEM
        "$dir/bench/fork_repeats" $raw "$dir/tests" conf/rdrand-sim.cnf 600 \
            $defect 2>/dev/null || status=1
    done
done
exit "$status"
