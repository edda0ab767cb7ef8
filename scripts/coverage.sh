#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Line and branch coverage of provider/ and tools/ (gcov, Debug build,
# no sanitizer), from the unit, integration and CLI tests, per directory
# and per file.  A line or branch counts as covered when any object built
# from that source (rdrand.so, rdrand-sim.so, the test binaries, the tool)
# ran it.  Usage: scripts/coverage.sh [--report-only] [BUILD_DIR]
# (default build-cov; --report-only: the counts the last run left).
#   RDRAND_COVERAGE_TESTS: the ctest label regex (default unit|cli|integration)
#   RDRAND_COVERAGE_LIST=1: also list every line with a branch never taken
# A branch that no test can take is marked on its line in the code with
# "/* unreachable: WHY */"; it is counted apart, never as covered.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh python3
report_only=0
if [ "${1:-}" = --report-only ]; then
    report_only=1
    shift
fi
dir=${1:-build-cov}
labels=${RDRAND_COVERAGE_TESTS:-unit|cli|integration}

status=0
if [ "$report_only" = 0 ]; then
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DRDRAND_SANITIZE= \
        "-DCMAKE_C_FLAGS=--coverage -DRDRAND_COVERAGE" \
        -DCMAKE_EXE_LINKER_FLAGS=--coverage \
        -DCMAKE_SHARED_LINKER_FLAGS=--coverage >/dev/null
    cmake --build "$dir" -j "$(nproc)" >/dev/null
    find "$dir" -name '*.gcda' -delete
    # The tests run programs as other users (rdrand-check's service draw
    # as nobody, the tool as nobody): their counts must be writable for
    # them.  The umask also makes the tests' own files world-writable,
    # which two checks of cli_test_check and cli_test_enable_cases
    # refuse: those two fail here, and only here.
    chmod -R a+rwX "$dir"
    # Failures still leave their counts: report them, and fail at the end.
    (umask 000 && ctest --test-dir "$dir" -j "$(nproc)" -L "$labels" \
        -LE '^(long|install)$') >"$dir/coverage-ctest.log" 2>&1 || status=$?
    tail -n 3 "$dir/coverage-ctest.log"
fi
# gcov runs in a directory of its own per object: the paths absolute.
dir=$(cd "$dir" && pwd)

json=$(mktemp -d)
trap 'rm -rf "$json"' EXIT
n=0
while IFS= read -r -d '' gcda; do
    n=$((n + 1))
    # One directory per object: two objects of one source must not
    # overwrite each other's report.
    mkdir -p "$json/$n"
    (cd "$json/$n" && gcov --json-format --branch-probabilities \
        --object-directory "$(dirname "$gcda")" "$gcda" >/dev/null 2>&1) ||
        echo "coverage: gcov could not read $gcda" >&2
done < <(find "$dir" -name '*.gcda' -print0)
python3 - "$json" "$PWD" <<'EOF'
import glob, gzip, json, os, sys

root, top = sys.argv[1], sys.argv[2]
lines, branches = {}, {}  # (file, line) -> covered; (file, line, i) -> taken
for path in glob.glob(os.path.join(root, "*", "*.gcov.json.gz")):
    with gzip.open(path, "rt") as f:
        report = json.load(f)
    cwd = report.get("current_working_directory", top)
    for unit in report["files"]:
        # The build maps the source directory away (-ffile-prefix-map):
        # a relative name is the checkout's.
        f = unit["file"]
        name = os.path.relpath(os.path.normpath(
            f if os.path.isabs(f) else
            os.path.join(top if os.path.exists(os.path.join(top, f)) else cwd, f)), top)
        # Headers too: the health step and the tables' step are inline
        # code (health_step.h, seen_table.h).
        if not name.startswith(("provider/", "tools/")) or not name.endswith((".c", ".h")):
            continue
        for line in unit["lines"]:
            key = (name, line["line_number"])
            lines[key] = lines.get(key, False) or line["count"] > 0
            for i, b in enumerate(line.get("branches", [])):
                bkey = key + (i,)
                branches[bkey] = branches.get(bkey, False) or b["count"] > 0

# A branch that cannot be taken is marked on its line, with why:
# "/* unreachable: WHY */" (WHY says what would have to break first).
# Marked branches are counted apart, never as covered.
marked = {}
def is_marked(f, line):
    if f not in marked:
        try:
            with open(os.path.join(top, f), encoding="utf-8") as src:
                marked[f] = {i + 1 for i, text in enumerate(src)
                             if "/* unreachable: " in text}
        except OSError:
            marked[f] = set()
    return line in marked[f]
excluded = {k for k, hit in branches.items() if not hit and is_marked(k[0], k[1])}
for k in excluded:
    del branches[k]

def table(keyfn):
    out = {}
    for (f, *_), hit in lines.items():
        k = keyfn(f); t = out.setdefault(k, [0, 0, 0, 0]); t[0] += hit; t[1] += 1
    for (f, *_), hit in branches.items():
        k = keyfn(f); t = out.setdefault(k, [0, 0, 0, 0]); t[2] += hit; t[3] += 1
    return out

def pct(a, b):
    return f"{100.0 * a / b:5.1f} % ({a} of {b})" if b else "  -"

print(f"{'':24} {'lines':>24}   {'branches':>24}")
for d, (lh, lt, bh, bt) in sorted(table(lambda f: f.split("/")[0] + "/").items()):
    print(f"{d:24} {pct(lh, lt):>24}   {pct(bh, bt):>24}")
print()
for f, (lh, lt, bh, bt) in sorted(table(lambda f: f).items()):
    print(f"{f:24} {pct(lh, lt):>24}   {pct(bh, bt):>24}")
print()
print(f"branches marked unreachable (not counted): {len(excluded)}")
for d in ("provider/", "tools/"):
    missed = sorted((f, l) for (f, l, _), hit in branches.items()
                    if not hit and f.startswith(d))
    print(f"{d} lines with a branch never taken: {len(set(missed))}")
    if os.environ.get("RDRAND_COVERAGE_LIST"):
        for f, l in sorted(set(missed)):
            print(f"  {f}:{l}")
EOF
[ "$status" -eq 0 ] || { echo "coverage: some tests failed (see $dir/coverage-ctest.log)"; exit 1; }
