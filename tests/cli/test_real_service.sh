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
# Against a private OpenSSL (LD_LIBRARY_PATH, the build-ossl-* suites) the
# tool run as a service, with only PATH, loads the system's libcrypto,
# not the one it was built for: no service uses that build.
libcrypto_of() { readlink -f "$("$@" ldd "$RDRAND_BUILD_DIR/rdrand-check" | awk '$1 ~ /^libcrypto/ { print $3 }')"; }
if [ "$(libcrypto_of env)" != "$(libcrypto_of env -u LD_LIBRARY_PATH)" ]; then
    echo "SKIP: a private OpenSSL through LD_LIBRARY_PATH: services use the system's"
    exit 77
fi
CHECK=$RDRAND_BUILD_DIR/rdrand-check
PY=/usr/bin/python3

# The module where every user can read it, and a configuration naming it
# by its full path (no OPENSSL_MODULES for a service to lack).
MODS=$OUT/mods
mkdir -m 755 "$MODS"
# One configuration outside /tmp (where $OUT is): a unit with PrivateTmp=
# reads it and does not see a module under /tmp.
RUNDIR=$(mktemp -d /run/rdrand-service-test.XXXXXX)
chmod 755 "$RUNDIR"
trap 'rm -rf "$OUT" "$RUNDIR"' EXIT
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
check "readable module under /tmp, the file too: no warning (a unit reading one sees both)" \
    stdout_lacks "is under /tmp/"
cp -p "$OUT/service.cnf" "$RUNDIR/service.cnf"
run -- "$CHECK" -c "$RUNDIR/service.cnf"
check "readable module under /tmp, the file under /run: exit 0" exited_with 0
check "  ... a warning that PrivateTmp= units do not see the module" \
    stdout_has "^warning: $RUNDIR/service.cnf:[0-9]+: \[rdrand_sect\] module: $MODS/rdrand\.so is under /tmp/, $RUNDIR/service.cnf is not: a systemd unit with PrivateTmp="
run -- "$CHECK" -c "$OUT/service.cnf" --as daemon
check "--as daemon: exit 0" exited_with 0
check "  ... the draw ran as daemon" \
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

# ---- others may read it, its group may not: nobody's draw cannot tell ----
chmod 604 "$MODS/rdrand.so"
run -- "$CHECK" -c "$OUT/service.cnf"
check "module 0604: exit 2" exited_with 2
check "  ... its group cannot read it, though others can" \
    stdout_has "^misconfigured: $OUT/service.cnf:[0-9]+: \[rdrand_sect\] module: $MODS/rdrand\.so \(mode 0604, .*\) is readable by others but not by its group"
chmod 644 "$MODS/rdrand.so"
if command -v setfacl >/dev/null && setfacl -m u:daemon:0 "$MODS/rdrand.so" 2>/dev/null; then
    run -- "$CHECK" -c "$OUT/service.cnf"
    check "module with an ACL: a warning that the check reads mode bits only" \
        stdout_has "^warning: .*module: $MODS/rdrand\.so has an access ACL"
    setfacl -b "$MODS/rdrand.so"
else
    echo "skip - ACL: setfacl missing, or $OUT's file system has no ACLs"
fi

# ---- a module its group may read, others not: root's groups are dropped ----
chmod 640 "$MODS/rdrand.so"
chgrp root "$MODS/rdrand.so"
run -- "$CHECK" -c "$OUT/service.cnf"
check "module 0640 root:root: exit 2 (the service has none of root's groups)" \
    exited_with 2
check "  ... nobody cannot read it" \
    stdout_has "found: .*this user \(uid 65534\) cannot read \(Permission denied\)"
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

# ---- a root that cannot change user (a container): no verdict, exit 3 ----
if setpriv --bounding-set -setuid,-setgid --inh-caps=-all true 2>/dev/null; then
    run -- setpriv --bounding-set -setuid,-setgid --inh-caps=-all \
        "$CHECK" -c "$OUT/service.cnf"
    check "root without CAP_SETUID: exit 3, no verdict" exited_with 3
    check "  ... says the service draw could not run, and why" \
        stderr_has '^rdrand-check: the service draw could not run: becoming user nobody: Operation not permitted; no verdict'
    check "  ... and prints no verdict" stdout_lacks '^verdict: '
else
    echo "skip - no CAP_SETUID: setpriv cannot drop it here"
fi

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

# ---- --disable: still live without its lines is root's question ----
# An --enable'd file that also includes a hand-written load of the module
# from a directory only root can enter: without the marked lines root's
# processes stay seeded by it, so --disable must refuse, whatever a
# service's draw would say.
mkdir -m 700 "$OUT/private"
install -m 644 "$REAL_MODULES/rdrand.so" "$OUT/private/rdrand.so"
printf 'openssl_conf = init\n[init]\nproviders = prov\n[prov]\ndefault = dflt\n[dflt]\nactivate = 1\n' >"$OUT/hand.cnf"
chmod 644 "$OUT/hand.cnf"
run "OPENSSL_MODULES=$MODS" -- "$CHECK" --here --enable "$OUT/hand.cnf"
check "--disable setup: --enable --here: exit 0" exited_with 0
printf '[init]\nrandom = hand_random\n[prov]\nhand = hand_sect\n[hand_sect]\nidentity = rdrand\nmodule = %s\nactivate = 1\n[hand_random]\nseed = RDRAND\nseed_properties = provider=rdrand\n' \
    "$OUT/private/rdrand.so" >"$OUT/hand-extra.cnf"
chmod 644 "$OUT/hand-extra.cnf"
printf '.include %s\n' "$OUT/hand-extra.cnf" >>"$OUT/hand.cnf"
cp -p "$OUT/hand.cnf" "$OUT/hand.before"
run -- "$CHECK" --disable "$OUT/hand.cnf"
check "--disable, rdrand still live for root without the marked lines: refused (exit 6)" \
    exited_with 6
check "  ... says why" stderr_has 'rdrand is still the live seed source without the marked lines'
check "  ... the file is unchanged" cmp -s "$OUT/hand.cnf" "$OUT/hand.before"

# ---- --enable as root, and OPENSSL_MODULES: services lack it ----
# Without --here, --enable refuses a file whose module only this shell's
# OPENSSL_MODULES finds; it writes module = rdrand.so, so no rdrand.so
# may sit in libcrypto's modules directory meanwhile (the install tests
# put one there under this lock).
modulesdir=$("$OPENSSL_BIN" version -m | sed -n 's/^MODULESDIR: "\(.*\)"$/\1/p')
# ctest holds the install tests off (RESOURCE_LOCK); another run's may
# hold this lock: then a skip, named, not a wait past ctest's timeout.
exec 9>/run/lock/rdrand-provider-install.lock
if ! flock -n 9; then
    echo "skip - --enable: another run's install tests hold the lock"
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

    # What the operator's shell preloads stays there: a library that
    # answers OPENSSL_MODULES even after the environment is cleared.
    preload=$RDRAND_BUILD_DIR/tests/service_preload.so
    if ldd "$CHECK" | grep -q 'lib[at]san'; then
        echo "skip - LD_PRELOAD: a sanitizer's runtime must be loaded first"
    else
        run "LD_PRELOAD=$preload" "RDRAND_TEST_PRELOAD_MODULES=$MODS" -- \
            "$CHECK" --here -c "$OUT/stock.cnf"
        check "LD_PRELOAD answering OPENSSL_MODULES: root's draw is live (--here: exit 0)" \
            exited_with 0
        run "LD_PRELOAD=$preload" "RDRAND_TEST_PRELOAD_MODULES=$MODS" -- \
            "$CHECK" -c "$OUT/stock.cnf"
        check "  ... the service draw, a new program without it, is not: exit 2" \
            exited_with 2
        check "  ... and says it finds no module" \
            stdout_has "^misconfigured: a service using this configuration is not seeded .*found: .*no file $modulesdir/rdrand\.so "
    fi
fi
exec 9>&-

finish
