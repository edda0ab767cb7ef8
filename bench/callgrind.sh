#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Instructions per operation of each bench_seed variant, counted by
# callgrind inside bench_batch only: repeatable on a loaded machine where
# timings are not.  Optionally the functions that cost the most.
#   bench/callgrind.sh BENCH_SEED [ROW...]    (default: every row)
#   CALLGRIND_TOP=N   also list the N costliest functions of each row
#   CALLGRIND_OPS=N   operations counted per row (default 2000)
set -euo pipefail
bench=${1:?usage: bench/callgrind.sh path/to/bench_seed [ROW...]}
shift
# rdrand.so next to the benchmark's build, no system openssl.cnf.
OPENSSL_MODULES=${OPENSSL_MODULES:-$(cd "$(dirname "$bench")/.." && pwd)}
export OPENSSL_MODULES OPENSSL_CONF=/dev/null
ops=${CALLGRIND_OPS:-2000}
top=${CALLGRIND_TOP:-0}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rows=("$@")
if [ ${#rows[@]} -eq 0 ]; then
    mapfile -t rows < <("$bench" -n 1 -r 1 |
        awk '$1 ~ /^[0-9]+$/ && NF >= 7 { print $1 }')
fi
for row in "${rows[@]}"; do
    valgrind -q --tool=callgrind --toggle-collect=bench_batch \
        --callgrind-out-file="$out/$row" "$bench" -n "$ops" -r 1 \
        -v "$row" >"$out/$row.txt"
    total=$(callgrind_annotate "$out/$row" | awk '/PROGRAM TOTALS/ {
        gsub(",", "", $1); print $1 }')
    printf '%-60s %8.1f instructions/op\n' "$(cut -d: -f1 "$out/$row.txt")" \
        "$((total * 10 / ops))e-1"
    if [ "$top" -gt 0 ]; then
        callgrind_annotate "$out/$row" | awk -v ops="$ops" -v top="$top" '
            /file:function/ { on = 1; next }
            on && NF >= 3 && n < top { v = $1; gsub(",", "", v)
                f = $0; sub(/^.*%\) +/, "", f); sub(/ \[.*$/, "", f)
                sub(/^.*:/, "", f)
                printf "      %8.1f  %s\n", v / ops, f; n++ }'
    fi
done
