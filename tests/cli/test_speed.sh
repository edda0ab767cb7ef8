#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# openssl speed rand runs with the provider as seed source.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck disable=SC2046
run $(sim_env "") -- "$OPENSSL_BIN" speed -seconds 1 rand
check "sim: speed -seconds 1 rand exits 0" exited_ok
check "sim: prints a rand row" stdout_has '^rand '

finish
