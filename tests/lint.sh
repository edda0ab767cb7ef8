#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shellcheck disable=SC2317 # the helpers below are called through check
# Shell scripts pass shellcheck; C sources are clang-format clean; every
# source file carries an SPDX header.
set -uo pipefail
cd "${RDRAND_SOURCE_DIR:?}" || exit 1
# shellcheck source=tests/checks.sh
. "$(dirname "$0")/checks.sh"
mapfile -t shells < <(find scripts tests bench .ci -name '*.sh' -o -path .ci/run)
mapfile -t csrc < <(find provider include tests tools docs bench \
    -name '*.[ch]' 2>/dev/null)
missing_spdx() {
    ! grep -L 'SPDX-License-Identifier: Apache-2.0' "$@" | grep .
}

check "shellcheck: ${#shells[@]} scripts" shellcheck -x "${shells[@]}"
check "clang-format: ${#csrc[@]} C files" \
    clang-format --dry-run -Werror "${csrc[@]}"
check "SPDX header on every source file" \
    missing_spdx "${shells[@]}" "${csrc[@]}" CMakeLists.txt
finish
