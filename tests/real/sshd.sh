#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shellcheck disable=SC2317 # the helpers below are called through check
# Debian's sshd with the provider enabled machine-wide: what the operator
# documentation says about OpenSSH (docs/operations.md, "OpenSSH is
# seeded by it, per connection"), measured.
#
#   1. The machine's own configuration (rdrand-check --enable's), the real
#      module, no environment: logins work; the listening sshd is seeded
#      by rdrand.so (rdrand-check --pid exit 0) and asks one more seed
#      per accepted connection.
#   2. The same configuration with the simulated CPU (rdrand-sim.so,
#      RDRAND_SIM=fail-while=FILE): while the CPU fails, every new login
#      is refused (sshd: "PRNG is not seeded") and the listener survives;
#      once it works again, logins work again without a restart, while
#      the listener keeps its permanent verdict (--pid exit 1) until it
#      is restarted. sshd (re)started while the CPU fails exits at once
#      (status 255).
#   3. The exemption recipe: sshd given OPENSSL_CONF=the pre---enable file
#      (as the systemd drop-in does) logs in while the CPU fails, and
#      --pid says it is not seeded by the provider (exit 2).
#
# Run as root on a machine (the fresh Debian chroots of
# tests/fresh/fresh-debian.sh) with Debian's openssh-server and
# openssh-client installed, the package installed and enabled, and a
# build tree holding tests/rdrand-sim.so:
#   tests/real/sshd.sh BUILD_DIR STOCK_CONF
# (For a run from a build tree: RDRAND_SSHD_CONF, the enabled file,
# default /etc/ssl/openssl.cnf, given to sshd as OPENSSL_CONF when it is
# another; RDRAND_CHECK, the tool, default rdrand-check from PATH;
# RDRAND_MODULE, the module --pid trusts, default the installed one.)
# Exit 0 all passed, 1 a check failed, 77 skipped (no sshd).
set -uo pipefail
build=$(cd "${1:?usage: sshd.sh BUILD_DIR STOCK_CONF}" && pwd) || exit 1
stock=${2:?usage: sshd.sh BUILD_DIR STOCK_CONF}
enabled=${RDRAND_SSHD_CONF:-/etc/ssl/openssl.cnf}
tool=${RDRAND_CHECK:-rdrand-check}
machine_env=()
[ "$enabled" = /etc/ssl/openssl.cnf ] || machine_env=("OPENSSL_CONF=$enabled")
trust=()
[ -z "${RDRAND_MODULE:-}" ] || trust=(--module "$RDRAND_MODULE")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/checks.sh
. "$here/../checks.sh"
if [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null; then
    echo "SKIP: Debian's openssh-server and openssh-client are not installed"
    exit 77
fi
sim_module=$build/tests/rdrand-sim.so
[ -f "$sim_module" ] || { echo "no $sim_module: build the rdrand-sim target" >&2; exit 1; }

W=$(mktemp -d /tmp/rdrand-sshd.XXXXXX)
chmod 755 "$W"
sshd_pid=""
stop_sshd() {
    [ -z "$sshd_pid" ] || { kill "$sshd_pid" 2>/dev/null; wait "$sshd_pid" 2>/dev/null; }
    sshd_pid=""
}
trap 'stop_sshd; rm -rf "$W"' EXIT
mkdir -p /run/sshd # sshd's privilege-separation directory
ssh-keygen -q -t ed25519 -N "" -f "$W/host" && ssh-keygen -q -t ed25519 -N "" -f "$W/id" &&
    cp "$W/id.pub" "$W/authorized_keys" || exit 1

last_log=$W/sshd.log
check_failed() {
    echo "  --- sshd log:"; tail -n 20 "$last_log" 2>/dev/null | sed 's/^/  | /'
    echo "  --- sshd stderr:"; tail -n 5 "$W/sshd.stderr" 2>/dev/null | sed 's/^/  | /'
    echo "  --- last output:"; sed 's/^/  | /' "$W/out" 2>/dev/null
}

# start_sshd ENV...: Debian's sshd on the first free port of 22220-22229,
# with exactly this environment (a unit's, plus ENV); sets port, sshd_pid.
start_sshd() {
    local p
    for p in 22220 22221 22222 22223 22224 22225 22226 22227 22228 22229; do
        cat >"$W/sshd_config" <<EOF
Port $p
ListenAddress 127.0.0.1
HostKey $W/host
AuthorizedKeysFile $W/authorized_keys
StrictModes no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM yes
PidFile $W/sshd.pid
EOF
        : >"$last_log"
        env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@" \
            /usr/sbin/sshd -D -f "$W/sshd_config" -E "$last_log" \
            2>"$W/sshd.stderr" &
        sshd_pid=$!
        for _ in $(seq 50); do
            kill -0 "$sshd_pid" 2>/dev/null || break
            if grep -q "Server listening on 127.0.0.1 port $p" "$last_log"; then
                port=$p
                return 0
            fi
            sleep 0.1
        done
        stop_sshd
    done
    echo "sshd did not listen on any of ports 22220-22229" >&2
    return 1
}
login() {
    timeout 30 ssh -q -i "$W/id" -p "$port" -o BatchMode=yes \
        -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
        root@127.0.0.1 true </dev/null
}
logins_ok() { # logins_ok N: N logins in a row succeed
    local _
    for _ in $(seq "$1"); do login || return 1; done
}
logins_refused() { # logins_refused N: N logins in a row fail
    local _
    for _ in $(seq "$1"); do ! login || return 1; done
}
# pid_check ARGS...: rdrand-check --pid of the listener; status in rc
pid_check() {
    "$tool" --pid "$sshd_pid" "$@" >"$W/out" 2>&1
    rc=$?
}
seeds() { sed -n 's/^  seed-requests = //p' "$W/out"; }

# ---- 1. the machine's configuration, the real module ----
check "machine-wide: sshd starts with no environment" start_sshd "${machine_env[@]}"
pid_check "${trust[@]}"
check "machine-wide: rdrand-check --pid of the listening sshd: exit 0" [ "$rc" -eq 0 ]
before=$(seeds)
check "machine-wide: 10 logins" logins_ok 10
pid_check "${trust[@]}"
after=$(seeds)
echo "# listener's seed-requests: $before before 10 logins, $after after"
check "machine-wide: the listener asked at least one seed per login" \
    [ "$((after - before))" -ge 10 ]
check "machine-wide: --pid still exit 0" [ "$rc" -eq 0 ]
stop_sshd

# ---- 2. a CPU that fails, then works again ----
# The enabled file with the simulated CPU in place of rdrand.so, its
# warning on stderr (the file says syslog; no syslog daemon here).
sed -e "s|^module = .*rdrand\.so\$|module = $sim_module|" \
    -e 's|^warn = syslog$|warn = stderr|' \
    -e 's|^seed_properties = provider=rdrand$|seed_properties = provider=rdrand-sim|' \
    -e 's|^rdrand = rdrand_sect|rdrand-sim = rdrand_sect|' \
    "$enabled" >"$W/sim.cnf"
check "setup: the enabled file, with the simulated CPU" \
    grep -qx "module = $sim_module" "$W/sim.cnf"
broken=$W/broken
sim_env=("OPENSSL_CONF=$W/sim.cnf" "RDRAND_SIM=fail-while=$broken")
pid_sim=(--module "$sim_module" -p rdrand-sim)
check "failing CPU: sshd starts while the CPU works" start_sshd "${sim_env[@]}"
check "failing CPU: 3 logins while it works" logins_ok 3
# A session opened now must outlive the failure: its command, once
# running (it says so with a file), waits for a file this script writes
# after the refused logins.
timeout 60 ssh -q -i "$W/id" -p "$port" -o BatchMode=yes \
    -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null root@127.0.0.1 \
    "touch $W/started; while [ ! -e $W/go-on ]; do sleep 0.2; done; echo still-open" \
    </dev/null >"$W/session.out" 2>&1 &
session=$!
for _ in $(seq 300); do
    [ -e "$W/started" ] && break
    sleep 0.1
done
check "failing CPU: a session is open, its command running" test -e "$W/started"
touch "$broken"
check "failing CPU: while it fails, 5 logins in a row are refused" logins_refused 5
# A connection's sshd dies before its log is set up: on stderr.
check "failing CPU: sshd says why (PRNG is not seeded)" \
    grep -q "PRNG is not seeded" "$W/sshd.stderr"
check "failing CPU: the provider's warning is on sshd's stderr" \
    grep -q "rdrand-provider: RDRAND reported failure (CF=0)" "$W/sshd.stderr"
check "failing CPU: the listener is still running" kill -0 "$sshd_pid"
touch "$W/go-on"
wait "$session"
session_status=$?
check "failing CPU: the session opened before it goes on, and ends normally" \
    [ "$session_status" -eq 0 ]
check "  ... having run its command to the end" grep -qx still-open "$W/session.out"
pid_check "${pid_sim[@]}"
check "failing CPU: --pid of the listener: exit 1 (unhealthy)" [ "$rc" -eq 1 ]
rm "$broken"
check "CPU working again: 3 logins, without restarting sshd" logins_ok 3
pid_check "${pid_sim[@]}"
check "CPU working again: the listener's verdict stays permanent (--pid exit 1)" \
    [ "$rc" -eq 1 ]
check "  ... and says so" grep -q "^  health-verdict = permanent" "$W/out"
stop_sshd

# Started (restarted) while the CPU fails: sshd exits at once, status 255
# (and so does sshd -t, ssh.service's ExecStartPre).
touch "$broken"
timeout 30 env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "${sim_env[@]}" \
    /usr/sbin/sshd -D -f "$W/sshd_config" -E "$last_log" 2>"$W/sshd.stderr"
start_status=$?
check "failing CPU: sshd started while it fails exits at once, status 255" \
    [ "$start_status" -eq 255 ]
check "  ... saying PRNG is not seeded" grep -q "PRNG is not seeded" "$W/sshd.stderr"
rm "$broken"

# ---- 3. the exemption: sshd on the pre---enable file ----
touch "$broken"
check "exempted: sshd starts on OPENSSL_CONF=the stock file while the CPU fails" \
    start_sshd "OPENSSL_CONF=$stock" "RDRAND_SIM=fail-while=$broken"
check "exempted: 3 logins while the CPU fails" logins_ok 3
pid_check "${trust[@]}"
check "exempted: --pid: exit 2 (not seeded by the provider)" [ "$rc" -eq 2 ]
check "  ... because the module is not loaded there" \
    grep -q "^verdict: 2 misconfigured, because the provider module is not loaded in process $sshd_pid" "$W/out"
stop_sshd
rm -f "$broken"

finish
