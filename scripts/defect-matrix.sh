#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue 19's table: defect class x request pattern -> bytes the provider
# delivered after the defect started and before the first trip, and after
# it (the goal: 0), through the real libcrypto and tests/rdrand-sim.so.
# Builds bench/defect_matrix and the module, then prints the markdown
# table on stdout (the goals each cell misses also go to stderr).
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
    cmake --build "$dir" -j 2 --target defect_matrix rdrand-sim >/dev/null
fi
# No system openssl.cnf and no inherited simulated CPU: each cell sets its own.
OPENSSL_CONF=/dev/null RDRAND_SIM='' \
    exec "$dir/bench/defect_matrix" "$@" "$dir/tests/rdrand-sim.so"
