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
# Then bench/bench_tests: what each continuous health test costs per
# word, in ns and (callgrind, where valgrind is installed) instructions,
# against the budget (the tests <= 3 % of a 4 KiB draw).  Then
# bench/bench_contention: RDRAND on every CPU at once, 10^9 words.
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
    cmake --build "$dir" -j "$(nproc)" --target bench_seed bench_tests \
        bench_contention rdrand \
        >/dev/null
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

# Each health test per word: ns (fastest batch, the loop's own cost off).
tests_args=()
[ "$short" = 1 ] && tests_args=(-n 512 -r 3)
"$dir/bench/bench_tests" "${tests_args[@]}" || status=$?
# And instructions per word, each step's function alone (callgrind is
# exact where timings are not); the loop's own instructions are taken off.
if nm -D "$dir/bench/bench_tests" 2>/dev/null | grep -E '__(a|t)san_init' >/dev/null; then
    # valgrind cannot run a sanitizer's runtime, and its counts would be
    # the instrumentation's.
    echo "bench_tests: a sanitizer build, no instruction counts"
elif command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null
then
    words=65536
    [ "$short" = 1 ] && words=512
    cg=$(mktemp)
    valgrind -q --tool=callgrind --toggle-collect='bench_step_*' \
        --callgrind-out-file="$cg" "$dir/bench/bench_tests" -n "$words" -r 1 \
        >/dev/null || status=1
    callgrind_annotate --inclusive=yes --threshold=100 "$cg" | awk -v n="$words" '
        # A function'"'"'s first line is its inclusive total (the lines are
        # sorted by cost); with debug information, code inlined into it
        # from other files gets lines of its own after it.
        match($0, /bench_step_[a-z_]+/) {
            name = substr($0, RSTART + 11, RLENGTH - 11)
            gsub(",", "", $1)
            if (!(name in cost))
                cost[name] = $1
        }
        END {
            split("digest repeat seen stuck apt bits", t, " ")
            loop = cost["loop"] / n
            printf "instructions per word (callgrind, the loop'"'"'s %.1f off):\n", loop
            for (i = 1; i <= 6; i++) {
                if (!(t[i] in cost)) { print "FAILED: no count for " t[i]; exit 1 }
                printf "  %-8s %6.1f\n", t[i], cost[t[i]] / n - loop
                printf "bench: test_%s_instructions=%.1f\n", t[i], cost[t[i]] / n - loop
            }
            plain = cost["draw_plain"] / n; health = cost["draw_health"] / n
            printf "  draw 4 KiB: %.1f with the tests, %.1f without\n", health, plain
            printf "bench: tests_added_instructions=%.1f\n", health - plain
        }' || status=1
    rm -f "$cg" "$cg".*
else
    echo "bench_tests: no valgrind, no instruction counts"
fi

# RDRAND on every CPU at once (issue 33): CF=0 per 10^9 words, latency
# per CPU against one thread alone.  10^9 words in all (the figure
# docs/performance.md records); RDRAND_CONTENTION_WORDS changes it.
cwords=${RDRAND_CONTENTION_WORDS:-1e9} cbase=1e7
if [ "$short" = 1 ]; then cwords=2e4 cbase=1e4; fi
rc=0
"$dir/bench/bench_contention" -n "$cwords" -b "$cbase" || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 77 ] || status=1

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
