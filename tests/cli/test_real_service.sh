#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rdrand-check's verdict holds for services, not only for root's shell:
# its draw again as a system service makes it (user nobody, environment
# PATH only, working directory /).  A module only root can read, one in a
# directory closed to others, one found only through OPENSSL_MODULES:
# live in root's draw, exit 2 from the service's.  The real module on the
# real CPU (exit 77, a skip, where CPUID reports no RDRAND); as root.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
require_real_rdrand
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: the service draw as another user needs root"
    exit 77
fi
CHECK=$RDRAND_BUILD_DIR/rdrand-check
PY=/usr/bin/python3

# The module where every user can read it, and a configuration naming it
# by its full path (no OPENSSL_MODULES for a service to lack).
MODS=$OUT/mods
mkdir -m 755 "$MODS"
install -m 644 "$REAL_MODULES/rdrand.so" "$MODS/rdrand.so"
# conf_with MODULE_LINE: conf/rdrand.cnf with its module line replaced
conf_with() {
    sed "s|^module = rdrand\.so\$|$1|" "$CONF/rdrand.cnf" >"$OUT/service.cnf"
    chmod 644 "$OUT/service.cnf"
    grep -qxF "$1" "$OUT/service.cnf"
}
# shellcheck disable=SC2317 # called through check
json() { # json EXPR: EXPR of the JSON report d, printed
    "$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
        "$OUT/stdout" "$1"
}
# shellcheck disable=SC2317 # called through check
json_is() { [ "$(json "$1")" = "$2" ]; }

check "setup: the configuration names the module by its full path" \
    conf_with "module = $MODS/rdrand.so"
SERVICE="as a service: user nobody \(uid 65534\), environment PATH only, working directory /"

# ---- every user can load it: live for root and for the service ----
run -- "$CHECK" -c "$OUT/service.cnf"
check "readable module: exit 0" exited_with 0
check "readable module: the service draw ran as nobody, live" \
    stdout_has "^$SERVICE: live\$"
run -- "$CHECK" -c "$OUT/service.cnf" --json
check "readable module, --json: service.user is nobody" json_is 'd["service"]["user"]' nobody
check "readable module, --json: service.uid 65534, exit_code 0, found null" \
    json_is '(d["service"]["uid"], d["service"]["exit_code"], d["service"]["found"])' \
    "(65534, 0, None)"
run -- "$CHECK" -c "$OUT/service.cnf" --as daemon
check "--as daemon: exit 0, the draw ran as daemon" \
    stdout_has '^as a service: user daemon \(uid 1\), .*: live$'

# ---- a module only root can read ----
chmod 600 "$MODS/rdrand.so"
run -- "$CHECK" -c "$OUT/service.cnf"
check "module mode 0600: exit 2" exited_with 2
check "module mode 0600: root's own draw was live" \
    stdout_has '^seed source: live: '
check "module mode 0600: the finding says a service is not seeded, as whom" \
    stdout_has '^misconfigured: a service using this configuration is not seeded as this process is: the check, run as a system service runs \(user nobody, uid 65534, '
check "module mode 0600: ... because nobody cannot read the module" \
    stdout_has "found: .*module = $MODS/rdrand\.so: this user \(uid 65534\) cannot read \(Permission denied\) $MODS/rdrand\.so "
check "module mode 0600: the verdict is that finding" \
    stdout_has '^verdict: 2 misconfigured, because a service using this configuration is not seeded'
check "module mode 0600: the service line says NOT live" \
    stdout_has "^$SERVICE: NOT live"
run -- "$CHECK" -c "$OUT/service.cnf" --json
check "module mode 0600, --json: service.exit_code 2, with what it found" \
    json_is '(d["service"]["exit_code"], bool(d["service"]["found"]), d["exit_code"])' \
    "(2, True, 2)"
run -- "$CHECK" -c "$OUT/service.cnf" --prometheus
check "module mode 0600, --prometheus: the exit code metric is 2" \
    stdout_has '^rdrand_check_exit_code(\{[^}]*\})? 2$'
run -- "$CHECK" -c "$OUT/service.cnf" --here
check "module mode 0600, --here: exit 0 (root's draw only)" exited_with 0
check "module mode 0600, --here: the report says the verdict is this user's" \
    stdout_has '^as a service: not checked \(--here\): this verdict holds for this user and environment only$'
run -- "$CHECK" -c "$OUT/service.cnf" --here --json
check "--here, --json: service is null" json_is 'd["service"]' None
run -- "$CHECK" -c "$OUT/service.cnf" --as root
check "module mode 0600, --as root: exit 0" exited_with 0
chmod 644 "$MODS/rdrand.so"

# ---- a module in a directory others cannot enter ----
mkdir -m 700 "$OUT/closed"
install -m 644 "$REAL_MODULES/rdrand.so" "$OUT/closed/rdrand.so"
conf_with "module = $OUT/closed/rdrand.so"
run -- "$CHECK" -c "$OUT/service.cnf"
check "module in a closed directory: exit 2" exited_with 2
check "module in a closed directory: the service's finding" \
    stdout_has '^misconfigured: a service using this configuration is not seeded'

# ---- a configuration file only root can read ----
conf_with "module = $MODS/rdrand.so"
chmod 600 "$OUT/service.cnf"
run -- "$CHECK" -c "$OUT/service.cnf"
check "configuration mode 0600: exit 2" exited_with 2
check "  ... and the service draw is not live" \
    stdout_has "^$SERVICE: NOT live"
chmod 644 "$OUT/service.cnf"

# ---- --as: bad values, and what it does not apply to ----
run -- "$CHECK" -c "$OUT/service.cnf" --as no-such-user-rdrand
check "--as an unknown user: usage error (exit 3)" exited_with 3
check "--as an unknown user: says so" stderr_has '--as no-such-user-rdrand: no such user'
run -- "$CHECK" -c "$OUT/service.cnf" --as 4294967295
check "--as an unknown uid: exit 3" exited_with 3
run -- "$CHECK" -c "$OUT/service.cnf" --as nobody --here
check "--as with --here: exit 3" exited_with 3
run -- "$CHECK" --pid $$ --here
check "--here with --pid: exit 3" exited_with 3
run -- "$CHECK" --pid $$ --as nobody
check "--as with --pid: exit 3" exited_with 3
run -- "$CHECK" --loads "$OUT/service.cnf" --as nobody
check "--as with --loads: exit 3" exited_with 3

# ---- not root: the draw runs as this user; no other user may be named ----
as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if ! "${as_nobody[@]}" test -x "$CHECK"; then
    echo "skip - as nobody: nobody cannot run $CHECK (build directory not accessible)"
else
    run -- "${as_nobody[@]}" "$CHECK" -c "$OUT/service.cnf"
    check "as nobody: exit 0, its own service draw live" exited_with 0
    check "  ... run as nobody itself" stdout_has "^$SERVICE: live\$"
    run -- "${as_nobody[@]}" "$CHECK" -c "$OUT/service.cnf" --as root
    check "as nobody, --as root: exit 3, only root may" exited_with 3
    check "  ... says so" stderr_has 'only root can run the check as another user'
fi

# ---- --enable as root, and OPENSSL_MODULES: services lack it ----
# Without --here, --enable refuses a file whose module only this shell's
# OPENSSL_MODULES finds; it writes module = rdrand.so, so no rdrand.so
# may sit in libcrypto's modules directory meanwhile (the install tests
# put one there under this lock).
modulesdir=$("$OPENSSL_BIN" version -m | sed -n 's/^MODULESDIR: "\(.*\)"$/\1/p')
exec 9>/run/lock/rdrand-provider-install.lock
if ! flock -w 600 9; then
    echo "skip - --enable: the install tests' lock is held"
elif [ -e "$modulesdir/rdrand.so" ]; then
    echo "skip - --enable: $modulesdir/rdrand.so is installed on this machine"
else
    printf 'openssl_conf = init\n[init]\nproviders = prov\n[prov]\ndefault = dflt\n[dflt]\nactivate = 1\n' >"$OUT/stock.cnf"
    chmod 644 "$OUT/stock.cnf"
    cp -p "$OUT/stock.cnf" "$OUT/stock.orig"
    run "OPENSSL_MODULES=$MODS" -- "$CHECK" --enable "$OUT/stock.cnf"
    check "--enable, module through OPENSSL_MODULES only: refused (exit 6)" exited_with 6
    check "  ... the file is unchanged" cmp -s "$OUT/stock.cnf" "$OUT/stock.orig"
    check "  ... the report names the service's finding" \
        stdout_has '^misconfigured: a service using this configuration is not seeded'
    run "OPENSSL_MODULES=$MODS" -- "$CHECK" --here --enable "$OUT/stock.cnf"
    check "--enable --here: exit 0 (this shell's OPENSSL_MODULES accepted)" exited_with 0

    # The file --enable wrote, checked: live with OPENSSL_MODULES, not
    # for a service without it.
    run "OPENSSL_MODULES=$MODS" -- "$CHECK" -c "$OUT/stock.cnf"
    check "module found through OPENSSL_MODULES only: exit 2" exited_with 2
    check "  ... root's draw with OPENSSL_MODULES was live" \
        stdout_has '^seed source: live: '
    check "  ... the service, without it, does not find the module" \
        stdout_has "^misconfigured: a service using this configuration is not seeded .*found: .*module = rdrand\.so: no file $modulesdir/rdrand\.so "
fi
exec 9>&-

finish
