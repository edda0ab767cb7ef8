# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# For the small check scripts (module, lint): "check WHAT COMMAND..."
# counts and reports; "finish" prints "N passed, N failed" and sets the
# exit status.  A script may define check_failed to show more on failure.
passed=0
failed=0
check() {
    local what=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
        echo "ok - $what"
    else
        failed=$((failed + 1))
        echo "not ok - $what"
        if declare -F check_failed >/dev/null; then check_failed; fi
    fi
}
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
}
