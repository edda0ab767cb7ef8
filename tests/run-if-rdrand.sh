#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Run "$@" only if the real module says this CPU has RDRAND; else exit 77
# (ctest's skip code), so a machine without RDRAND reports a skip.
set -euo pipefail
available=$("$RDRAND_BUILD_DIR/rdrand-params" -l rdrand-available)
if [ "$available" != 1 ]; then
    echo "SKIP: CPUID reports no RDRAND on this machine"
    exit 77
fi
exec "$@"
