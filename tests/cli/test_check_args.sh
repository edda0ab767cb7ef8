#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rdrand-check's command line and its outputs at their edges: every
# combination of options it refuses (exit 3, the usage text, nothing
# else done), -o where no file can be written, --as and the service
# draw's user (root, nobody, a uid without a name, a name that does not
# exist or holds a control byte), hostile bytes in a configuration value
# through the text, JSON and Prometheus reports, and more findings than
# a report holds.
# shellcheck disable=SC2317 # the helpers below are called through check
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

CHECK=$RDRAND_BUILD_DIR/rdrand-check
SIM=rdrand-sim
PY=/usr/bin/python3 # Debian's, with only the standard library
sim() { run "OPENSSL_MODULES=$SIM_MODULES" "RDRAND_SIM=" "$@"; }

# conf/rdrand-sim.cnf naming its module by its full path: a service's
# child (environment PATH only, no OPENSSL_MODULES) loads it too.
ABS=$OUT/abs.cnf
# ps without LD_PRELOAD: the ASan suite preloads its runtime into every
# program, and ps hangs under it.
ps() { env -u LD_PRELOAD ps "$@"; }
# killtree PID: PID and every process under it, killed (a test that lost
# track of a child must end, not wait for it).
killtree() {
    local c
    for c in $(ps -o pid= --ppid "$1"); do killtree "$c"; done
    kill -KILL "$1" 2>/dev/null
}
sed "s|^module = rdrand-sim.so\$|module = $SIM_MODULES/rdrand-sim.so|" \
    "$CONF/rdrand-sim.cnf" >"$ABS"
chmod 0644 "$ABS"
check "the variant names the module by its full path" \
    grep -qx "module = $SIM_MODULES/rdrand-sim.so" "$ABS"

# --- usage errors: exit 3, the usage text on stderr, nothing on stdout ---
printf 'keep\n' >"$OUT/edit.cnf"
for args in "-n 1001" "-n 5x" "--enable=$OUT/edit.cnf --json" "-n 99999999999999999999" "--pid 0" "--pid x" \
    "--pid -1" "--pid 1x" "--pid 4294967297" "--pid 1 -c $ABS" \
    "--pid 1 -n 1" "--pid 1 --enable" "--pid 1 --here" "--pid 1 --as nobody" \
    "--module $ABS" "--loads" "--loads $ABS $ABS --enable" "--loads $ABS --pid 1" \
    "--loads $ABS -c $ABS" "--loads $ABS --json" "--loads $ABS -o $OUT/x" \
    "--loads $ABS -n 1" "--loads $ABS --module $ABS" \
    "--loads $ABS --here" "--loads $ABS --as nobody" \
    "--enable $OUT/edit.cnf --json" "--enable $OUT/edit.cnf --prometheus" \
    "--enable $OUT/edit.cnf -o $OUT/x" "--enable $OUT/edit.cnf -n 1" \
    "--enable $OUT/edit.cnf --provider $SIM" "--enable --disable $OUT/edit.cnf" \
    "--disable $OUT/edit.cnf --json" "--enable $OUT/edit.cnf $OUT/edit.cnf" \
    "--here --as nobody" "-c $ABS --here --as root"; do
    # shellcheck disable=SC2086 # the arguments are a list
    sim -- "$CHECK" $args
    check "usage error ($args): exit 3" exited_with 3
    check "usage error ($args): the usage on stderr" \
        stderr_has '^usage: .*rdrand-check '
    check "usage error ($args): nothing on stdout" test ! -s "$OUT/stdout"
done
check "usage errors: the file to edit untouched" \
    test "$(cat "$OUT/edit.cnf")" = keep
check "usage errors: no -o file written" test ! -e "$OUT/x"
# Nine --module (eight is the most --pid trusts).
mods=()
for _ in 1 2 3 4 5 6 7 8 9; do mods+=(--module "$ABS"); done
sim -- "$CHECK" --pid 1 "${mods[@]}"
check "nine --module: exit 3" exited_with 3
check "nine --module: the usage on stderr" stderr_has '^usage: '
mods=("${mods[@]:2}")
sim -- "$CHECK" --pid 99999999 "${mods[@]}"
check "eight --module: accepted (exit 4: no such process)" exited_with 4
# The bounds themselves are accepted.
sim -- "$CHECK" --here -c "$ABS" --provider $SIM -n 0 --json
check "-n 0: accepted, exit 0" exited_with 0

# --- -o where no file can be written: exit 3, no file left behind ---
sim -- "$CHECK" --here -c "$ABS" --provider $SIM --prometheus \
    -o "$OUT/missing/rdrand.prom"
check "-o into a missing directory: exit 3" exited_with 3
check "  ... says why, naming the temporary file" \
    stderr_has "^$OUT/missing/rdrand\.prom\.[A-Za-z0-9]{6}: No such file or directory$"
check "  ... nothing on stdout" test ! -s "$OUT/stdout"
mkdir -p "$OUT/isdir"
sim -- "$CHECK" --here -c "$ABS" --provider $SIM --json -o "$OUT/isdir"
check "-o naming a directory: exit 3" exited_with 3
check "  ... the rename refused" stderr_has "^$OUT/isdir: Is a directory$"
check "  ... the directory untouched" test -d "$OUT/isdir"
check "  ... no temporary file left" \
    test "$(find "$OUT" -maxdepth 1 -name 'isdir.*' | wc -l)" -eq 0
# --pid of a process that cannot be read, -o naming no file yet: exit 4,
# nothing to remove, nothing written.
sim -- "$CHECK" --pid 99999999 --prometheus -o "$OUT/gone.prom"
check "--pid unreadable, -o not there: exit 4" exited_with 4
check "  ... nothing said removed" stderr_lacks 'removed'
check "  ... no file made" test ! -e "$OUT/gone.prom"

# --- --as: the service draw's user ---
sim -- "$CHECK" -c "$ABS" --provider $SIM --as no-such-user-rdrand
check "--as an unknown name: exit 3" exited_with 3
check "  ... says so, and the way out" \
    stderr_has '^.*rdrand-check: --as no-such-user-rdrand: no such user \(the service draw runs as nobody by default; name a user with --as USER, or skip it with --here\)$'
sim -- "$CHECK" -c "$ABS" --provider $SIM --as "$(printf 'a\033[2Jb\177c')"
check "--as with control bytes: exit 3" exited_with 3
check "  ... shown as ?, never sent to the terminal" \
    stderr_has '--as a\?\[2Jb\?c: no such user'
check "  ... no escape byte on stderr" \
    test "$(grep -c $'\033' "$OUT/stderr")" -eq 0
sim -- "$CHECK" -c "$ABS" --provider $SIM --as "$(printf 'x%.0s' {1..80})"
check "--as an 80-byte name: exit 3" exited_with 3
check "  ... shown cut at 63 bytes" \
    stderr_has "--as $(printf 'x%.0s' {1..63}): no such user"
sim -- "$CHECK" -c "$ABS" --provider $SIM --as +1
check "--as +1 (no name, not a uid): exit 3" exited_with 3
check "  ... named as given" stderr_has '--as \+1: no such user'
sim -- "$CHECK" -c "$ABS" --provider $SIM --as 4294967296
check "--as a number beyond any uid: no such user (exit 3)" exited_with 3
check "  ... named as given" stderr_has '--as 4294967296: no such user'
sim -- "$CHECK" -c "$ABS" --provider $SIM --as 12ab
check "--as 12ab (not a number, no such name): exit 3" exited_with 3
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    nobody=$(id -u nobody)
    sim -- "$CHECK" -c "$ABS" --provider $SIM --as "$nobody" --json
    check "--as $nobody (a uid): exit 0" exited_with 0
    check "  ... the service draw ran as nobody, live" "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["service"] == {"user": "nobody", "uid": int(sys.argv[2]),
                        "exit_code": 0, "found": None}, d["service"]
assert d["exit_code"] == 0 and d["seed_source_live"] is True' \
        "$OUT/stdout" "$nobody"
    sim -- "$CHECK" -c "$ABS" --provider $SIM --as 0
    check "--as 0 (root): exit 0" exited_with 0
    check "  ... as user root" \
        stdout_has '^as a service: user root \(uid 0\), environment PATH only, working directory /: live$'
    as_user=(setpriv --reuid="$nobody" --regid="$(id -g nobody)" --clear-groups)
    sim -- "${as_user[@]}" "$CHECK" -c "$ABS" --provider $SIM
    check "run as nobody, no --as: exit 0" exited_with 0
    check "  ... the service draw stays nobody" \
        stdout_has "^as a service: user nobody \\(uid $nobody\\), environment PATH only, working directory /: live$"
    sim -- "${as_user[@]}" "$CHECK" -c "$ABS" --provider $SIM --as nobody
    check "run as nobody, --as nobody (itself): exit 0" exited_with 0
    sim -- "${as_user[@]}" "$CHECK" -c "$ABS" --provider $SIM --as root
    check "run as nobody, --as root: exit 3" exited_with 3
    check "  ... only root may name another user" \
        stderr_has '--as root: only root can run the check as another user$'
    check "  ... no report" test ! -s "$OUT/stdout"
    # Root without CAP_SETGID or CAP_SETUID (a container's root): the
    # service draw cannot become its user; no verdict either way.
    for cap in setgid setuid; do
        sim -- setpriv --bounding-set=-$cap "$CHECK" -c "$ABS" --provider $SIM
        check "root without CAP_${cap^^}: exit 3 (no verdict)" exited_with 3
        check "  ... says the service draw could not become its user" \
            stderr_has '^rdrand-check: the service draw could not run: becoming user nobody: Operation not permitted; no verdict \(--here checks for this user and environment only\)$'
        check "  ... no report" test ! -s "$OUT/stdout"
    done
    # (The service draw's user at RLIMIT_NPROC is not tested with a
    # named system user: the kernel counts that uid's processes across
    # the whole host, containers included, so the outcome would depend
    # on the machine.  The unnamed uid below is the test's alone.)
    # Killed: its check blocks opening an included FIFO, the test kills it
    # (and its own child), and puts a plain file there for the rest.
    rm -f "$OUT/fifo.cnf"
    mkfifo -m 0666 "$OUT/fifo.cnf"
    { cat "$ABS"; echo ".include $OUT/fifo.cnf"; } >"$OUT/sig.cnf"
    "$CHECK" -c "$OUT/sig.cnf" --provider $SIM >"$OUT/stdout" 2>"$OUT/stderr" &
    top=$!
    kid() { ps -o pid= --ppid "$1" | tr -d ' ' | head -n 1; }
    for _ in $(seq 300); do
        g=$(kid $top)
        svc=${g:+$(kid "$g")}
        svc_check=${svc:+$(kid "$svc")}
        if [ -n "$svc_check" ] &&
            grep -q wait_for_partner "/proc/$svc_check/wchan" 2>/dev/null; then
            break
        fi
        sleep 0.1
    done
    check "the service draw's check waits on the FIFO" test -n "$svc_check"
    # Not found: end the whole tree, so that the wait below cannot hang.
    [ -n "$svc_check" ] || killtree "$top"
    : >"$OUT/plain.cnf"
    mv "$OUT/plain.cnf" "$OUT/fifo.cnf"
    [ -z "$svc" ] || kill -KILL "$svc"
    [ -z "$svc_check" ] || kill -KILL "$svc_check"
    wait "$top"
    status=$?
    check "service draw killed by a signal: exit 3" exited_with 3
    check "  ... names the signal" \
        stderr_has '^rdrand-check: the service draw could not run: rdrand-check as user nobody was killed by signal 9 \(Killed\); no verdict'
    check "  ... no report" test ! -s "$OUT/stdout"
    # A module only root can read: live here, not in a service.  Started
    # with SIGCHLD ignored (inherited across exec, as some job runners
    # leave it), the verdict and the -o file are the same: exit 2, never
    # "live" and exit 0 with the service draw's status lost.
    mkdir -p "$OUT/private"
    cp "$SIM_MODULES/rdrand-sim.so" "$OUT/private/"
    chmod 0700 "$OUT/private"
    sed "s|^module = .*|module = $OUT/private/rdrand-sim.so|" "$ABS" >"$OUT/private.cnf"
    chmod 0644 "$OUT/private.cnf"
    for how in plain sigchld-ignored; do
        start=()
        # shellcheck disable=SC2016 # python's text
        [ "$how" = plain ] || start=("$PY" -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])')
        rm -f "$OUT/private.prom"
        sim -- "${start[@]}" "$CHECK" -c "$OUT/private.cnf" --provider $SIM \
            --prometheus -o "$OUT/private.prom"
        check "module only root reads, $how: exit 2" exited_with 2
        check "  ... the file says 2" grep -qx \
            "rdrand_check_exit_code{provider=\"$SIM\"} 2" "$OUT/private.prom"
        check "  ... nothing on stderr" test ! -s "$OUT/stderr"
    done
    sim -- "$CHECK" -c "$OUT/private.cnf" --provider $SIM
    check "module only root reads, text: the service draw's finding" \
        stdout_has "^misconfigured: a service using this configuration is not seeded as this process is: .* found: $OUT/private\.cnf:[0-9]+: \[rdrand_sim_sect\] module: .*this user \(uid $nobody\) cannot read \(Permission denied\)"
    chmod 0755 "$OUT/private"
    # -o into a directory its user may write but not read (0300): the
    # file is renamed into place, and the directory's sync, which needs
    # read access, is not asked for: the check's exit, not a usage error.
    wx=$OUT/wx
    mkdir "$wx" && chown nobody "$wx" && chmod 0300 "$wx"
    sim -- setpriv --reuid=nobody --regid=nogroup --clear-groups \
        "$CHECK" -c "$ABS" --provider $SIM --here -o "$wx/out.txt"
    check "-o into a write-only directory (0300): exit 0" exited_with 0
    check "  ... the report is in place" test -s "$wx/out.txt"
    # A uid with no passwd entry: the draw stays that uid, named so.
    noname=54321
    if ! getent passwd "$noname" >/dev/null; then
        sim -- setpriv --reuid=$noname --regid=$noname --clear-groups \
            "$CHECK" -c "$ABS" --provider $SIM
        check "run as uid $noname (no passwd entry): exit 0" exited_with 0
        check "  ... the service draw shown as (no name)" \
            stdout_has "^as a service: user \\(no name\\) \\(uid $noname\\), environment PATH only"
        # That user at RLIMIT_NPROC: 1, the check's child cannot be
        # forked; 2, the service draw's cannot.  Exit 3, the reason named.
        if [ -n "$(ps -o pid= -u $noname)" ]; then
            echo "SKIP: uid $noname at RLIMIT_NPROC (it has processes here)"
        else
            for row in "1|^rdrand-check: running the check in a child: Resource temporarily unavailable$" \
                "2|^rdrand-check: the service draw could not run: starting it: Resource temporarily unavailable; no verdict"; do
                IFS='|' read -r nproc want <<<"$row"
                # shellcheck disable=SC2016 # expanded by that bash
                sim -- setpriv --reuid=$noname --regid=$noname --clear-groups \
                    bash -c 'ulimit -u "$0" && exec "$@"' "$nproc" \
                    "$CHECK" -c "$ABS" --provider $SIM
                check "uid $noname at RLIMIT_NPROC $nproc: exit 3" exited_with 3
                check "  ... says why" stderr_has "$want"
                check "  ... no report" test ! -s "$OUT/stdout"
            done
        fi
    else
        echo "SKIP: uid $noname has a passwd entry here"
    fi
else
    echo "SKIP: --as as root and as nobody (needs root and setpriv)"
fi

# --- no descriptors, no /proc: the check cannot start; exit 3 ---
# RLIMIT_NOFILE 4: no pipe for the check's child; 5 and 7: the check
# runs, the service draw's pipes do not; 8: its child opens no /dev/null.
for row in "4|^rdrand-check: running the check in a child: Too many open files$" \
    "5|^rdrand-check: the service draw could not run: starting it: Too many open files; no verdict" \
    "7|^rdrand-check: the service draw could not run: starting it: Too many open files; no verdict" \
    "8|^rdrand-check: the service draw could not run: its output: Too many open files; no verdict"; do
    IFS='|' read -r nofile want <<<"$row"
    # Descriptors inherited (from ctest, say) closed first: the count is
    # the tool's own.
    # shellcheck disable=SC2016 # expanded by that bash
    sim -- bash -c 'for fd in $(ls /proc/$$/fd); do
            [ "$fd" -le 2 ] || eval "exec $fd>&-"
        done
        ulimit -n "$0" && exec "$@"' "$nofile" "$CHECK" -c "$ABS" --provider $SIM
    check "RLIMIT_NOFILE $nofile: exit 3" exited_with 3
    check "RLIMIT_NOFILE $nofile: says why" stderr_has "$want"
    check "RLIMIT_NOFILE $nofile: no report" test ! -s "$OUT/stdout"
done
if nm -D "$CHECK" 2>/dev/null | grep -q __asan_init; then
    # The service draw's environment is PATH only, so its ASan runtime's
    # leak check runs, and that needs /proc: a sanitizer's failure.
    echo "SKIP: no /proc (an ASan build's leak check needs /proc)"
elif [ "$(id -u)" = 0 ] && unshare --mount --propagation private true 2>/dev/null; then
    sim -- unshare --mount --propagation private sh -c \
        'umount -l /proc && exec "$@"' sh "$CHECK" -c "$ABS" --provider $SIM
    check "no /proc (the service draw cannot find itself): exit 3" exited_with 3
    check "  ... says why" \
        stderr_has '^rdrand-check: the service draw could not run: starting it: No such file or directory; no verdict'
else
    echo "SKIP: no /proc (needs root and unshare)"
fi

# --- which file: relative -c, and none named at all ---
(cd "$OUT" && sim -- "$CHECK" -c abs.cnf --provider $SIM && echo "$status" >"$OUT/status")
status=$(cat "$OUT/status")
check "relative -c: exit 0 (the service draw reads the same file, from /)" \
    exited_with 0
check "  ... the header names it as given and as it is" \
    stdout_has "^rdrand-check: provider $SIM, configuration abs\.cnf -> $OUT/abs\.cnf, "
check "  ... the service draw live" stdout_has '^as a service: .*: live$'
sim -- env -u OPENSSL_CONF "$CHECK" --here
dflt=$("$OPENSSL_BIN" version -d | sed 's/^OPENSSLDIR: "\(.*\)"$/\1/')/openssl.cnf
check "no -c, no OPENSSL_CONF: a verdict (0, 1 or 2) on OpenSSL's default file" \
    test "$status" -le 2
check "  ... the header names $dflt" \
    stdout_has "^rdrand-check: provider rdrand, configuration $dflt( -> .*)?, "

# --- a value that reads "verdict: ": the service draw's finding, which
# is the one here, is not told twice ---
VERD=$OUT/verdict.cnf
sed 's/^warn = stderr$/warn = verdict: 0 live/' "$ABS" >"$VERD"
sim -- "$CHECK" -c "$VERD" --provider $SIM
check "a value reading 'verdict: 0 live': exit 2" exited_with 2
check "  ... the service draw saw the same finding" \
    stdout_has '^as a service: user nobody \(uid [0-9]+\), environment PATH only, working directory /: NOT live \(see the finding\)$'
check "  ... told once: no second finding from the service draw" \
    stdout_lacks 'a service using this configuration is not seeded as this process is'
check "  ... the verdict names the value's line" \
    stdout_has "^verdict: 2 misconfigured, because $VERD:[0-9]+: \[rdrand_sim_sect\] warn: warn = \"verdict: 0 live\" is not accepted"

# --- --loads: missing and repeated files, not activated, a control byte
# in the name, the newest of several backups ---
LD=$OUT/loads
mkdir -p "$LD"
printf 'openssl_conf = i\n[i]\nproviders = p\n[p]\nrdrand = r\n[r]\nmodule = rdrand.so\n' \
    >"$LD/plain.cnf"
cp "$LD/plain.cnf" "$LD/tab"$'\t'"name.cnf"
cp "$LD/plain.cnf" "$LD/del"$'\177'"name.cnf"
: >"$LD/plain.cnf.rdrand-check-backup-20250101T000000Z"
: >"$LD/plain.cnf.rdrand-check-backup-20200101T000000Z"
: >"$LD/plain.cnf.rdrand-check-backup-20210101T000000Z"
touch -d '2020-01-01' "$LD/plain.cnf.rdrand-check-backup-20250101T000000Z"
touch -d '2021-01-01' "$LD/plain.cnf.rdrand-check-backup-20210101T000000Z"
touch -d '2024-01-01' "$LD/plain.cnf.rdrand-check-backup-20200101T000000Z"
sim -- "$CHECK" --loads "$LD/plain.cnf" "$LD/missing.cnf" "$LD/plain.cnf" \
    "$LD/tab"$'\t'"name.cnf" "$LD/../loads/plain.cnf" "$LD/del"$'\177'"name.cnf"
check "--loads: exit 1 (a file loads it)" exited_with 1
check "  ... each file once, however named, none for the missing one" \
    test "$(grep -c '^    /' "$OUT/stdout")" -eq 3
check "  ... a section without activate: configures, not loads" \
    stdout_has "^    $LD/plain\.cnf:7: \[r\] configures rdrand\.so \(not activated on this OpenSSL: an application may still load it by name\)$"
check "  ... the newest backup by time, not by name" \
    stdout_has "^      without rdrand-check, restore --enable's backup: cp -p '$LD/plain\.cnf\.rdrand-check-backup-20200101T000000Z' '$LD/plain\.cnf'$"
check "  ... a name with a tab: shown escaped" \
    stdout_has "^    $LD/tab\\\\x09name\.cnf:7: "
check "  ... and no command to paste" \
    stdout_has '^      not --enable.s edit: .*: rm \(a name with a control character: do it by hand\)$'
check "  ... a name with DEL: shown escaped, no command either" \
    test "$(grep -c '^      not --enable.s edit: .*: rm (a name with a control character: do it by hand)$' "$OUT/stdout")" -eq 2
check "  ... DEL shown as \\x7f" stdout_has "^    $LD/del\\\\x7fname\.cnf:7: "

# --- another provider's parameters: OpenSSL's default provider, which
# serves none of rdrand's counters; and a listed CPU with no microcode ---
sim -- "$CHECK" --here -c "$ABS" --provider default --json
check "--provider default: exit 2 (seeds do not come from it)" exited_with 2
check "  ... its own parameters only, no counters claimed" "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["params"] == {"name": "OpenSSL Default Provider",
                       "version": d["params"]["version"],
                       "buildinfo": d["params"]["buildinfo"], "status": 1}, d["params"]
assert d["seed_source_live"] is False and d["draw"]["seed_requests"] == 0' \
    "$OUT/stdout"
sim -- "$CHECK" --here -c "$ABS" --provider default --prometheus
check "--provider default, --prometheus: exit 2" exited_with 2
check "  ... promtool accepts it" promtool check metrics <"$OUT/stdout"
check "  ... no counter it does not serve" \
    stdout_lacks '^rdrand_(seed_requests|failures|health_trips)_total'
check "  ... rdrand_info with empty labels" \
    stdout_has '^rdrand_info\{provider="default",health_state="",.*,cpu_errata="",health_verdict=""\} 1$'
check "  ... the live gauge 0" stdout_has '^rdrand_seed_source_live\{provider="default"\} 0$'
run "OPENSSL_MODULES=$SIM_MODULES" "RDRAND_SIM=cpu=amd:17:71:0" -- \
    "$CHECK" --here -c "$ABS" --provider $SIM
check "Zen 2 17h/71h, no microcode file: exit 0 (a warning)" exited_with 0
check "  ... the warning says microcode unknown" \
    stdout_has '^warning: this CPU \(AuthenticAMD family 17h model 71h, microcode unknown\) is in provider rdrand-sim.s table of known RDRAND errata: amd-17h-70h-7fh'

# --- the file's structure, broken in each way the checker names ---
# NAME ~ PROVIDER ~ SED ~ EXIT ~ what the report says (a line's start)
mkdir -p "$OUT/dirmod.so"
structure=(
    "module under a file (ENOTDIR)~$SIM~s|^module = .*|module = $ABS/rdrand-sim.so|~2~misconfigured: $OUT/v\\.cnf:[0-9]+: \\[rdrand_sim_sect\\] module: module = $ABS/rdrand-sim\\.so: no file "
    "module whose .so name is a directory: no .so advice~$SIM~s|^module = .*|module = $OUT/dirmod|~2~misconfigured: $OUT/v\\.cnf:[0-9]+: \\[rdrand_sim_sect\\] module: module = $OUT/dirmod: no file $OUT/dirmod \\(modules directory [^)]*\\); OpenSSL skips the provider without a word, and where \\[random\\] takes its seed from it, OpenSSL 3\\.0-3\\.6 seed from the OS without a word, 4\\.0 fails every random request \\(unable to fetch drbg\\)$"
    "a capitalised own key (the provider sees it)~$SIM~s|^warn = stderr|Warn = stderr|~2~misconfigured: $OUT/v\\.cnf:[0-9]+: \\[rdrand_sim_sect\\] Warn: Warn = \"stderr\" is not accepted \\(keys are case-sensitive\\): the provider sees this spelling and fails every request; write warn$"
    "an entry naming no section~$SIM~s|^rdrand-sim = rdrand_sim_sect|rdrand-sim = nosuch_sect|~2~misconfigured: \\[nosuch_sect\\] no section \\[nosuch_sect\\]: provider rdrand-sim is never loaded$"
    "providers naming no section~$SIM~s|^providers = provider_sect|providers = nosuch_list|~2~misconfigured: \\[nosuch_list\\] no section \\[nosuch_list\\]: no provider is loaded from this file$"
    "random naming no section~$SIM~s|^random = random_sect|random = nosuch_rand|~2~misconfigured: \\[nosuch_rand\\] no section \\[nosuch_rand\\]: OpenSSL keeps its default seed source$"
    "seed_properties with -fips and ?fips=no first~$SIM~s|^seed_properties = .*|seed_properties = -fips,?fips=no, provider = rdrand-sim|~0~seed source: live"
    "no openssl_conf, provider rdrand: --enable's advice~rdrand~/^openssl_conf = /d~2~misconfigured: $OUT/v\\.cnf:1: \\[default\\] openssl_conf: no openssl_conf line before the first section: OpenSSL applies nothing in this file; rdrand-check --enable '$OUT/v\\.cnf' adds it and checks the result$"
    "no openssl_conf, another provider: no advice~$SIM~/^openssl_conf = /d~2~misconfigured: $OUT/v\\.cnf:1: \\[default\\] openssl_conf: no openssl_conf line before the first section: OpenSSL applies nothing in this file$"
    "openssl_conf naming no section~$SIM~s/^openssl_conf = .*/openssl_conf = nosuch_init/~2~misconfigured: $OUT/v\\.cnf:[0-9]+: \\[default\\] openssl_conf: openssl_conf = nosuch_init: no section \\[nosuch_init\\]$"
    "providers twice~$SIM~s/^providers = provider_sect/&\\nproviders = provider_sect/~2~misconfigured: $OUT/v\\.cnf:8: \\[openssl_init\\] providers: given twice \\(lines 8 and 9\\)"
    "no providers line, another provider: no advice~$SIM~/^providers = provider_sect/d~2~misconfigured: $OUT/v\\.cnf:[0-9]+: \\[openssl_init\\] providers: no providers line: provider rdrand-sim is not loaded from this file$"
    "a provider the file does not name, not rdrand: no advice~nosuch~~2~misconfigured: $OUT/v\\.cnf:[0-9]+: \\[provider_sect\\] no provider nosuch: add \"nosuch = nosuch_sect\" here and a \\[nosuch_sect\\] section with module = nosuch\\.so and activate = 1$"
)
for row in "${structure[@]}"; do
    IFS='~' read -r name prov script want says <<<"$row"
    sed -e "$script" "$ABS" >"$OUT/v.cnf"
    sim -- "$CHECK" --here -c "$OUT/v.cnf" --provider "$prov"
    check "$name: exit $want" exited_with "$want"
    check "$name: says so" stdout_has "^$says"
done
# A quote in the file's name: no --enable command to paste.
sed '/^openssl_conf = /d' "$ABS" >"$OUT/it's.cnf"
sim -- "$CHECK" --here -c "$OUT/it's.cnf" --provider rdrand
check "no openssl_conf, a quote in the name: exit 2" exited_with 2
check "  ... no --enable advice" \
    stdout_has "^misconfigured: $OUT/it's\\.cnf:1: \\[default\\] openssl_conf: no openssl_conf line before the first section: OpenSSL applies nothing in this file$"

# --- the check's own process killed from outside (the OOM killer, a
# timeout's SIGKILL): no last words; reported, exit 1, never live ---
rm -f "$OUT/fifo2.cnf"
mkfifo -m 0666 "$OUT/fifo2.cnf"
{ cat "$ABS"; echo ".include $OUT/fifo2.cnf"; } >"$OUT/sig2.cnf"
"$CHECK" --here -c "$OUT/sig2.cnf" --provider $SIM --json \
    >"$OUT/stdout" 2>"$OUT/stderr" &
top=$!
for _ in $(seq 300); do
    g=$(ps -o pid= --ppid $top | tr -d ' ' | head -n 1)
    if [ -n "$g" ] && grep -q wait_for_partner "/proc/$g/wchan" 2>/dev/null; then
        break
    fi
    sleep 0.1
done
check "the check's child waits on the FIFO" test -n "$g"
[ -n "$g" ] || killtree "$top" # so that the wait below cannot hang
: >"$OUT/plain2.cnf"
mv "$OUT/plain2.cnf" "$OUT/fifo2.cnf"
[ -z "$g" ] || kill -KILL "$g"
wait "$top"
status=$?
check "check process killed (SIGKILL): exit 1" exited_with 1
check "  ... the JSON names the signal, with no last words" "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
p = d["problems"][d["because"]]
assert d["exit_code"] == 1 and d["seed_source_live"] is False, d
assert p["message"] == ("the check process was killed by signal 9 (Killed) "
    "while loading this configuration or drawing: so is every application "
    "using it"), p' "$OUT/stdout"

# --- hostile bytes in a value, through all three reports ---
# The edges of valid UTF-8 (U+0800, U+D7FF, U+10FFFF, U+00A9), C0 and
# C1 controls, DEL, valid 2-, 3- and 4-byte UTF-8, overlong,
# surrogate and above-U+10FFFF sequences, a cut sequence, a bad lead
# byte, a tab and a backslash (NCONF keeps "\\" as one).
value='\xe0\xa0\x80\xed\x9f\xbf\xf4\x8f\xbf\xbf\xc2\xa9a\x01b\x7fc\xc2\x80d\xc3\xa9e\xe2\x82\xacf\xf0\x9f\x98\x80g\xe0\x80\x80h\xed\xa0\x80i\xf0\x80\x80\x80j\xf4\x90\x80\x80k\xc3l\xf8m\tex\\\\y'
HOSTILE=$OUT/hostile.cnf
# shellcheck disable=SC2059 # the value is the format: its \x escapes
{
    sed "/^warn = stderr\$/d" "$ABS"
    printf "[rdrand_sim_sect]\nwarn = $value\n"
} >"$HOSTILE"
check "the variant holds the raw bytes" grep -q $'\xf8' "$HOSTILE"
sim -- "$CHECK" --here -c "$HOSTILE" --provider $SIM
check "hostile value, text: exit 2" exited_with 2
check "  ... every control and ill-formed byte as \\xNN, UTF-8 kept" \
    grep -qF 'warn = "'$'\xe0\xa0\x80\xed\x9f\xbf\xf4\x8f\xbf\xbf\xc2\xa9''a\x01b\x7fc\xc2\x80d'$'\xc3\xa9''e'$'\xe2\x82\xac''f'$'\xf0\x9f\x98\x80''g\xe0\x80\x80h\xed\xa0\x80i\xf0\x80\x80\x80j\xf4\x90\x80\x80k\xc3l\xf8m\x09ex\y" is not accepted' \
    "$OUT/stdout"
check "  ... no raw control byte in the text report" \
    test "$(LC_ALL=C grep -c $'[\x01-\x08\x0b-\x1f\x7f]' "$OUT/stdout")" -eq 0
sim -- "$CHECK" --here -c "$HOSTILE" --provider $SIM --json
check "hostile value, --json: exit 2" exited_with 2
check "  ... strict UTF-8 JSON; controls escaped, ill-formed bytes U+FFFD" \
    "$PY" -c 'import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
want = ("warn = \"\u0800\ud7ff\U0010ffff\xa9a\x01b\ufffdc\x80d\xe9e\u20acf\U0001f600g" + "\ufffd" * 3
        + "h" + "\ufffd" * 3 + "i" + "\ufffd" * 4 + "j" + "\ufffd" * 4
        + "k\ufffdl\ufffdm\tex\\y\" is not accepted")
assert any(want in p["message"] for p in d["problems"]), d["problems"]' \
    "$OUT/stdout"
sim -- "$CHECK" --here -c "$HOSTILE" --provider $SIM --prometheus
check "hostile value, --prometheus: exit 2" exited_with 2
check "  ... promtool accepts it" promtool check metrics <"$OUT/stdout"
check "  ... labels: controls and ill-formed bytes U+FFFD, \\ and \" escaped" \
    "$PY" -c 'import sys
t = open(sys.argv[1], "rb").read().decode("utf-8")
want = ("warn = \\\"\u0800\ud7ff\U0010ffff\xa9a\ufffdb\ufffdc\x80d\xe9e\u20acf\U0001f600g" + "\ufffd" * 3
        + "h" + "\ufffd" * 3 + "i" + "\ufffd" * 4 + "j" + "\ufffd" * 4
        + "k\ufffdl\ufffdm\ufffdex\\\\y\\\" is not accepted")
line = [l for l in t.split("\n") if l.startswith("rdrand_info{")][0]
assert want in line, line' "$OUT/stdout"

# --- a path longer than the service draw's reason holds (1024 bytes):
# its finding, cut as this process cuts its own, is still told once ---
deep=$OUT
for _ in 1 2 3 4 5; do deep=$deep/$(printf 'd%.0s' {1..220}); done
mkdir -p "$deep"
sed 's/^warn = stderr$/warn = loud/' "$ABS" >"$deep/long.cnf"
sim -- "$CHECK" -c "$deep/long.cnf" --provider $SIM
check "a ${#deep}-byte directory: exit 2" exited_with 2
check "  ... the finding names the line" \
    stdout_has "^misconfigured: $deep/long\.cnf:[0-9]+: \[rdrand_sim_sect\] warn: warn = \"loud\" is not accepted"
check "  ... the service draw saw it too: NOT live" \
    stdout_has '^as a service: user nobody .*: NOT live \(see the finding\)$'
check "  ... and it is not told twice" \
    stdout_lacks 'a service using this configuration is not seeded as this process is'

# --- a finding in an included file: JSON names that file ---
printf 'conditioning = bogus\n' >"$OUT/part.cnf"
sed "s|^warn = stderr\$|&\n.include $OUT/part.cnf|" "$ABS" >"$OUT/inc.cnf"
sim -- "$CHECK" --here -c "$OUT/inc.cnf" --provider $SIM --json
check "a bad value in an included file, --json: exit 2" exited_with 2
check "  ... its file and line" "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
p = d["problems"][d["because"]]
assert p["file"] == sys.argv[2] and p["line"] == 1, p
assert d["config_real"] == sys.argv[3], d["config_real"]' \
    "$OUT/stdout" "$OUT/part.cnf" "$OUT/inc.cnf"

# --- the check killed by a signal (on_coco_failure = abort), without
# --here: the service draw's result died with it; no claim for whom ---
aborting=("OPENSSL_MODULES=$SIM_MODULES" "OPENSSL_CONF=$CONF/sim-coco.cnf"
    "RDRAND_TEST_ON_COCO_FAILURE=abort" "RDRAND_TEST_COCO=auto"
    "RDRAND_TEST_COCO_SEED_BITS=256" "RDRAND_SIM=coco=tdx,fail-at=9")
run "${aborting[@]}" -- "$CHECK" --provider $SIM
check "abort, service draw on: exit 1" exited_with 1
check "  ... names the signal" \
    stdout_has '^verdict: 1 unhealthy, because the check process was killed by signal 6 \(Aborted\)'
check "  ... says nothing of a service draw it has no result of" \
    stdout_lacks '^as a service'
run "${aborting[@]}" -- "$CHECK" --provider $SIM --json
check "abort, service draw on, --json: exit 1" exited_with 1
check "  ... service null, the signal the finding" "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["service"] is None and d["exit_code"] == 1, d
assert "killed by signal 6" in d["problems"][d["because"]]["message"]' \
    "$OUT/stdout"

# --- more findings than a report holds: the first 64, still exit 2 ---
MANY=$OUT/many.cnf
{
    cat "$ABS"
    printf '[rdrand_sim_sect]\n'
    for i in $(seq 1 80); do printf 'zzkey%d = 1\n' "$i"; done
} >"$MANY"
sim -- "$CHECK" --here -c "$MANY" --provider $SIM --json
check "80 unknown keys: exit 2" exited_with 2
check "  ... 64 findings reported, the first ones, in order" "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
ps = d["problems"]
assert len(ps) == 64, len(ps)
keys = [p["key"] for p in ps if p["key"].startswith("zzkey")]
assert keys == ["zzkey%d" % i for i in range(1, len(keys) + 1)], keys
assert d["because"] is not None and ps[d["because"]]["severity"] == "misconfigured"' \
    "$OUT/stdout"

finish
