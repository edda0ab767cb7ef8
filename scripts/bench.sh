#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Build bench/bench_seed (Release) and run it on this machine's real CPU:
# every figure of issue 13 from one process (raw RDRAND loop, the draw
# with and without health tests, get_seed, EVP_RAND_generate on RDRAND
# and SEED-SRC contexts, prediction-resistant CTR-DRBGs, 2 threads vs 1,
# loading rdrand.so and its CoCo check, and issue 12's conditioning =
# reduce512 against none and SEED-SRC: a 48-byte seed, a CTR-DRBG pr=1;
# issue 22's mix = os against mix = none and SEED-SRC, in both
# conditioning modes, the same two), then "openssl speed rand" at
# 16 KiB without and with conf/rdrand.cnf, alternated, as two processes
# per round.  Each ratio is printed once more as "bench: NAME=VALUE".
#   scripts/bench.sh [--short] [--no-build] [bench_seed options]
#     --short     smoke run: tiny batches, 1 s speed runs (the numbers
#                 mean nothing; the suite checks that every name prints)
#     --no-build  use the build in RDRAND_BENCH_DIR as it is
#   RDRAND_BENCH_DIR=dir   build directory (default build-bench)
set -euo pipefail
cd "$(dirname "$0")/.."

short=0 build=1
while [ $# -gt 0 ]; do
    case $1 in
    --short) short=1 ;;
    --no-build) build=0 ;;
    *) break ;;
    esac
    shift
done
dir=${RDRAND_BENCH_DIR:-build-bench}
openssl=${OPENSSL_BIN:-openssl}
if [ "$build" = 1 ]; then
    scripts/deps.sh
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$dir" -j "$(nproc)" --target bench_seed rdrand >/dev/null
fi
modules=$(cd "$dir" && pwd)
args=("$@")
rounds=5
if [ "$short" = 1 ]; then
    args=(-n 10 -r 3 "$@")
    rounds=1
fi

# A fresh library context per measurement; no system openssl.cnf.
status=0
OPENSSL_CONF=/dev/null OPENSSL_MODULES=$modules \
    "$dir/bench/bench_seed" "${args[@]}" || status=$?
[ "$status" = 77 ] && exit 77

# bytes/s of "openssl speed rand" at 16 KiB, one second, machine-readable.
speed() { # speed OPENSSL_CONF
    OPENSSL_CONF=$1 OPENSSL_MODULES=$modules \
        "$openssl" speed -mr -seconds 1 -bytes 16384 rand 2>/dev/null |
        awk -F: '$1 == "+F" { print $NF }'
}
without=() with=()
for ((i = 0; i < rounds; i++)); do
    without+=("$(speed /dev/null)")
    with+=("$(speed conf/rdrand.cnf)")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
    END { if (NR) print v[int((NR + 1) / 2)] }'; }
a=$(median "${without[@]}") b=$(median "${with[@]}")
if [ -z "$a" ] || [ -z "$b" ]; then
    echo "FAILED: openssl speed rand printed no result" >&2
    exit 1
fi
awk -v a="$a" -v b="$b" -v n="$rounds" 'BEGIN {
    printf "openssl speed -seconds 1 -bytes 16384 rand, median of %d:\n", n
    printf "  without config %.1f MB/s, with conf/rdrand.cnf %.1f MB/s\n",
        a / 1e6, b / 1e6
    printf "  with / without %.3f x speed (target >= 0.98)\n", b / a
    printf "bench: speed_rand_16k_ratio=%.3f\n", b / a }'
exit "$status"
