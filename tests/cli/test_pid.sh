#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shellcheck disable=SC2317 # the helpers below are called through check
# rdrand-check --pid against real long-running processes started here:
# openssl s_server and a Python HTTPS server on 127.0.0.1 with
# conf/rdrand.cnf, a failing simulated CPU, and the error cases (no such
# process, no module, not permitted, two instances, another version, a
# module removed on disk, processes that exit while read), every state
# and forged header a block can say (tests/pid/block.c), and the caps.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
CHECK=$RDRAND_BUILD_DIR/rdrand-check
# A Python whose ssl imports under this environment (ctest's
# LD_LIBRARY_PATH can break a pyenv build): the system's first, the one
# a Debian service runs.
PY=
for py in /usr/bin/python3 python3; do
    if "$py" -c 'import ssl, ctypes, json' 2>/dev/null; then
        PY=$py
        break
    fi
done
[ -n "$PY" ] || { echo "skip - no python3 whose ssl module imports"; exit 77; }
children=()
cleanup() {
    local p
    for p in "${children[@]}"; do kill "$p" 2>/dev/null; done
    rm -rf "$OUT"
}
trap cleanup EXIT

free_port() {
    "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_port() { # wait_port PORT: up to 10 s for a listener
    local i
    for ((i = 0; i < 100; i++)); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
wait_file() { # wait_file FILE: up to 10 s for the helper's "ready"
    local i
    for ((i = 0; i < 100; i++)); do
        [ -s "$1" ] && return 0
        sleep 0.1
    done
    return 1
}
pid_check() { run -- "$CHECK" --pid "$@"; }
exited() { [ "$status" -eq "$1" ]; }
param() { # param NAME: its value in the last text report
    sed -n "s/^  $1 = //p" "$OUT/stdout"
}
param_is() { [ "$(param "$1")" = "$2" ]; }
at_least() { [ "$(param "$1")" -ge "$2" ] 2>/dev/null; }

# hold_py NAME SCRIPT ARGS...: python3 runs SCRIPT with the ready file as
# its first argument, in the background (held=its pid), until it says
# ready; SCRIPT writes that file, then sleeps.
hold_py() {
    local ready=$OUT/ready.$1 script=$2
    shift 2
    "$PY" -c "$script" "$ready" "$@" &
    held=$!
    children+=("$held")
    wait_file "$ready"
}

# hold_prog NAME MODE: tests/pid/code_load.c (built against the
# libcrypto under test, unlike the system's python3) in MODE, in the
# background with the environment given, until it says ready.
hold_prog() {
    "$RDRAND_BUILD_DIR/tests/pid_code_load" "$2" >"$OUT/ready.$1" 2>"$OUT/$1.log" &
    held=$!
    children+=("$held")
    wait_file "$OUT/ready.$1"
}

# A python3 process that loads FILES... with ctypes and waits.
hold_python() {
    local ready=$OUT/ready.$RANDOM
    "$PY" -c 'import ctypes, sys, time
for f in sys.argv[2:]: ctypes.CDLL(f)
open(sys.argv[1], "w").write("ready")
time.sleep(60)' "$ready" "$@" &
    held=$!
    children+=("$held")
    wait_file "$ready"
}

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$OUT/key.pem" -out "$OUT/cert.pem" -days 1 -subj /CN=localhost \
    >/dev/null 2>&1 || { echo "cannot make a test certificate"; exit 1; }
export OPENSSL_MODULES=$REAL_MODULES

# ---- openssl s_server: seeded at startup, once ----
port=$(free_port)
OPENSSL_CONF=$CONF/rdrand.cnf "$OPENSSL_BIN" s_server -accept "127.0.0.1:$port" \
    -cert "$OUT/cert.pem" -key "$OUT/key.pem" -www </dev/null \
    >"$OUT/s_server.log" 2>&1 &
server=$!
children+=("$server")
check "s_server listens" wait_port "$port"
OPENSSL_CONF=/dev/null timeout 10 "$OPENSSL_BIN" s_client \
    -connect "127.0.0.1:$port" </dev/null >/dev/null 2>&1
pid_check "$server"
check "s_server: exit 0, live" exited 0
check "s_server: the module is rdrand.so" stdout_has "^  module-path = .*/rdrand\.so$"
check "s_server: seed-requests >= 1 after a handshake" at_least seed-requests 1
check "s_server: no seed failed" stdout_has "^  seed-failures = 0$"
check "s_server: its default library context was seeded" \
    at_least default-context-seed-requests 1
check "s_server: an instance in the default library context" \
    at_least default-context-instances 1
check "s_server: the seed source line names the process" \
    stdout_has "^seed source: live: [0-9]+ seed requests? served .* in process $server "
pid_check "$server" --json
json_ok() {
    "$PY" -m json.tool "$OUT/stdout" >/dev/null &&
        "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
p = d["params"]
assert d["pid"] == int(sys.argv[2]) and d["exit_code"] == 0, d
assert d["provider_loaded"] and d["seed_source_live"], d
assert p["seed-requests"] >= 1 and p["seed-failures"] == 0, p
for k in ("rdrand-words", "rdrand-failures", "health-verdict",
          "health-trips", "coco-platform", "coco-enforced", "conditioning",
          "health-state", "version", "provider-instances", "mix", "os-bytes",
          "os-failures"):
    assert k in p, k' "$OUT/stdout" "$server"
}
check "s_server --json: valid, with the fields" json_ok
pid_check "$server" --prometheus
if command -v promtool >/dev/null; then
    check "s_server --prometheus: promtool check metrics" \
        promtool check metrics <"$OUT/stdout"
else
    echo "skip - promtool not installed"
fi
check "s_server --prometheus: labelled with the pid" \
    stdout_has "^rdrand_seed_requests_total\{provider=\"rdrand\",pid=\"$server\"\} [1-9]"

# ---- not permitted: nobody reading root's server ----
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
    echo "skip - not permitted: needs root (to run rdrand-check as nobody against a root-owned server)"
elif ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$CHECK"; then
    echo "skip - not permitted: nobody cannot run $CHECK (build directory not accessible)"
else
    run -- setpriv --reuid=65534 --regid=65534 --clear-groups "$CHECK" --pid "$server"
    check "as nobody: exit 4" exited 4
    check "as nobody: says not permitted and what permits it" \
        stderr_has "not permitted to read process $server .*run as root or as the process's user.*CAP_SYS_PTRACE"
fi

# ---- a Python HTTPS server: counters move as it reseeds ----
ssl_crypto=$("$PY" -c 'import _ssl; print(_ssl.__file__)' 2>/dev/null |
    xargs -r ldd 2>/dev/null | awk '$1 ~ /^libcrypto/ {print $3}')
our_libdir=$(pkg-config --variable=libdir libcrypto)
if [ -n "${PKG_CONFIG_PATH-}" ] || [ -z "$ssl_crypto" ] ||
    [ "$(readlink -f "$(dirname "$ssl_crypto")")" != "$(readlink -f "$our_libdir")" ]; then
    echo "skip - Python server: $PY's ssl uses ${ssl_crypto:-no libcrypto}, not the libcrypto in $our_libdir this module is built for (a private OpenSSL build)"
else
    port=$(free_port)
    # The handshake in each connection's own thread: a new thread's DRBGs
    # draw from the primary DRBG, which reseeds from the seed source every
    # so many draws (measured: about one seed per 64-128 connections;
    # s_server, one thread, seeds once at startup in 300 handshakes).
    OPENSSL_CONF=$CONF/rdrand.cnf "$PY" -c 'import http.server, ssl, sys
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[2], sys.argv[3])
class Server(http.server.ThreadingHTTPServer):
    def finish_request(self, request, address):
        super().finish_request(ctx.wrap_socket(request, server_side=True), address)
Server(("127.0.0.1", int(sys.argv[1])), http.server.BaseHTTPRequestHandler).serve_forever()' \
        "$port" "$OUT/cert.pem" "$OUT/key.pem" >"$OUT/python.log" 2>&1 &
    pyserver=$!
    children+=("$pyserver")
    check "Python server listens" wait_port "$port"
    connect() { # connect N: N TLS connections, one request each
        OPENSSL_CONF=/dev/null "$PY" -c 'import socket, ssl, sys
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
for _ in range(int(sys.argv[2])):
    with socket.create_connection(("127.0.0.1", int(sys.argv[1]))) as s:
        with ctx.wrap_socket(s) as t:
            t.sendall(b"GET / HTTP/1.0\r\n\r\n")
            t.recv(100)' "$port" "$1"
    }
    connect 1
    pid_check "$pyserver"
    check "Python server: exit 0, live" exited 0
    check "Python server: seed-requests >= 1 after the first handshake" \
        at_least seed-requests 1
    words=$(param rdrand-words) seeds=$(param seed-requests)
    connect 300
    pid_check "$pyserver"
    check "Python server: rdrand-words grew over 300 connections ($words -> $(param rdrand-words))" \
        at_least rdrand-words $((words + 1))
    check "Python server: seed-requests grew ($seeds -> $(param seed-requests))" \
        at_least seed-requests $((seeds + 1))
    check "Python server: still live" exited 0
fi

# ---- a failing CPU (the simulated one): exit 1 and the failures ----
hold_failing() {
    OPENSSL_MODULES=$SIM_MODULES OPENSSL_CONF=$CONF/rdrand-sim.cnf \
        RDRAND_SIM=fail-at=1 hold_prog sim conf
}
check "a process on a failing simulated CPU starts" hold_failing
# The simulated-CPU module is not the rdrand.so this tool trusts by
# default: its block is not read until the operator names it.
pid_check "$held"
check "simulated module, not named: exit 4" exited 4
check "simulated module, not named: not trusted, and how to name it" \
    stderr_has "maps .*/rdrand-sim\.so, which exports rdrand_status but is not a module this rdrand-check trusts \(not byte for byte .*/rdrand\.so\).*--module FILE"
pid_check "$held" --module "$SIM_MODULES/rdrand-sim.so"
check "failing CPU: exit 1" exited 1
check "failing CPU: the module is rdrand-sim.so" stdout_has "^  module-path = .*/rdrand-sim\.so$"
check "failing CPU: rdrand-failures >= 1" at_least rdrand-failures 1
check "failing CPU: the verdict is not ok" stdout_has "^  health-verdict = (intermittent|permanent)$"
check "failing CPU: the report says RDRAND failed" stdout_has "^unhealthy: RDRAND reported failure"

# conditioning = reduce512 whose key draw at load met CF=0: the CPU's
# fault (unhealthy, exit 1), not a refused config section.
sed 's/^warn = stderr$/&\nconditioning = reduce512/' "$CONF/rdrand-sim.cnf" >"$OUT/reduce512.cnf"
hold_key() {
    OPENSSL_MODULES=$SIM_MODULES OPENSSL_CONF=$OUT/reduce512.cnf \
        RDRAND_SIM=fail-at=65 hold_prog key conf
}
check "a process whose reduce512 key draw failed starts" hold_key
pid_check "$held" --module "$SIM_MODULES/rdrand-sim.so"
check "key draw failed: exit 1 (RDRAND), not 2" exited 1
check "  ... not called a refused config section" \
    stdout_lacks 'refused their config section'

# ---- errors ----
sleep 0 &
dead=$!
wait "$dead"
pid_check "$dead"
check "no such process: exit 4" exited 4
check "no such process: says so" stderr_has "^rdrand-check: no process $dead "
# Metrics written for a live process are removed, not left saying "live",
# when the process can no longer be read.
prom=$OUT/pid.prom
pid_check "$server" --prometheus -o "$prom"
check "--prometheus -o for a live process: written, live 1" \
    grep -q '^rdrand_seed_source_live{.*} 1$' "$prom"
pid_check "$dead" --prometheus -o "$prom"
gone_removed() { [ "$status" -eq 4 ] && [ ! -e "$prom" ]; }
check "--prometheus -o for a gone process: exit 4, the old file removed" \
    gone_removed
check "  ... and said so" stderr_has "^rdrand-check: removed $prom: it described process $dead"

sleep 60 &
plain=$!
children+=("$plain")
pid_check "$plain"
check "a process without the module: exit 2" exited 2
check "a process without the module: says it is not loaded" \
    stdout_has "not loaded in process $plain .*seeds do not come from this provider"
pid_check "$plain" --prometheus
check "a process without the module, --prometheus: no rdrand_info (no labels to give)" \
    stdout_lacks '^rdrand_info'
check "  ... rdrand_seed_source_live 0, its HELP about the process" \
    grep -qE '^# HELP rdrand_seed_source_live 1 if the process.s default library context' "$OUT/stdout"
if command -v promtool >/dev/null; then
    check "  ... promtool check metrics" promtool check metrics <"$OUT/stdout"
fi

mkdir -p "$OUT/a" "$OUT/b" "$OUT/c"
cp "$REAL_MODULES/rdrand.so" "$OUT/a/rdrand.so"
cp "$REAL_MODULES/rdrand.so" "$OUT/b/rdrand.so"
check "a process with two copies of the module starts" \
    hold_python "$OUT/a/rdrand.so" "$OUT/b/rdrand.so"
pid_check "$held"
check "two instances: exit 4" exited 4
check "two instances: names both paths" \
    stderr_has "2 instances of the provider module .*($OUT/a/rdrand\.so and $OUT/b/rdrand\.so|$OUT/b/rdrand\.so and $OUT/a/rdrand\.so)"

check "a process with another version's block starts" \
    hold_python "$RDRAND_BUILD_DIR/tests/pid_other_layout.so"
pid_check "$held" --module "$RDRAND_BUILD_DIR/tests/pid_other_layout.so"
check "another version: exit 4" exited 4
check "another version: names both versions and what to use" \
    stderr_has "version 99\.0\.0 \(status layout [0-9]+.*this rdrand-check is version [0-9.]+ .*use the rdrand-check of version 99\.0\.0"

# Loaded (dlopen) but no provider made of it, then removed on disk.
cp "$REAL_MODULES/rdrand.so" "$OUT/c/rdrand.so"
check "a process with the module loaded, not used, starts" \
    hold_python "$OUT/c/rdrand.so"
rm "$OUT/c/rdrand.so"
pid_check "$held"
check "mapped, no provider instance: exit 2" exited 2
check "mapped, no provider instance: says so (waiting would not help)" \
    stdout_has "no provider instance is loaded in process $held now"
check "mapped, no provider instance: status 0, not ok" param_is status 0
check "mapped, no provider instance: health-state says no instance" \
    param_is health-state "no provider instance is loaded now: nothing is served from this module"
if [ "$(id -u)" = 0 ]; then
    # Root opens the very file the process mapped (/proc/PID/map_files).
    check "removed on disk: still read, and said" \
        stdout_has "$OUT/c/rdrand\.so was replaced or removed on disk"
else
    check "removed on disk, not root: not examined, and said" \
        stdout_has "$OUT/c/rdrand\.so \(deleted\) and any other mapped file this user cannot open was not examined: run as root"
fi

# ---- nothing the process controls is believed ----
# A library of its own exporting a block of this version that says
# "live": not the module, so never read, whatever it says.
check "a process with a forged status block starts" \
    hold_python "$RDRAND_BUILD_DIR/tests/pid_forged.so"
pid_check "$held"
check "forged block: exit 4, never live" exited 4
check "forged block: named as not the module" \
    stderr_has "maps .*/pid_forged\.so, which exports rdrand_status but is not a module this rdrand-check trusts"
check "forged block: no report on stdout" stdout_lacks "."
# ... beside the real module: still not read as one instance.
check "a process with the module and a forged block starts" \
    hold_python "$REAL_MODULES/rdrand.so" "$RDRAND_BUILD_DIR/tests/pid_forged.so"
pid_check "$held"
check "forged block beside the module: exit 4" exited 4

# The real module's first page mapped by hand, a "live" block in
# anonymous memory where its block would be: not the module as ld.so
# loads it, so not read.
hold_map_forged() {
    local ready=$OUT/ready.mapped offset
    offset=$(nm -D --defined-only "$REAL_MODULES/rdrand.so" |
        awk '$3 == "rdrand_status" { print $1 }')
    [ -n "$offset" ] || return 1
    "$RDRAND_BUILD_DIR/tests/pid_map_forged" "$REAL_MODULES/rdrand.so" "$offset" >"$ready" &
    held=$!
    children+=("$held")
    wait_file "$ready"
}
check "a process mapping a page of rdrand.so by hand, a block beside, starts" hold_map_forged
pid_check "$held"
check "hand-mapped module: exit 4, never live" exited 4
check "hand-mapped module: says it is not mapped as the loader maps it" \
    stderr_has "maps $REAL_MODULES/rdrand\.so, a module this rdrand-check trusts, but not as the dynamic loader maps it"

# A seeded process that also maps the module file again (an mmap of its
# own, at a lower address): the loaded module is still the one read.
hold_seeded_mmap() {
    OPENSSL_CONF=$CONF/rdrand.cnf hold_py mmap 'import ctypes, mmap, os, sys, time
crypto = ctypes.CDLL("libcrypto.so.3")
buf = ctypes.create_string_buffer(16)
assert crypto.RAND_bytes(buf, 16) == 1
m = mmap.mmap(os.open(sys.argv[2], os.O_RDONLY), 0, prot=mmap.PROT_READ)
open(sys.argv[1], "w").write("ready")
time.sleep(60)' "$REAL_MODULES/rdrand.so"
}
if [ -n "${PKG_CONFIG_PATH-}" ]; then
    echo "skip - seeded process with an extra mmap: python's libcrypto is not the one under test"
else
    check "a seeded process that mmaps rdrand.so again starts" hold_seeded_mmap
    pid_check "$held"
    check "extra mmap of the module: still read, exit 0 live" exited 0
fi

# A mapped file with 4,096 dynamic symbol tables of 64 MiB each (sparse):
# one table is read, capped, and the answer comes at once.
"$PY" - "$OUT/bomb.so" <<'PYEOF'
import struct, sys
size, n = 64 << 20, 4096
eh = bytearray(64)
eh[0:7] = b"\x7fELF\x02\x01\x01"
struct.pack_into("<HHIQQQIHHHHHH", eh, 16, 3, 62, 1, 0, 0, 4096, 0, 64, 0, 0, 64, n, 0)
with open(sys.argv[1], "wb") as f:
    f.write(eh)
    f.seek(4096)
    f.write(struct.pack("<IIQQQQIIQQ", 0, 3, 0, 0, 0, size, 0, 0, 1, 0))
    for _ in range(1, n):
        f.write(struct.pack("<IIQQQQIIQQ", 0, 11, 0, 0, 0, size, 0, 0, 8, 24))
    f.truncate(size + 8192)
PYEOF
hold_bomb() {
    hold_py bomb 'import mmap, os, sys, time
m = mmap.mmap(os.open(sys.argv[2], os.O_RDONLY), 4096, prot=mmap.PROT_READ)
open(sys.argv[1], "w").write("ready")
time.sleep(60)' "$OUT/bomb.so"
}
check "a process mapping a file of 4,096 64 MiB symbol tables starts" hold_bomb
run -- timeout 20 "$CHECK" --pid "$held"
check "symbol-table bomb: answered (not loaded, exit 2), not stalled" exited 2

# The module loaded only into a library context of the program's own,
# its default context (RAND_bytes, TLS) seeded by the OS: not "seeded".
hold_code_load() { OPENSSL_CONF=/dev/null hold_prog "$1" "$1"; } # MODE
check "a program seeding only a private library context from rdrand.so starts" \
    hold_code_load private
pid_check "$held"
check "private context only: exit 2, not live" exited 2
check "  ... it served seeds there" at_least seed-requests 1
check "  ... none to the default context" param_is default-context-seed-requests 0
check "  ... no instance in the default context" param_is default-context-instances 0
check "  ... and says so" \
    stdout_has "none of them to its default library context: it is loaded only into library contexts the application made itself"

# The README's in-code load, OSSL_PROVIDER_load(NULL, ...): the default
# library context (the core keeps the NULL it was given) is seeded by it.
check "a program loading rdrand.so in code into the default context starts" \
    hold_code_load default
pid_check "$held"
check "in-code load, NULL library context: exit 0, live" exited 0
check "  ... its default context seeded" at_least default-context-seed-requests 1
check "  ... an instance there" at_least default-context-instances 1

# The block's pages behind userfaultfd, never served: every read of them
# blocks, and the deadline (5 s, then the reader is killed) still holds.
"$RDRAND_BUILD_DIR/tests/pid_stall" "$REAL_MODULES/rdrand.so" >"$OUT/ready.stall" 2>&1 &
held=$!
children+=("$held")
wait_file "$OUT/ready.stall"
if ! kill -0 "$held" 2>/dev/null; then
    wait "$held"
    echo "skip - userfaultfd cannot hold a kernel read here (pid_stall exited $?)"
else
    start=$SECONDS
    run -- timeout 60 "$CHECK" --pid "$held"
    check "stalled block: exit 4, not killed by the test's timeout" exited 4
    check "  ... says it gave up" stderr_has "^rdrand-check: gave up on process $held .*did not return"
    check "  ... within the deadline and a margin (took $((SECONDS - start)) s)" \
        test $((SECONDS - start)) -le 15
fi

# A maps line of any length: the module's path longer than 4,224 bytes
# (reached by relative steps: no one path may exceed PATH_MAX).
deep=$OUT/deep
part=$(printf 'd%.0s' {1..200})
hold_deep() {
    local ready=$OUT/ready.deep
    (
        mkdir -p "$deep" && cd "$deep" || exit 1
        for _ in $(seq 24); do mkdir "$part" && cd "$part" || exit 1; done
        cp "$REAL_MODULES/rdrand.so" rdrand.so || exit 1
        exec "$PY" -c 'import ctypes, sys, time
ctypes.CDLL("./rdrand.so")
open(sys.argv[1], "w").write("ready")
time.sleep(60)' "$ready"
    ) &
    held=$!
    children+=("$held")
    wait_file "$ready"
}
check "a process with the module under a 4,900-byte path starts" hold_deep
maps_line_long() { [ "$(grep -F "/rdrand.so" "/proc/$held/maps" | head -n 1 | wc -c)" -gt 4224 ]; }
check "  ... its maps line is over 4,224 bytes" maps_line_long
pid_check "$held"
check "long maps line: the module found (loaded, no instance: exit 2)" exited 2
check "long maps line: module-path is the whole path" \
    stdout_has "^  module-path = $deep(/d{200}){24}/rdrand\.so$"

# A process name that would steer root's terminal or print a verdict
# line of its own: escaped in text, a plain string in JSON.
hold_named() {
    hold_py named 'import ctypes, sys, time
ctypes.CDLL(None).prctl(15, b"\x1b[2J\nverdict: 0", 0, 0, 0)
open(sys.argv[1], "w").write("ready")
time.sleep(60)'
}
check "a process named with an escape and a newline starts" hold_named
pid_check "$held"
check "hostile name: exit 2 (not loaded)" exited 2
check "hostile name: no raw control byte in the text report" \
    stdout_lacks $'[\x01-\x09\x0b-\x1f\x7f]'
check "hostile name: no verdict line of its own" \
    test "$(grep -c '^verdict: ' "$OUT/stdout")" = 1
check "hostile name: shown escaped" \
    stdout_has 'process [0-9]+ \(\\x1b\[2J\\x0averdict: 0\)'
pid_check "$held" --json
json_named() {
    "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["process"] == "\x1b[2J\nverdict: 0", d
assert d["config"] is None and d["config_real"] is None, d
assert all(p["file"] is None for p in d["problems"]), d' "$OUT/stdout"
}
check "hostile name --json: in \"process\", config and problem files null" json_named

# Processes that exit while read (best effort: the race is rarely won,
# but every outcome must be one of the clear ones).
clean_outcomes() {
    local i p
    for ((i = 0; i < 30; i++)); do
        sleep 0.0$((i % 10)) &
        p=$!
        "$CHECK" --pid "$p" >"$OUT/stdout" 2>"$OUT/stderr"
        status=$?
        wait "$p" 2>/dev/null
        case $status in
        2) stdout_has "not loaded in process $p " || return 1 ;;
        4) stderr_has "^rdrand-check: (no process $p |process $p.* exited while it was being read)" || return 1 ;;
        *) return 1 ;;
        esac
    done
}
check "processes exiting while read: only clear outcomes (exit 2 or 4)" clean_outcomes

# ---- every state a block can say, and forged headers ----
# tests/pid/block.c loads tests/pid/forged.c's library (1,000 seeds
# served, none to the default context) and sets its block's fields; the
# operator names that library with --module, so its block is read.
FORGED=$RDRAND_BUILD_DIR/tests/pid_forged.so
# ... and its variants: a symbol bigger than the block, or too small for
# its header.
PAD=$RDRAND_BUILD_DIR/tests/pid_forged_pad.so
TINY=$RDRAND_BUILD_DIR/tests/pid_forged_tiny.so
hold_block() { # hold_block LIBRARY FIELD=VALUE...
    local ready=$OUT/ready.block.$RANDOM
    "$RDRAND_BUILD_DIR/tests/pid_block" "$@" >"$ready" &
    held=$!
    children+=("$held")
    wait_file "$ready"
}
block_check() { # block_check FIELD=VALUE...: the block so set, read
    hold_block "$FORGED" "$@" || return 1
    pid_check "$held" --module "$FORGED"
}
permanent=$((1 << 63))

check "a block saying live, read" block_check c11=5 live_default_instances=1
check "  ... exit 0" exited 0
check "  ... seed source live" stdout_has "^seed source: live: "
check "  ... health-state ok, status 1" param_is health-state ok
check "  ... status 1" param_is status 1

check "a block with a permanent verdict, read" block_check c11=5 \
    live_default_instances=1 verdict=$((permanent + 1)) verdict_reason=102
check "  ... exit 1" exited 1
check "  ... the verdict, its fault and its reason" \
    stdout_has "^unhealthy: the process's verdict on RDRAND is permanent after 1 fault: no request is served again until it restarts: RDRAND returned an all-zero word"
check "  ... health-state is the reason" \
    stdout_has "^  health-state = RDRAND returned an all-zero word"
check "  ... health-verdict permanent" param_is health-verdict permanent
check "  ... not live" stdout_lacks "^seed source: live"

check "a block with an intermittent verdict, read" block_check \
    c11=5 live_default_instances=1 verdict=3 c1=1
check "  ... exit 1" exited 1
check "  ... the verdict and its faults" \
    stdout_has "^unhealthy: the process's verdict on RDRAND is intermittent after 3 faults$"
check "  ... one CF=0" stdout_has "^unhealthy: RDRAND reported failure \(CF=0\) 1 time in process $held$"
check "  ... health-state still ok (no permanent verdict)" param_is health-state ok
check "  ... not live" stdout_lacks "^seed source: live"
check "a block with failed seeds, read" block_check \
    c11=5 live_default_instances=1 c1=2 c3=2
check "  ... exit 1" exited 1
check "  ... the failed seeds" \
    stdout_has "^unhealthy: 2 of the 1000 seed requests process $held made failed$"
check "  ... two CF=0" stdout_has "^unhealthy: RDRAND reported failure \(CF=0\) 2 times in process $held$"
check "  ... not live" stdout_lacks "^seed source: live"
check "a block as tests/pid/forged.c has it, read" block_check
check "  ... exit 2" exited 2
check "  ... its 1,000 seeds, none to the default context" \
    stdout_has "^misconfigured: the provider module served 1000 seed requests in process $held, none of them to its default library context"

check "a block with two CoCo refusals, read" block_check coco_refusals=2 \
    coco_cause=100 c11=5 live_default_instances=1
check "  ... exit 1" exited 1
check "  ... the refusals and the cause" \
    stdout_has "^unhealthy: the provider refused to load 2 times in process $held: the confidential-computing check failed \(RDRAND is not available on this CPU"
check "  ... health-state is the CoCo reason" \
    stdout_has "^  health-state = confidential-computing guest without RDRAND"
check "a block with one CoCo refusal, read" block_check coco_refusals=1 \
    coco_cause=101 c11=5 live_default_instances=1
check "  ... one time" stdout_has "refused to load 1 time in process $held: "
check "  ... health-state is the CoCo draw's reason" \
    stdout_has "^  health-state = confidential-computing guest: RDRAND failed the check at load"
check "a block with a failed CoCo check, no refusal, read" block_check \
    coco_cause=101 c11=5 live_default_instances=1
check "  ... exit 1" exited 1
check "  ... every seed request fails" \
    stdout_has "^unhealthy: the confidential-computing check at load failed in process $held \(.*\): every seed request fails$"

check "a block on a CPU without RDRAND, read" block_check rdrand_available=0 \
    c11=5 live_default_instances=1
check "  ... exit 1" exited 1
check "  ... says so" stdout_has "^unhealthy: RDRAND is not available on this CPU"
check "  ... rdrand-available 0" param_is rdrand-available 0
check "  ... health-state says so" \
    stdout_has "^  health-state = RDRAND is not available on this CPU"

check "a block with a refused config section, read" block_check \
    live_config_refused=1 c11=5 live_default_instances=1
check "  ... exit 2" exited 2
check "  ... names the refusal" \
    stdout_has "^misconfigured: 1 of 1 provider instances refused their config section"
check "  ... not live" stdout_lacks "^seed source: live"

check "a block with no seed served, read" block_check c2=0
check "  ... exit 2" exited 2
check "  ... not seeded yet" stdout_has "has served no seed: the process has not seeded yet"

check "a block whose default-context instance is gone, read" block_check \
    c11=5 live_default_instances=0
check "  ... exit 2" exited 2
check "  ... says its seeds come from elsewhere now" \
    stdout_has "no provider instance is loaded in process $held's default library context now"

check "a block with instances of each conditioning and mix, read" \
    block_check cond1=1 cond2=1 mix1=1 c11=5 live_default_instances=1
check "  ... conditioning lists the values" param_is conditioning reduce512,refused
check "  ... mix lists its value" param_is mix os

check "a block whose writers never finish, read" block_check writers=1
check "  ... exit 4" exited 4
check "  ... gives up after a second, says why" \
    stderr_has "^rdrand-check: process $held \(pid_block\): the provider's state kept changing for a second"

check "a block with another magic, read" block_check magic=0
check "  ... exit 4" exited 4
check "  ... not a block this rdrand-check knows" \
    stderr_has "pid_forged\.so exports rdrand_status but it is not a status block this rdrand-check knows \(magic 0\)"
check "a block whose version holds a control byte, read" block_check \
    "version=$(printf '\033')9.9"
check "  ... exit 4" exited 4
check "  ... the version shown escaped, refused" \
    stderr_has "runs .*pid_forged\.so version \?9\.9 \(status layout 3, "
check "a block whose header claims another size, read" block_check size=1
check "  ... exit 4" exited 4
check "  ... refused, the size named" stderr_has "\(status layout 3, 1 bytes\)"

check "a block with a permanent verdict, no fault counted, read" block_check \
    c11=5 live_default_instances=1 verdict=$permanent verdict_reason=102
check "  ... exit 1" exited 1
check "  ... the verdict, its reason" \
    stdout_has "^unhealthy: the process's verdict on RDRAND is permanent after 0 faults: no request is served again until it restarts: RDRAND returned an all-zero word"
check "a block with one seed served, none to the default context, read" \
    block_check c2=1
check "  ... one request" \
    stdout_has "^misconfigured: the provider module served 1 seed request in process $held, none of them"
check "a block whose version holds a DEL, read" block_check \
    "version=$(printf '\177')9.9"
check "  ... exit 4, the version shown escaped" \
    stderr_has "runs .*pid_forged\.so version \?9\.9 \(status layout 3, "
# Pages of the block the process made unreadable: its header's, or one
# further on (the header reads, the whole block does not).
check "a block whose header page is unreadable, read" block_check protect=0
check "  ... exit 4" exited 4
check "  ... says the read failed, and why" \
    stderr_has "^rdrand-check: reading the memory of process $held \(pid_block\): Bad address$"
check "a block whose second page is unreadable, read" block_check protect=1
check "  ... exit 4" exited 4
check "  ... says the read failed, and why" \
    stderr_has "^rdrand-check: reading the memory of process $held \(pid_block\): Bad address$"

# A zombie: its memory is gone, so nothing to report.
hold_zombie() {
    local ready=$OUT/ready.zombie
    # A parent that never reaps: its child (sleep 0) exits at once and
    # stays a zombie.  Not sh: dash may reap the child before its exec.
    python3 -c 'import os, sys, time
pid = os.fork()
if pid == 0:
    os.execvp("sleep", ["sleep", "0"])
open(sys.argv[1] + ".tmp", "w").write(str(pid))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(60)' "$ready" &
    children+=("$!")
    wait_file "$ready" || return 1
    held=$(cat "$ready")
    local i
    for ((i = 0; i < 100; i++)); do
        [ "$(awk '{print $3}' "/proc/$held/stat" 2>/dev/null)" = Z ] && return 0
        sleep 0.1
    done
    return 1
}
check "a zombie process is there" hold_zombie
pid_check "$held"
check "  ... exit 4" exited 4
check "  ... exited while it was being read, named" \
    stderr_has "^rdrand-check: process $held \(sleep\) exited while it was being read: nothing to report$"

# The module trusted by default: OPENSSL_MODULES's, else libcrypto's
# modules directory (unset or empty alike).
modules_dir=$("$OPENSSL_BIN" version -m | sed -n 's/^MODULESDIR: "\(.*\)"$/\1/p')
for how in unset empty; do
    if [ $how = unset ]; then
        run -- env -u OPENSSL_MODULES "$CHECK" --pid "$plain"
    else
        run OPENSSL_MODULES= -- "$CHECK" --pid "$plain"
    fi
    if [ -f "$modules_dir/rdrand.so" ]; then
        check "OPENSSL_MODULES $how: exit 2, the installed module is the one meant" exited 2
        check "  ... named" stdout_has "is the module $modules_dir/rdrand\.so,"
    else
        check "OPENSSL_MODULES $how: exit 4 (none installed)" exited 4
        check "  ... libcrypto's modules directory named" \
            stderr_has "cannot read the module this rdrand-check trusts, $modules_dir/rdrand\.so"
    fi
done

# A trusted file that is not mapped as a module beside the module that
# is: the module is read.
check "a process with the module and a trusted tiny exporter starts" \
    hold_python "$REAL_MODULES/rdrand.so" "$TINY"
pid_check "$held" --module "$REAL_MODULES/rdrand.so" --module "$TINY"
check "  ... exit 2, the module read (no instance)" exited 2
check "  ... module-path is the module" \
    stdout_has "^  module-path = $REAL_MODULES/rdrand\.so$"

# 8,192 distinct files mapped (memfds: each its own inode, no file
# system to fill): the cap on files examined, said.
hold_files() {
    hold_py files 'import mmap, os, sys, time
maps = []
for i in range(8200):
    fd = os.memfd_create("f")
    os.ftruncate(fd, 1)
    maps.append(mmap.mmap(fd, 1, prot=mmap.PROT_READ))
    os.close(fd)
open(sys.argv[1], "w").write("ready")
time.sleep(60)'
}
check "a process mapping 8,200 files starts" hold_files
pid_check "$held"
check "  ... exit 4" exited 4
check "  ... more files than rdrand-check reads, said" \
    stderr_has "^rdrand-check: process $held \(python3\) maps more files or regions than rdrand-check reads \(its caps\): nothing to report$"

check "a block whose symbol is bigger than the block starts" \
    hold_block "$PAD" c11=5 live_default_instances=1
pid_check "$held" --module "$PAD"
check "  ... exit 4, not read" exited 4
check "  ... refused as another version's" stderr_has "runs .*pid_forged_pad\.so version"
check "a block symbol smaller than a header starts" hold_block "$TINY"
pid_check "$held" --module "$TINY"
check "  ... exit 4, not read" exited 4
check "  ... not mapped as the loader maps a module" \
    stderr_has "maps .*pid_forged_tiny\.so, a module this rdrand-check trusts, but not as the dynamic loader maps it"

# Files that export a block, not trusted: the first named, the rest
# counted, a removed one said to be.
check "a process with two exporting files, neither trusted, starts" \
    hold_python "$FORGED" "$PAD"
pid_check "$held" --module "$REAL_MODULES/rdrand.so" --module "$TINY"
check "  ... exit 4" exited 4
check "  ... both trusted files' names are meant" \
    stderr_has "not byte for byte $REAL_MODULES/rdrand\.so or another --module; and more such files\)"
# Another user's view: its own process maps an exporting file since
# removed, which it cannot open (map_files is root's): not examined, and
# the report says so and how to have it examined.
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
    echo "skip - a file nobody cannot open: needs root (to run as nobody)"
elif ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$CHECK"; then
    echo "skip - a file nobody cannot open: nobody cannot run $CHECK"
else
    nobody_dir=$(mktemp -d)
    chmod 777 "$nobody_dir"
    cp "$FORGED" "$nobody_dir/pid_forged.so"
    chmod 644 "$nobody_dir/pid_forged.so"
    setpriv --reuid=65534 --regid=65534 --clear-groups "$PY" -c 'import ctypes, sys, time
ctypes.CDLL(sys.argv[2])
open(sys.argv[1], "w").write("ready")
time.sleep(60)' "$nobody_dir/ready" "$nobody_dir/pid_forged.so" &
    held=$!
    children+=("$held")
    check "a process of nobody's with an exporting file starts" \
        wait_file "$nobody_dir/ready"
    rm "$nobody_dir/pid_forged.so"
    run -- setpriv --reuid=65534 --regid=65534 --clear-groups "$CHECK" --pid "$held"
    check "  ... read as nobody: exit 2 (nothing it can open exports the block)" exited 2
    check "  ... names the file it could not open, and to run as root" \
        stdout_has "\($nobody_dir/pid_forged\.so \(deleted\) and any other mapped file this user cannot open was not examined: run as root\)"
    rm -rf "$nobody_dir"
fi

# Nine exporting files: past eight, the report is "more such files"
# whatever the rest are, so they are not examined.
for i in 1 2 3 4 5 6 7 8 9; do
    mkdir -p "$OUT/nine$i"
    cp "$FORGED" "$OUT/nine$i/pid_forged.so"
done
check "a process with nine exporting files starts" \
    hold_python "$OUT"/nine[1-9]/pid_forged.so
pid_check "$held"
check "  ... exit 4" exited 4
check "  ... the first named, and more" \
    stderr_has "maps $OUT/nine[1-9]/pid_forged\.so, which exports rdrand_status but is not a module this rdrand-check trusts \(not byte for byte .*; and more such files\)"

# Root opens a removed file through /proc/PID/map_files; another user
# cannot examine it at all (the "not examined" case above).
if [ "$(id -u)" != 0 ]; then
    echo "skip - removed exporting files and copies: need root (map_files)"
else
    mkdir -p "$OUT/gone"
    cp "$FORGED" "$OUT/gone/pid_forged.so"
    check "a process with an exporting file, since removed, starts" \
        hold_python "$OUT/gone/pid_forged.so"
    rm "$OUT/gone/pid_forged.so"
    pid_check "$held"
    check "  ... exit 4" exited 4
    check "  ... says removed, and to restart" \
        stderr_has "maps $OUT/gone/pid_forged\.so \(deleted\), which exports .*It was replaced or removed on disk since the process loaded it: restart the process"

    # A trusted file not mapped as the loader maps it, since removed.
    cp "$TINY" "$OUT/gone/pid_forged_tiny.so"
    check "a process with a trusted tiny exporter, since removed, starts" \
        hold_python "$OUT/gone/pid_forged_tiny.so"
    rm "$OUT/gone/pid_forged_tiny.so"
    pid_check "$held" --module "$TINY"
    check "  ... exit 4" exited 4
    check "  ... named removed, not as the loader maps it" \
        stderr_has "maps $OUT/gone/pid_forged_tiny\.so \(deleted\), a module this rdrand-check trusts, but not as the dynamic loader maps it"

    # Five copies of the module, all removed since: counted past the four
    # kept, and each named removed.
    for i in 1 2 3 4 5; do
        mkdir -p "$OUT/five$i"
        cp "$REAL_MODULES/rdrand.so" "$OUT/five$i/rdrand.so"
    done
    check "a process with five copies of the module starts" \
        hold_python "$OUT"/five[1-5]/rdrand.so
    rm "$OUT"/five[1-5]/rdrand.so
    pid_check "$held"
    check "  ... exit 4" exited 4
    check "  ... five instances, two named removed, and more" \
        stderr_has "5 instances of the provider module loaded, each with its own counters: $OUT/five[1-5]/rdrand\.so \(deleted\) and $OUT/five[1-5]/rdrand\.so \(deleted\) \(and more\)"
fi

run -- "$CHECK" --module "$REAL_MODULES/rdrand.so"
check "--module without --pid: usage (exit 3)" exited 3
run -- "$CHECK" --pid "$server" --module "$OUT/no-such.so"
check "--module naming no file: exit 4, says so" exited 4
check "  ... names the file" stderr_has "cannot read the module this rdrand-check trusts, $OUT/no-such\.so"
run -- "$CHECK" --pid 0
check "--pid 0: usage (exit 3)" exited 3
run -- "$CHECK" --pid "$server" -c "$CONF/rdrand.cnf"
check "--pid with -c: usage (exit 3)" exited 3
finish
