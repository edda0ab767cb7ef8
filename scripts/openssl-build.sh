#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetch and build OpenSSL <series> (newest 3.5.* / 3.6.* ...) from Debian's
# source packages, with the FIPS provider, into a cache outside the checkout.
# Prints the install directory (the last line of stdout) for test.sh.
#
# Usage: scripts/openssl-build.sh SERIES          e.g. 3.5
#   RDRAND_OPENSSL_CACHE  cache root (default /var/cache/rdrand-provider)
#
# The source comes from the archive apt already uses: the URI and keyring of
# the existing Debian entry, with deb-src lines for sid and trixie, kept in a
# private list directory so the system's apt state is untouched. Candidates
# are the listed versions of that series, newest first; a download that
# fails moves on to the next one. Each version is built once into a temp
# directory and renamed into place only after its openssl binary ran,
# reported that version and fipsinstall wrote the module config, so a half
# build is never reused.
set -euo pipefail

series=${1:?usage: openssl-build.sh SERIES (e.g. 3.5)}
[[ $series =~ ^[0-9]+\.[0-9]+$ ]] || {
    echo "openssl-build: SERIES must look like 3.5, got '$series'" >&2
    exit 2
}
cache=${RDRAND_OPENSSL_CACHE:-/var/cache/rdrand-provider}
log() { echo "openssl-build[$series]: $*" >&2; }
die() {
    log "$*"
    exit 1
}

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
exec 9>"$cache/lock"
flock 9 # one builder per cache; a concurrent run waits, then reuses

# valid DIR VERSION: the cached install runs, is that version, has FIPS.
valid() {
    local dir=$1 version=$2 out
    [ -x "$dir/bin/openssl" ] && [ -f "$dir/lib/pkgconfig/libcrypto.pc" ] \
        && [ -f "$dir/lib/ossl-modules/fips.so" ] \
        && [ -f "$dir/ssl/fipsmodule.cnf" ] || return 1
    out=$(LD_LIBRARY_PATH="$dir/lib" OPENSSL_CONF=/dev/null \
        "$dir/bin/openssl" version 2>/dev/null) || return 1
    [[ $out == "OpenSSL $version "* ]]
}

# --- The private apt view of Debian's source packages --------------------
apt_dir=$cache/apt
mkdir -p "$apt_dir/lists/partial"
sources_list() { # the URI and keyring of the system's main Debian entry
    local uri="" key="" f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        # First stanza whose URI does not point at a security archive.
        read -r uri key < <(awk '
            /^[[:space:]]*$/ { if (u != "" && u !~ /security/) exit; u = ""; k = "" }
            /^URIs:/ { u = $2 } /^Signed-By:/ { k = $2 }
            END { if (u !~ /security/) print u, k }' "$f") || true
        [ -n "$uri" ] && break
    done
    if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
        uri=$(awk '$1 == "deb" && $0 !~ /security/ {
            for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' \
            /etc/apt/sources.list)
    fi
    [ -n "$uri" ] || die "no Debian archive URI found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list"
    local opt=""
    # A keyring path is reused; an inline key block is not (apt then
    # falls back to its default keyrings).
    [[ $key == /* ]] && opt="[signed-by=$key] "
    local suite
    for suite in sid trixie; do
        printf 'deb-src %s%s %s main\n' "$opt" "$uri" "$suite"
    done
}
sources_list >"$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list"
    -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt_dir/lists"
    -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)

candidates=()
if apt-get "${apt_opts[@]}" -qq update >"$apt_dir/update.log" 2>&1; then
    mapfile -t candidates < <(apt-cache "${apt_opts[@]}" showsrc openssl \
        | awk '/^Version:/ { print $2 }' \
        | grep -E "^([0-9]+:)?${series//./\\.}\.[0-9]+" | sort -Vru || true)
else
    log "apt-get update of the private source list failed (see $apt_dir/update.log)"
fi

upstream() { # 1:3.5.7-1~deb13u1 -> 3.5.7
    local v=${1#*:}
    echo "${v%%-*}"
}

# The newest valid cached build of the series, if any.
newest_cached() {
    local dir
    for dir in $(find "$cache" -maxdepth 1 -name "openssl-$series.*" | sort -Vr); do
        if valid "$dir" "${dir##*/openssl-}"; then
            echo "$dir"
            return 0
        fi
    done
    return 1
}

if [ ${#candidates[@]} -eq 0 ]; then # offline, or nothing listed
    if dir=$(newest_cached); then
        log "no $series.* listed by the archive; using cached ${dir##*/openssl-}"
        echo "$dir"
        exit 0
    fi
    die "no OpenSSL $series.* source package listed (deb-src sid/trixie) and none cached in $cache"
fi
log "listed: ${candidates[*]}"

build() { # build DEBIAN_VERSION DEST WORK: download, build, install
    local deb=$1 dest=$2 work=$3 version tarball
    version=$(upstream "$deb")
    (cd "$work" && apt-get "${apt_opts[@]}" -qq source --download-only \
        "openssl=$deb") >"$work/download.log" 2>&1 || {
        log "download of openssl=$deb failed: $(tail -n 1 "$work/download.log")"
        return 1
    }
    tarball=$(find "$work" -maxdepth 1 -name "openssl_$version.orig.tar.*" \
        | head -n 1)
    [ -n "$tarball" ] || {
        log "openssl=$deb: no upstream tarball in the source package"
        return 1
    }
    log "building $version (log: $work/build.log while it runs)"
    # Chained with &&: set -e does not apply inside a function called from
    # an if. Staged under DESTDIR so the final path only appears when
    # complete; install_fips runs fipsinstall against the built fips.so.
    (
        mkdir "$work/src" \
            && tar -xf "$tarball" -C "$work/src" --strip-components=1 \
            && cd "$work/src" \
            && ./Configure --prefix="$dest" --libdir=lib shared no-docs \
                no-tests enable-fips \
            && make -j "$(nproc)" \
            && make DESTDIR="$work/stage" install_sw install_ssldirs \
                install_fips
    ) >"$work/build.log" 2>&1 || {
        tail -n 30 "$work/build.log" >&2
        log "build of $version failed"
        return 1
    }
    rm -rf "$dest"
    mv "$work/stage$dest" "$dest" || return 1
    valid "$dest" "$version" || {
        rm -rf "$dest"
        log "built $version does not run or has no FIPS module config"
        return 1
    }
    # The module config must verify against the fips.so it describes.
    LD_LIBRARY_PATH="$dest/lib" OPENSSL_CONF=/dev/null "$dest/bin/openssl" \
        fipsinstall -module "$dest/lib/ossl-modules/fips.so" \
        -in "$dest/ssl/fipsmodule.cnf" -verify >/dev/null 2>&1 || {
        rm -rf "$dest"
        log "fipsinstall -verify failed for $version"
        return 1
    }
}

for deb in "${candidates[@]}"; do
    version=$(upstream "$deb")
    dest=$cache/openssl-$version
    if valid "$dest" "$version"; then
        log "using cached $version"
        echo "$dest"
        exit 0
    fi
    start=$SECONDS
    work=$(mktemp -d "$cache/.build-$version.XXXXXX")
    rc=0
    build "$deb" "$dest" "$work" || rc=$?
    rm -rf "$work"
    if [ "$rc" -eq 0 ]; then
        log "built $version in $((SECONDS - start)) s"
        echo "$dest"
        exit 0
    fi
done
if dir=$(newest_cached); then
    log "none of ${candidates[*]} could be had; using cached ${dir##*/openssl-}"
    echo "$dir"
    exit 0
fi
die "none of the listed OpenSSL $series.* versions (${candidates[*]}) could be downloaded and built, and none is cached in $cache"
