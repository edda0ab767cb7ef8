#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shellcheck disable=SC2317 # the helpers below are called through check
# The README's commands on a fresh minimal Debian RELEASE (bookworm,
# trixie), as root in a chroot of `debootstrap --variant=minbase` holding
# the checkout's tracked files (what a clean clone has) in /src:
#   cd /src && bash scripts/run.sh     exit 0, openssl rand's hex line,
#                                      rdrand-check's verdict "live"
#   cd build && cpack -G DEB           then apt-get install of the .debs,
#                                      the module's package has a Depends
#                                      (dpkg-shlibdeps ran), the installed
#                                      rdrand-check on the example config,
#                                      and lintian of that release.
#   machine-wide, as an operator:      rdrand-check --enable on the stock
#                                      /etc/ssl/openssl.cnf; openssl rand,
#                                      rdrand-check and --pid of a running
#                                      s_server with no environment; Debian's
#                                      sshd (tests/real/sshd.sh); dpkg -r
#                                      warns; reinstalled, --disable gives
#                                      back the stock file byte for byte,
#                                      and dpkg -r is then silent.
#
# Usage: tests/fresh/fresh-debian.sh RELEASE
#   RDRAND_FRESH_CACHE     cache directory (default
#                          /var/cache/rdrand-provider/fresh)
#   RDRAND_FRESH_MAX_AGE   days a cached base system is used before it is
#                          built again (default 7: a week of point and
#                          security updates is what the chroot's apt
#                          would otherwise have to make up for; 0: every run)
# Exit 0 all passed, 1 a step failed (or the archive cannot be used),
# 77 skipped (not root, no RDRAND).
#
# The base system comes from the archive apt already uses (its deb entry
# for this machine's release, main component, as apt itself reads
# sources.list and *.sources), is built once into a temp directory and
# renamed into $cache/RELEASE-minbase.tar.gz only when complete, and is
# unpacked anew into a temp directory for every run. The chroot's apt gets
# the same archive (and its -updates/-security suites if this machine
# uses them) and this machine's proxy and validity settings. Its package
# cache is $cache/RELEASE-archives, bind-mounted, so a run downloads a
# .deb once, but apt-get update and every install still run for real.
# One run per RELEASE at a time (they share that package cache).
# Everything runs in a private mount namespace, so no mount outlives the
# run, and the cleanup kills whatever still runs in the chroot.
set -euo pipefail

release=${1:?usage: tests/fresh/fresh-debian.sh RELEASE (bookworm, trixie)}
[[ $release =~ ^[a-z]+$ ]] || {
    echo "fresh: RELEASE must be a Debian codename, got '$release'" >&2
    exit 2
}
top=$(cd "$(dirname "$0")/../.." && pwd)
skip() {
    echo "SKIP: $*"
    exit 77
}
# What this machine cannot do is a skip; an archive it cannot use, as
# root, is a failure: a proxy or network fault must not turn the test
# command green (RDRAND_FRESH_RELEASES="" leaves these tests out).
cannot() {
    echo "fresh: $*" >&2
    echo "0 passed, 1 failed"
    exit 1
}
[ "$(id -u)" -eq 0 ] || skip "debootstrap and chroot need root"
grep -qw rdrand /proc/cpuinfo || skip "this CPU has no RDRAND"
if [ -z "${RDRAND_FRESH_NAMESPACE:-}" ] \
    && unshare --mount --propagation private true 2>/dev/null; then
    RDRAND_FRESH_NAMESPACE=1 exec unshare --mount --propagation private \
        bash "$0" "$@"
fi

# --- The archive: this machine's deb entries for its own release --------
# apt-get indextargets lists what apt reads from sources.list and
# *.sources alike (--no-release-info: also before any apt-get update);
# suite "<ours>" gives the archive, "<ours>-updates" and "<ours>-security"
# the chroot's matching suites.
ours=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$ours" ] || cannot "no VERSION_CODENAME in /etc/os-release: cannot tell which apt entry is the Debian archive"
declare -A uri=()
# shellcheck disable=SC2016 # $(...) are apt's fields, not the shell's
fields='$(TARGET_OF) $(REPO_URI) $(RELEASE) $(COMPONENT)'
while read -r type repo suite component; do
    if [ "$type" != deb ] || [ "$component" != main ]; then continue; fi
    case $suite in
    "$ours") uri[main]=$repo ;;
    "$ours-updates") uri[updates]=$repo ;;
    "$ours-security") uri[security]=$repo ;;
    esac
done < <(apt-get indextargets --no-release-info --format "$fields" \
    'Created-By: Packages')
[ -n "${uri[main]:-}" ] || cannot "no apt entry for Debian $ours main on this machine: no archive to debootstrap from"
# Reachable, and has RELEASE? (apt's own downloader, with its proxy.)
probe=${uri[main]%/}/dists/$release/InRelease
got=$(mktemp)
if ! out=$(/usr/lib/apt/apt-helper download-file "$probe" "$got" 2>&1); then
    rm -f "$got"
    out=$(grep -m 1 '^E: Failed to fetch' <<<"$out" || echo "$out")
    [[ $out == *" 404 "* ]] || cannot "cannot reach the archive: $out"
    cannot "the archive has no $release: $out"
fi
rm -f "$got"
# This machine's proxy and Release validity settings, for the chroot's apt
# (and the proxy for debootstrap's wget).
apt_conf=$(apt-config dump | grep -E '^Acquire::((http|https|ftp)::Proxy(::[^ ]+)?|Check-Valid-Until|Check-Date|Retries|ForceIPv4|ForceIPv6) ' || true)
http_proxy=$(apt-config dump | sed -n 's/^Acquire::http::Proxy "\(.*\)";$/\1/p')
if [ -n "$http_proxy" ] && [ "$http_proxy" != DIRECT ]; then
    export http_proxy
fi

"$top/scripts/deps.sh" debootstrap debian-archive-keyring gpgv mount
# shellcheck source=tests/checks.sh
. "$top/tests/checks.sh"
cache=${RDRAND_FRESH_CACHE:-/var/cache/rdrand-provider/fresh}
max_age=${RDRAND_FRESH_MAX_AGE:-7}
[[ $max_age =~ ^[0-9]+$ ]] || {
    echo "fresh: RDRAND_FRESH_MAX_AGE must be a number of days, got '$max_age'" >&2
    exit 2
}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
tarball=$cache/$release-minbase.tar.gz
archives=$cache/$release-archives
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
work=$(mktemp -d /tmp/rdrand-fresh.XXXXXX)
root=$work/root
mkdir "$root" "$work/logs"

# --- Cleanup: nothing running in the chroot, nothing mounted, temp gone --
mounts=()
running="" # the run_step in progress (a timeout process)
building="" # the base system being built
in_chroot() { # PIDs whose root is under $1
    local p r
    for p in /proc/[0-9]*; do
        r=$(readlink "$p/root" 2>/dev/null) || continue
        [[ $r == "$1" || $r == "$1"/* ]] && echo "${p#/proc/}"
    done
}
mounted_under() { # mount points at or under $1 (mountinfo's 5th field)
    awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' \
        /proc/self/mountinfo
}
remove() { # remove DIR unless something is still mounted in it
    local left
    left=$(mounted_under "$1")
    if [ -n "$left" ]; then
        echo "fresh: NOT removing $1: still mounted: $left" >&2
        return 1
    fi
    rm -rf --one-file-system "$1"
}
cleanup() {
    local rc=$? pids i m start=$SECONDS
    set +e
    trap - EXIT INT TERM
    if [ -n "$running" ]; then # interrupted: timeout passes TERM on
        echo "fresh: interrupted during $last_log" >&2
        kill -TERM "$running" 2>/dev/null
        wait "$running"
    fi
    for i in 1 2 3 4 5; do
        pids=$(in_chroot "$work"; [ -z "$building" ] || in_chroot "$building")
        [ -n "$pids" ] || break
        echo "fresh: killing what still runs in the chroot: ${pids//$'\n'/ }" >&2
        # shellcheck disable=SC2086 # a list of PIDs
        kill -KILL $pids 2>/dev/null
        sleep 1
    done
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
        m=${mounts[i]}
        umount "$m" 2>/dev/null || umount -l "$m" \
            || echo "fresh: cannot unmount $m" >&2
    done
    [ -z "$building" ] || remove "$building" || rc=1
    remove "$work" || rc=1
    echo "# cleanup: $((SECONDS - start)) s; $release: $SECONDS s in all"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# One run per release at a time: the base tarball and the package cache.
exec 9>"$cache/$release.lock"
flock -n 9 || {
    echo "fresh: waiting for another $release run ($cache/$release.lock)"
    flock -w 7200 9
}

# run_step ID SECONDS COMMAND...: COMMAND (a program, not a function) under
# timeout, its output in $work/logs/ID.log, shown by check_failed.  In the
# background, so that INT and TERM reach the cleanup at once (bash runs a
# trap only after the foreground command, and timeout does not get the
# terminal's signals).
last_log=/dev/null
run_step() {
    local id=$1 limit=$2 start=$SECONDS rc=0
    shift 2
    last_log=$work/logs/$id.log
    timeout -k 30 "$limit" "$@" >"$last_log" 2>&1 &
    running=$!
    wait "$running" || rc=$?
    running=""
    case $rc in
    0) ;;
    124 | 137) echo "TIMEOUT: $id did not finish in $limit s" | tee -a "$last_log" ;;
    *) echo "exit status $rc" >>"$last_log" ;;
    esac
    echo "# $id: $((SECONDS - start)) s"
    return "$rc"
}
check_failed() { tail -n 40 "$last_log" | sed 's/^/    /'; }
# The steps build on each other: after a failure, report and stop.
need() { [ "$failed" -eq 0 ] || finish; }
show() { sed 's/^/    /' "$1"; }

# A command line run by bash as root in the chroot with a fresh login's
# environment and nothing of this process's (OPENSSL_* above all).
in_root=(chroot "$root" /usr/bin/env -i HOME=/root
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    /bin/bash -c)

echo "# fresh $release: archive ${uri[main]}, cache $cache, work $work"

# --- The base system ------------------------------------------------------
build_base() { # debootstrap into a temp dir beside the tarball, then rename
    local tmp rc=0
    tmp=$(mktemp -d "$cache/.building-$release.XXXXXX")
    building=$tmp
    run_step debootstrap 1200 debootstrap --variant=minbase --arch=amd64 \
        --keyring="$keyring" "$release" "$tmp/root" "${uri[main]}" \
        && rm -f "$tmp"/root/var/cache/apt/archives/*.deb \
        && run_step pack 600 tar -C "$tmp/root" --numeric-owner \
            -czf "$tmp/base.tar.gz" . \
        && mv -f "$tmp/base.tar.gz" "$tarball" || rc=1
    remove "$tmp" || rc=1
    building=""
    return "$rc"
}
# What an interrupted build left (we hold the lock: nothing builds now).
for d in "$cache/.building-$release".*; do
    [ ! -d "$d" ] || remove "$d"
done
if [ -f "$tarball" ] && [ -n "$(find "$tarball" -mtime -"$max_age")" ]; then
    echo "# base system: $tarball of $(date -r "$tarball" +%F)"
else
    check "debootstrap --variant=minbase $release, cached as $tarball" \
        build_base
    need
fi
check "unpack the base system" \
    run_step unpack 300 tar -C "$root" --numeric-owner -xzf "$tarball"
[ "$failed" -eq 0 ] || rm -f "$tarball" # built again next time
need

# --- The chroot: its archive, /src, mounts --------------------------------
setup() {
    local suites=$release signed="" m
    [ -z "${uri[updates]:-}" ] || suites+=" $release-updates"
    [ ! -f "$root$keyring" ] || signed="Signed-By: $keyring"
    rm -f "$root/etc/apt/sources.list"
    {
        printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\n%s\n' \
            "${uri[main]}" "$suites" "$signed"
        [ -z "${uri[security]:-}" ] \
            || printf '\nTypes: deb\nURIs: %s\nSuites: %s\nComponents: main\n%s\n' \
                "${uri[security]}" "$release-security" "$signed"
    } >"$root/etc/apt/sources.list.d/debian.sources"
    [ -z "$apt_conf" ] || echo "$apt_conf" >"$root/etc/apt/apt.conf.d/99host"
    cp -L /etc/resolv.conf /etc/hosts "$root/etc/" || return 1
    # No daemon that a package installs starts here (invoke-rc.d asks this).
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
    chmod 755 "$root/usr/sbin/policy-rc.d"
    mkdir -p "$root/src" "$archives/partial"
    # The tracked files as the working tree has them, as CI's clean clone
    # has them (no untracked files, no build directories).
    git -c safe.directory="$top" -C "$top" ls-files -z \
        | (cd "$top" && while IFS= read -r -d '' f; do
            if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
        done) \
        | tar -C "$top" --null -T - -cf - | tar -C "$root/src" -xf - \
        || return 1
    for m in proc sys dev dev/pts var/cache/apt/archives; do
        case $m in
        proc) mount -t proc proc "$root/proc" ;;
        sys) mount -t sysfs sysfs "$root/sys" ;;
        var/*) mount --bind "$archives" "$root/$m" ;;
        *) mount --bind "/$m" "$root/$m" ;;
        esac || return 1
        mounts+=("$root/$m")
    done
}
start=$SECONDS
check "chroot: apt sources, /src, /proc /sys /dev mounted" setup
echo "# setup: $((SECONDS - start)) s"
need
echo "# apt sources in the chroot:"
show "$root/etc/apt/sources.list.d/debian.sources"

# --- The README's first command -------------------------------------------
log=$work/logs/run.sh.log
check "README: cd /src && bash scripts/run.sh: exit 0" \
    run_step run.sh 1200 "${in_root[@]}" 'cd /src && bash scripts/run.sh'
[ "$failed" -gt 0 ] || show "$log" # else check_failed showed it
last_log=/dev/null
check "run.sh printed openssl rand's 64 hex digits" \
    grep -Eq '^[0-9a-f]{64}$' "$log"
check "run.sh printed rdrand-check's verdict: live" \
    grep -q '^verdict: 0 live' "$log"
need

# --- The package: build, Depends, install, the installed tool ----------------
check "cd build && cpack -G DEB" \
    run_step cpack 900 "${in_root[@]}" 'cd /src/build && cpack -G DEB'
need
# Every package cpack made, whatever their names and architectures (the
# module's is amd64, the header's all).
debs=("$root"/src/build/rdrand-provider*_*.deb)
check "cpack made rdrand-provider*_*.deb" [ -f "${debs[0]}" ]
need
echo "# packages: ${debs[*]##*/}"
check "apt-get install ./rdrand-provider*_*.deb" \
    run_step install 600 "${in_root[@]}" 'cd /src/build &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y \
            --no-install-recommends ./rdrand-provider*_*.deb'
need
check "installed: rdrand-check -c .../examples/rdrand.cnf: exit 0" \
    run_step installed 120 "${in_root[@]}" 'unset OPENSSL_MODULES OPENSSL_CONF
        /usr/bin/rdrand-check -c /usr/share/doc/rdrand-provider/examples/rdrand.cnf'
[ "$failed" -gt 0 ] || show "$work/logs/installed.log"
# An application developer's path: the -dev package's pkg-config file
# and headers, the example copied away from the source tree (its
# "rdrand_provider.h" must come from /usr/include), built and run with
# the installed module.
# shellcheck disable=SC2016 # expanded by the shell in the chroot
check "installed: pkg-config finds rdrand-provider; docs/examples/seed_from_rdrand.c builds against the packages and runs" \
    run_step example 300 "${in_root[@]}" 'unset OPENSSL_MODULES OPENSSL_CONF
        set -e
        test "$(pkg-config --modversion rdrand-provider)" = "$(dpkg-query -W -f "\${Version}" rdrand-provider-dev | sed "s/-.*//")"
        test -f /usr/include/rdrand_provider.h -a -f /usr/include/rdrand_status.h
        mkdir -p /root/example && cp /src/docs/examples/seed_from_rdrand.c /root/example/
        cd /root/example
        cc -Wall -Werror $(pkg-config --cflags rdrand-provider libcrypto) \
            seed_from_rdrand.c -o seed_from_rdrand $(pkg-config --libs libcrypto)
        ./seed_from_rdrand'
[ "$failed" -gt 0 ] || show "$work/logs/example.log"
depends() { # the package holding rdrand.so depends on libc6 and libssl3*
    local d dep found=1
    for d in "${debs[@]}"; do
        dpkg-deb -c "$d" | grep '/rdrand\.so$' >/dev/null || continue
        dep=$(dpkg-deb -f "$d" Depends)
        echo "# ${d##*/}: Depends: $dep"
        # dpkg-shlibdeps names the libcrypto it linked: bookworm's
        # libssl3, trixie's libssl3t64.
        [[ $dep == *libc6* && $dep =~ libssl3(t64)?\  ]] && found=0
    done
    return "$found"
}
last_log=$work/logs/cpack.log # its CPackDeb lines say why, if not
check "the package of rdrand.so depends on libc6 and libssl3 (dpkg-shlibdeps ran)" depends
# --- Machine-wide, as an operator: enable, use, remove, revert ----------
# No OPENSSL_CONF anywhere below: what services get is the stock file.
check "machine-wide: rdrand-check --enable edits the stock /etc/ssl/openssl.cnf, with a backup" \
    run_step enable 300 "${in_root[@]}" 'cp -p /etc/ssl/openssl.cnf /root/openssl.cnf.stock &&
        rdrand-check --enable &&
        ls /etc/ssl/openssl.cnf.rdrand-check-backup-* &&
        cmp /root/openssl.cnf.stock /etc/ssl/openssl.cnf.rdrand-check-backup-* &&
        ! cmp -s /root/openssl.cnf.stock /etc/ssl/openssl.cnf'
[ "$failed" -gt 0 ] || show "$last_log"
need
# shellcheck disable=SC2016 # expanded by the chroot's bash
check "machine-wide: openssl rand, openssl list and rdrand-check (no -c) with no environment, live as a service too" \
    run_step enabled 120 "${in_root[@]}" 'openssl rand -hex 16 | grep -Eqx "[0-9a-f]{32}" &&
        openssl list -providers | grep -qw rdrand &&
        { rdrand-check >/root/check.txt; rc=$?; cat /root/check.txt; [ "$rc" -eq 0 ]; } &&
        grep -qx "as a service: user nobody (uid 65534), environment PATH only, working directory /: live" /root/check.txt &&
        tail -n 1 /root/check.txt | grep -q "^verdict: 0 live"'
need
# A server started from the stock file, proved from outside while it runs.
# A port in use makes s_server exit: the next one is tried.
# shellcheck disable=SC2016 # expanded by the chroot's bash
pid_script='cd /root &&
        openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost \
            -keyout key.pem -out cert.pem -days 1 2>/dev/null || exit 1
        srv=""
        trap "[ -z \"\$srv\" ] || kill \$srv 2>/dev/null" EXIT
        for port in 24433 24434 24435 24436 24437; do
            openssl s_server -accept 127.0.0.1:$port -cert cert.pem \
                -key key.pem -www -quiet </dev/null >/dev/null 2>&1 &
            srv=$!
            for _ in $(seq 50); do
                kill -0 "$srv" 2>/dev/null || break
                if openssl s_client -connect 127.0.0.1:$port </dev/null \
                    >/dev/null 2>&1; then
                    echo "# s_server pid $srv on port $port answered"
                    rdrand-check --pid "$srv" >pid.txt
                    rc=$?
                    cat pid.txt
                    [ "$rc" -eq 0 ] || exit 1
                    n=$(sed -n "s/^  seed-requests = //p" pid.txt)
                    [ "${n:-0}" -ge 1 ]
                    exit
                fi
                sleep 0.2
            done
            kill "$srv" 2>/dev/null
            srv=""
        done
        echo "no s_server answered on ports 24433-24437"
        exit 1'
check "machine-wide: rdrand-check --pid of a running openssl s_server: exit 0, seed-requests >= 1" \
    run_step pid 180 "${in_root[@]}" "$pid_script"
[ "$failed" -gt 0 ] || show "$last_log"
need
# Debian's own sshd (docs/operations.md, OpenSSH): installed here, where
# it can start nothing (policy-rc.d), never on the machine running the
# tests; the simulated CPU's module built beside the real one.
check "machine-wide: Debian's sshd (tests/real/sshd.sh): a seed per login, a failing CPU refuses logins, the exemption works" \
    run_step sshd 900 "${in_root[@]}" 'printf "#!/bin/sh\nexit 101\n" >/usr/sbin/policy-rc.d &&
        chmod 755 /usr/sbin/policy-rc.d &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends openssh-server openssh-client >/dev/null &&
        rm /usr/sbin/policy-rc.d &&
        cmake --build /src/build --target rdrand-sim >/dev/null &&
        bash /src/tests/real/sshd.sh /src/build /root/openssl.cnf.stock'
[ "$failed" -gt 0 ] || show "$last_log"
need
check "machine-wide: dpkg -r warns that /etc/ssl/openssl.cnf still loads rdrand.so, naming --disable" \
    run_step remove 300 "${in_root[@]}" 'dpkg -r rdrand-provider-dev &&
        dpkg -r rdrand-provider 2>&1 | tee /root/remove.txt &&
        grep -q "^WARNING: rdrand-provider is being removed" /root/remove.txt &&
        grep -q "^    /etc/ssl/openssl.cnf:[0-9]*:" /root/remove.txt &&
        grep -qF "revert: rdrand-check --disable '"'"'/etc/ssl/openssl.cnf'"'"'" /root/remove.txt &&
        ! dpkg -s rdrand-provider >/dev/null 2>&1'
need
check "machine-wide: reinstalled, rdrand-check --disable gives back the stock file byte for byte" \
    run_step disable 600 "${in_root[@]}" 'cd /src/build &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends ./rdrand-provider*_*.deb >/dev/null &&
        rdrand-check --disable &&
        cmp /root/openssl.cnf.stock /etc/ssl/openssl.cnf'
need
check "machine-wide: dpkg -r after --disable: no warning" \
    run_step remove-clean 300 "${in_root[@]}" 'dpkg -r rdrand-provider-dev &&
        dpkg -r rdrand-provider 2>&1 | tee /root/remove.txt &&
        ! grep -q WARNING /root/remove.txt'
# lintian of the release the packages are built for: the host's own
# (tests/check_install.sh) judges only packages built on the host.
check "lintian $release: no error, no warning" \
    run_step lintian 600 "${in_root[@]}" 'cd /src/build &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            --no-install-recommends lintian >/dev/null &&
        lintian --fail-on error,warning rdrand-provider*_*.deb'
# Old versions out of the shared package cache (not a check).
timeout 300 "${in_root[@]}" 'apt-get -qq autoclean' >/dev/null 2>&1 || true
finish
