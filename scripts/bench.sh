#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Build bench/bench_seed (Release) and run it on this machine's real CPU:
# the raw RDRAND loop, the no-retry draw with and without the health
# tests, the get_seed path, and a prediction-resistant EVP_RAND_generate
# seeded by RDRAND vs SEED-SRC, as ns/op and ratios from the same run.
#   scripts/bench.sh [bench_seed options: -r REPS, -n OPS]
#   RDRAND_BENCH_DIR=dir   build directory (default build-bench)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
dir=${RDRAND_BENCH_DIR:-build-bench}
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$dir" -j "$(nproc)" --target bench_seed >/dev/null
# A fresh library context per measurement; no system openssl.cnf.
OPENSSL_CONF=/dev/null exec "$dir/bench/bench_seed" "$@"
