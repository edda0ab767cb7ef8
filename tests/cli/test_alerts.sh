#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The shipped alert rules (conf/rdrand.rules.yml): promtool accepts them,
# their unit tests pass (tests/prometheus/rdrand.rules.test.yml: each
# alert firing and not), and on what the real rdrand-check writes for a
# healthy, a once-failing, a dead and a misconfigured simulated machine,
# exactly the alerts meant for it fire: the rules name the metrics and
# labels the tool really writes, not our idea of them.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

CHECK=$RDRAND_BUILD_DIR/rdrand-check
RULES=$CONF/rdrand.rules.yml
PY=/usr/bin/python3
command -v promtool >/dev/null || {
    echo "promtool missing: scripts/test.sh installs Debian's prometheus"
    exit 1
}

run -- promtool check rules "$RULES"
check "promtool check rules: accepted" exited_ok
check "promtool check rules: 7 rules" stdout_has 'SUCCESS: 7 rules found'
run -- promtool test rules \
    "$RDRAND_SOURCE_DIR/tests/prometheus/rdrand.rules.test.yml"
check "promtool test rules: every alert fires and stays quiet as written" \
    exited_ok

# alerts_on PROM_FILE: the names of the alerts that fire after 20
# minutes of a machine whose every check wrote PROM_FILE, with a
# textfile collector that parsed it and saw it rewritten each minute.
alerts_on() {
    local dir=$OUT/alerts
    rm -rf "$dir" && mkdir -p "$dir"
    # No file, or one without rdrand-check's metrics, is not "no alert".
    grep -q '^rdrand_check_exit_code{' "$1" 2>/dev/null || {
        echo "no rdrand-check metrics in $1"
        return
    }
    "$PY" - "$1" "$RULES" >"$dir/test.yml" <<'EOF' || { echo "conversion failed"; return; }
import sys
prom, rules = sys.argv[1], sys.argv[2]
series = []
for line in open(prom, encoding="utf-8"):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    name, value = line.rsplit(" ", 1)
    name = name.replace("{", '{instance="h",', 1) if "{" in name \
        else name + '{instance="h"}'
    series.append((name, value + "x20"))
series.append(('node_textfile_scrape_error{instance="h"}', "0x20"))
series.append(('node_textfile_mtime_seconds{instance="h",'
               'file="/var/lib/prometheus/node-exporter/rdrand.prom"}',
               "0+60x20"))
q = lambda s: "'" + s.replace("'", "''") + "'"
print("rule_files: [%s]" % q(rules))
print("evaluation_interval: 1m")
print("tests:\n  - interval: 1m\n    input_series:")
for s, v in series:
    print("      - series: %s\n        values: %s" % (q(s), q(v)))
print("    promql_expr_test:\n      - expr: 'ALERTS{alertstate=\"firing\"}'")
print("        eval_time: 20m\n        exp_samples: []")
EOF
    # No alert is expected: promtool's complaint lists those that fired.
    # Any other complaint (a test file it cannot read) is not "none".
    if promtool test rules "$dir/test.yml" >"$dir/out" 2>&1; then
        return 0
    fi
    grep -q '^ *got:' "$dir/out" || { echo "promtool: $(cat "$dir/out")"; return; }
    grep -o 'alertname="[A-Za-z]*"' "$dir/out" |
        sed 's/alertname="\(.*\)"/\1/' | sort -u | paste -sd' ' -
}

PROM=$OUT/rdrand.prom
SIM=rdrand-sim
# spec|configuration|exit|the alerts, sorted
for row in "|rdrand-sim.cnf|0|" \
    "fail-at=3|rdrand-sim.cnf|0|RdrandFailing RdrandHealthIntermittent" \
    "fail-from=1|rdrand-sim.cnf|1|RdrandFailing RdrandHealthPermanent RdrandNotSeeding" \
    "|misconfigured|2|RdrandNotSeeding"; do
    IFS='|' read -r spec cnf code want <<<"$row"
    file=$CONF/$cnf
    if [ "$cnf" = misconfigured ]; then
        file=$OUT/misconfigured.cnf
        # No seed = line: libcrypto seeds from the OS.
        sed '/^seed = RDRAND$/d' "$CONF/rdrand-sim.cnf" >"$file"
    fi
    run "OPENSSL_MODULES=$SIM_MODULES" "RDRAND_SIM=$spec" -- "$CHECK" --here \
        -c "$file" --provider $SIM --prometheus -o "$PROM"
    check "rdrand-check, RDRAND_SIM=$spec, $cnf: exit $code" exited_with "$code"
    got=$(alerts_on "$PROM")
    check "RDRAND_SIM=$spec, $cnf: the alerts that fire are '$want' (got '$got')" \
        test "$got" = "$want"
done
finish
