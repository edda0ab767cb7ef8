#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole test suite: install what is missing, build with -Werror, run
# every test (unit, real CPU, real openssl CLI, valgrind, lint), then
# build and run the whole suite again under ASan+UBSan, and the unit tests
# (the threaded ones among them) under TSan. Then, for each OpenSSL series
# in RDRAND_OPENSSL_SERIES (default "3.5 4.0": Debian 13's LTS and the
# newest release; 3.6, past its end of life, on demand), fetch and build it
# once (scripts/openssl-build.sh, cached outside the checkout) and run the
# whole uninstrumented suite again against it (build-ossl-<series>): its
# libcrypto, its openssl binary, its FIPS provider. Then the README's
# first command inside fresh minimal Debian 12 and 13 systems and the .deb
# built there (tests/fresh/fresh-debian.sh). Then static analysis
# (scripts/analyze.sh) and each libFuzzer harness for a bounded time
# (scripts/fuzz.sh; RDRAND_FUZZ_SECONDS, default 60, 0 skips fuzzing).
#   RDRAND_TEST_LONG=0 skips the labelled "long" tests.
#   RDRAND_FRESH_RELEASES="" leaves out the fresh systems ("bookworm trixie").
#   RDRAND_OPENSSL_SERIES="" runs the system OpenSSL only (Debian 12: 3.0,
#   Debian 13: 3.5); "3.5 3.6 4.0" adds 3.6.
#   RDRAND_OPENSSL_PATCHED="" leaves out 4.0 built with docs/upstream's
#   patches (build-ossl-4.0-patched).
set -euo pipefail
cd "$(dirname "$0")/.."

# Packaging tests (tests/check_install.sh): dpkg-shlibdeps and file for
# cpack's Depends, lintian, and man-page linting (groff, mandoc, man).
# Building OpenSSL 3.5/3.6/4.0 (scripts/openssl-build.sh): dpkg-dev, perl,
# xz-utils, flock (util-linux), patch.
# rdrand-check's tests (tests/cli/test_check.sh): promtool (prometheus),
# Debian's python3 (json.tool), systemd-analyze (systemd), setfacl (acl).  The fresh
# systems: debootstrap (tests/fresh/fresh-debian.sh installs the rest).
scripts/deps.sh shellcheck clang-format valgrind binutils debootstrap \
    dpkg-dev file lintian mandoc groff-base man-db perl xz-utils util-linux patch \
    prometheus python3 systemd acl

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
    local start=$SECONDS
    # shellcheck disable=SC2086 # the selection is a list of ctest options
    ctest --test-dir "$dir" --output-on-failure -j "$jobs" \
        "${exclude[@]}" $selection
    echo "==== $dir: passed in $((SECONDS - start)) s"
}

suite build "" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDRAND_SANITIZE=
suite build-asan "" -DCMAKE_BUILD_TYPE=Debug \
    -DRDRAND_SANITIZE=address,undefined
suite build-tsan "-L unit" -DCMAKE_BUILD_TYPE=Debug -DRDRAND_SANITIZE=thread

# The same suite against other OpenSSL releases. PKG_CONFIG_PATH makes
# CMake build against that libcrypto (and find that openssl binary next to
# it, cmake/RdrandTesting.cmake); cli_test_ossl_versions checks that both
# are the version built. Not the install tests: they install and package
# for the system's OpenSSL (Debian's libssl3), not for a private build.
if [ "$long" = 1 ]; then exclude=(-LE '^install$'); else
    exclude=(-LE '^(long|install)$')
fi
ossl_suite() { # ossl_suite SERIES [PATCH...]: build it (with them), run
    local series=$1 start=$SECONDS prefix version dir
    prefix=$(scripts/openssl-build.sh "$@" | tail -n 1)
    echo "==== OpenSSL $series: $prefix ($((SECONDS - start)) s to fetch/build)"
    dir=build-ossl-$series
    [ "$#" -eq 1 ] || dir=$dir-patched
    # A build directory configured against another install (an older
    # cached version) would keep it: CMake caches what pkg-config found.
    if [ -f "$dir/CMakeCache.txt" ] \
        && ! grep -qF "$prefix/lib" "$dir/CMakeCache.txt"; then
        rm -rf "$dir"
    fi
    version=${prefix##*/openssl-}
    PKG_CONFIG_PATH=$prefix/lib/pkgconfig \
        RDRAND_EXPECT_OPENSSL_VERSION=${version%%-*} \
        suite "$dir" "" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDRAND_SANITIZE=
}
for series in ${RDRAND_OPENSSL_SERIES-3.5 4.0}; do
    ossl_suite "$series"
done
# The newest release again, built with the fixes this project proposes
# to OpenSSL (docs/upstream/*.patch): the tests that record an OpenSSL
# bug (test_ossl_versions_first_call, cli_test_upstream) expect it fixed
# there, and every other test still passes.  RDRAND_OPENSSL_PATCHED=""
# leaves it out.
for series in ${RDRAND_OPENSSL_PATCHED-4.0}; do
    ossl_suite "$series" docs/upstream/*.patch
done

# The README's first command in fresh minimal Debian 12 and 13 systems
# (debootstrap --variant=minbase, cached, unpacked anew), then the .deb
# built there, installed there and checked (tests/fresh/fresh-debian.sh).
# A skip (exit 77: not root, no RDRAND) is said so, never counted as a
# pass.  RDRAND_FRESH_RELEASES="" leaves them out.
for release in ${RDRAND_FRESH_RELEASES-bookworm trixie}; do
    start=$SECONDS
    echo "==== fresh $release: the README's commands on a minimal system"
    rc=0
    tests/fresh/fresh-debian.sh "$release" || rc=$?
    case $rc in
    0) echo "==== fresh $release: passed in $((SECONDS - start)) s" ;;
    77) echo "==== fresh $release: SKIPPED, NOT RUN (the reason is above)" ;;
    *)
        echo "==== fresh $release: FAILED (exit $rc)"
        exit 1
        ;;
    esac
done

scripts/analyze.sh build-analyze
if [ "${RDRAND_FUZZ_SECONDS:-60}" = 0 ]; then
    echo "==== fuzzing NOT run (RDRAND_FUZZ_SECONDS=0)"
else
    echo "==== fuzzing, ${RDRAND_FUZZ_SECONDS:-60} s per harness"
    scripts/fuzz.sh build-fuzz
fi
