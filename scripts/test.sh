#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole test suite: install what is missing, build with -Werror, run
# every test (unit, real CPU, real openssl CLI, lint), then build and run
# the whole suite again under ASan+UBSan.
#   RDRAND_TEST_LONG=0 skips the labelled "long" tests.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh shellcheck clang-format

jobs=$(nproc)
long=${RDRAND_TEST_LONG:-1}
exclude=()
[ "$long" = 1 ] || exclude=(-LE long)

suite() { # suite BUILD_DIR CMAKE_ARGS...
    local dir=$1
    shift
    echo "==== $dir: configure and build ($*)"
    cmake -S . -B "$dir" -DRDRAND_WERROR=ON "$@" >/dev/null
    cmake --build "$dir" -j "$jobs" >/dev/null
    echo "==== $dir: ctest"
    ctest --test-dir "$dir" --output-on-failure -j "$jobs" "${exclude[@]}"
}

suite build -DCMAKE_BUILD_TYPE=RelWithDebInfo
suite build-asan -DCMAKE_BUILD_TYPE=Debug -DRDRAND_SANITIZE=address,undefined
