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
# A branch that no test can take is marked on its line in a .c file with
# "/* unreachable: WHY */": the line's one untaken branch is counted
# apart; a mark on a line with none untaken (stale) or several is an error.
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
    if ! (cd "$json/$n" && gcov --json-format --branch-probabilities \
        --object-directory "$(dirname "$gcda")" "$gcda" >/dev/null 2>&1); then
        echo "coverage: gcov could not read $gcda" >&2
        status=1
    fi
done < <(find "$dir" -name '*.gcda' -print0)
[ "$n" -gt 0 ] || { echo "coverage: no counts in $dir" >&2; exit 1; }
python3 - "$json" "$PWD" <<'EOF' || status=1
import glob, gzip, json, os, re, sys

root, top = sys.argv[1], sys.argv[2]
# (file, line) -> covered; a branch -> taken.  A .c file's branch is
# (file, line, i): every object of one source has the same branches.  A
# header's inline code has a copy per caller, and objects hold different
# numbers of copies, so its branch is (file, line, source, i): the copies
# in the objects of one source (rdrand.so's, the test modules', the unit
# tests' through tests/seams/), only those of the project's own sources
# (a test's own copies prove nothing about the module's).
lines, branches = {}, {}
errors = []
for path in glob.glob(os.path.join(root, "*", "*.gcov.json.gz")):
    with gzip.open(path, "rt") as f:
        report = json.load(f)
    cwd = report.get("current_working_directory", top)
    data = report.get("data_file", "")
    source = re.sub(r"(_seams)?\.c\.gcda$", ".c", os.path.basename(data))
    ours = re.search(r"/(provider|tools|tests/seams)/[^/]*\.gcda$", data)
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
        header = name.endswith(".h")
        if header and not ours:
            continue
        for line in unit["lines"]:
            key = (name, line["line_number"])
            lines[key] = lines.get(key, False) or line["count"] > 0
            for i, b in enumerate(line.get("branches", [])):
                bkey = key + ((source, i) if header else (i,))
                branches[bkey] = branches.get(bkey, False) or b["count"] > 0

# A branch that cannot be taken is marked on its line, with why:
# "/* unreachable: WHY */" (WHY says what would have to break first), in
# a .c file.  A mark excludes its line's one untaken branch; a mark on a
# line with no untaken branch (stale: a test takes it) or with more than
# one (which one is meant?) is an error, and excludes nothing.
excluded = set()
for f in sorted({k[0] for k in lines}):
    with open(os.path.join(top, f), encoding="utf-8", errors="replace") as src:
        marks = [i + 1 for i, text in enumerate(src) if "/* unreachable: " in text]
    for line in marks:
        mine = [k for k in branches if k[0] == f and k[1] == line]
        untaken = [k for k in mine if not branches[k]]
        if f.endswith(".h"):
            errors.append(f"{f}:{line}: a mark in a header (copies differ)")
        elif len(untaken) != 1:
            errors.append(f"{f}:{line}: a mark on a line with "
                          f"{len(untaken)} untaken branches of {len(mine)}")
        else:
            excluded.add(untaken[0])
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
    missed = sorted((k[0], k[1]) for k, hit in branches.items()
                    if not hit and k[0].startswith(d))
    print(f"{d} lines with a branch never taken: {len(set(missed))}")
    if os.environ.get("RDRAND_COVERAGE_LIST"):
        for f, l in sorted(set(missed)):
            print(f"  {f}:{l}")
for e in errors:
    print(f"coverage: {e}", file=sys.stderr)
sys.exit(1 if errors else 0)
EOF
[ "$status" -eq 0 ] || {
    echo "coverage: a test failed ($dir/coverage-ctest.log), gcov could" \
        "not read a count, or a mark is wrong (above)"
    exit 1
}
