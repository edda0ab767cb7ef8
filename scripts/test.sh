#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole test suite: install what is missing, build with -Werror, run
# every test (unit, real CPU, real openssl CLI, valgrind, lint), then
# build and run the whole suite again under ASan+UBSan, and the unit tests
# (the threaded ones among them) under TSan.
#   RDRAND_TEST_LONG=0 skips the labelled "long" tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# Packaging tests (tests/check_install.sh): dpkg-shlibdeps and file for
# cpack's Depends, lintian, and man-page linting (groff, mandoc, man).
scripts/deps.sh shellcheck clang-format valgrind binutils \
    dpkg-dev file lintian mandoc groff-base man-db

jobs=$(nproc)
long=${RDRAND_TEST_LONG:-1}
exclude=()
[ "$long" = 1 ] || exclude=(-LE long)

suite() { # suite BUILD_DIR CTEST_SELECTION CMAKE_ARGS...
    local dir=$1 selection=$2
    shift 2
    echo "==== $dir: configure and build ($*)"
    cmake -S . -B "$dir" -DRDRAND_WERROR=ON "$@" >/dev/null
    cmake --build "$dir" -j "$jobs" >/dev/null
    echo "==== $dir: ctest $selection"
    # shellcheck disable=SC2086 # the selection is a list of ctest options
    ctest --test-dir "$dir" --output-on-failure -j "$jobs" \
        "${exclude[@]}" $selection
}

suite build "" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDRAND_SANITIZE=
suite build-asan "" -DCMAKE_BUILD_TYPE=Debug \
    -DRDRAND_SANITIZE=address,undefined
suite build-tsan "-L unit" -DCMAKE_BUILD_TYPE=Debug -DRDRAND_SANITIZE=thread
