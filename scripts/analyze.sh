#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Static analysis of the provider's sources: cppcheck, clang-tidy (checks
# and the reason for each one turned off in .clang-tidy) and scan-build
# (the clang static analyzer over a full build).  Zero findings in
# provider/ or the script fails.  Usage: scripts/analyze.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh cppcheck clang-tidy clang-tools clang

dir=${1:-build-analyze}
jobs=$(nproc)
cmake -S . -B "$dir" -DRDRAND_BUILD_TESTS=OFF \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null

echo "==== cppcheck provider/ (.cppcheck-known: exact known false positives)"
# Paths relative to the checkout wherever the build directory is, one
# finding a line; compared whole with the known list, both ways.
found=$(cppcheck --enable=warning,style,performance,portability --std=c11 \
    --inline-suppr --quiet -j "$jobs" -I provider -I include \
    --relative-paths="$PWD" --template='{file}|{id}|{message}' \
    --project="$dir/compile_commands.json" 2>&1 >/dev/null | sort -u)
known=$(grep -v -e '^#' -e '^$' .cppcheck-known | sort -u)
if [ "$found" != "$known" ]; then
    echo "cppcheck findings (+) or stale .cppcheck-known entries (-):"
    diff <(echo "$known") <(echo "$found") | grep '^[<>]' |
        sed -e 's/^>/+/' -e 's/^</-/'
    exit 1
fi

echo "==== clang-tidy provider/ (.clang-tidy)"
clang-tidy -p "$dir" --quiet provider/*.c 2>&1 |
    { grep -v '^[0-9]* warnings\? generated\.$' || true; }

echo "==== scan-build (clang static analyzer)"
rm -rf "$dir/scan"
scan-build -o "$dir/scan/report" cmake -S . -B "$dir/scan" \
    -DRDRAND_BUILD_TESTS=OFF -DRDRAND_WERROR=ON >/dev/null
scan-build --status-bugs -o "$dir/scan/report" \
    cmake --build "$dir/scan" -j "$jobs" >/dev/null
echo "==== static analysis: no findings"
