#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetch and build OpenSSL <series> (newest 3.5.*, 4.0.*, ...) from Debian's
# source packages, with the FIPS provider, into a cache outside the checkout.
# Prints the install directory (the last line of stdout) for test.sh.
#
# Usage: scripts/openssl-build.sh SERIES [PATCH...]   e.g. 3.5
#   RDRAND_OPENSSL_CACHE  cache root (default /var/cache/rdrand-provider)
# With PATCHes (docs/upstream/*.patch: fixes proposed to OpenSSL), the
# release is built with them applied (patch -p1, in order; one that does
# not apply fails the build) into its own directory,
# openssl-<version>-patched-<first 12 hex digits of their sha256>, which lists
# them in rdrand-patches ("sha256  name" a line): the tests read it to
# know what the libcrypto under test has.  Without, only unpatched trees
# are built or used.
#
# The source comes from the archive apt already uses: the URI and keyring of
# the existing Debian entry, with deb-src lines for sid, trixie and
# experimental (where 4.0 is, today), kept in a private list directory so
# the system's apt state is untouched. Candidates
# are the listed versions of that series, newest first; a download that
# fails moves on to the next one; one that downloads but does not build is
# remembered ($cache/.failed-openssl-<debian version>.log) and skipped
# until that file is deleted. Each version is built once into a temp
# directory, checked there by valid() (its openssl runs, reports that
# version, and fipsinstall -verify accepts its module config) and only
# then renamed into place; valid() is checked again before every reuse,
# so an interrupted build is never used.
set -euo pipefail

series=${1:?usage: openssl-build.sh SERIES [PATCH...] (e.g. 3.5)}
shift
[[ $series =~ ^[0-9]+\.[0-9]+$ ]] || {
    echo "openssl-build: SERIES must look like 3.5, got '$series'" >&2
    exit 2
}
patches=()
for p in "$@"; do
    if [ ! -f "$p" ] || [ ! -r "$p" ]; then
        echo "openssl-build: patch '$p' is not a readable file" >&2
        exit 2
    fi
    patches+=("$(cd "$(dirname "$p")" && pwd)/$(basename "$p")")
done
tag="" # the build directory's suffix: which patches, by content
if [ ${#patches[@]} -gt 0 ]; then
    tag=-patched-$(cat "${patches[@]}" | sha256sum | cut -c1-12)
fi
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

# valid DIR VERSION: the install runs, is that version, has FIPS, and
# its module config verifies against the fips.so it describes.  Used on
# the staged build before it is moved into place and on every cached one
# before reuse (a few milliseconds), so a tree that did not pass it is
# never used, whatever was interrupted.
valid() {
    local dir=$1 version=$2 out
    [ -x "$dir/bin/openssl" ] && [ -f "$dir/lib/pkgconfig/libcrypto.pc" ] \
        && [ -f "$dir/lib/ossl-modules/fips.so" ] \
        && [ -f "$dir/ssl/fipsmodule.cnf" ] || return 1
    out=$(LD_LIBRARY_PATH="$dir/lib" OPENSSL_CONF=/dev/null \
        "$dir/bin/openssl" version 2>/dev/null) || return 1
    [[ $out == "OpenSSL $version "* ]] || return 1
    LD_LIBRARY_PATH="$dir/lib" OPENSSL_CONF=/dev/null "$dir/bin/openssl" \
        fipsinstall -module "$dir/lib/ossl-modules/fips.so" \
        -in "$dir/ssl/fipsmodule.cnf" -verify >/dev/null 2>&1
}

# --- The private apt view of Debian's source packages --------------------
apt_dir=$cache/apt
mkdir -p "$apt_dir/lists/partial"
sources_list() { # the URI and keyring of the system's main Debian entry
    local uri="" key="" codename f files=()
    codename=$(sed -n 's/^VERSION_CODENAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' \
        /etc/os-release 2>/dev/null)
    [ -n "$codename" ] || {
        log "no VERSION_CODENAME in /etc/os-release: cannot tell which apt entry is the system's Debian archive"
        return 1
    }
    # The deb822 stanza for this release's main component: debian.sources
    # first, then the other *.sources files.
    [ -f /etc/apt/sources.list.d/debian.sources ] \
        && files+=(/etc/apt/sources.list.d/debian.sources)
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && [ "$f" != /etc/apt/sources.list.d/debian.sources ] \
            && files+=("$f")
    done
    if [ ${#files[@]} -gt 0 ]; then
        read -r uri key < <(awk -v suite="$codename" '
            function has(list, word,   n, i, w) {
                n = split(list, w, /[[:space:]]+/)
                for (i = 1; i <= n; i++) if (w[i] == word) return 1
                return 0
            }
            function stanza() {
                if (has(t, "deb") && has(s, suite) && has(c, "main") && u != "") {
                    print u, k
                    exit
                }
                t = s = c = u = k = ""
            }
            FNR == 1 { stanza() }
            /^[[:space:]]*$/ { stanza(); next }
            /^Types:/ { t = substr($0, 7) }
            /^Suites:/ { s = substr($0, 8) }
            /^Components:/ { c = substr($0, 12) }
            /^URIs:/ { u = $2 }
            /^Signed-By:/ { k = $2 }
            END { stanza() }' "${files[@]}") || true
    fi
    if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
        # One-line format: deb [options] URI SUITE COMPONENT...
        uri=$(awk -v suite="$codename" '$1 == "deb" {
            i = 2
            if ($i ~ /^\[/) while (i <= NF && $i !~ /\]$/) i++
            if ($i ~ /^\[/ || $i ~ /\]$/) i++
            if ($(i + 1) != suite) next
            for (j = i + 2; j <= NF; j++) if ($j == "main") { print $i; exit }
        }' /etc/apt/sources.list)
    fi
    [ -n "$uri" ] || {
        log "no apt entry for Debian $codename main (Types: deb, Suites: $codename, Components: main) in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list: add one to fetch OpenSSL sources"
        return 1
    }
    local opt=""
    # A keyring path is reused; an inline key block is not (apt then
    # falls back to its default keyrings).
    [[ $key == /* ]] && opt="[signed-by=$key] "
    local suite
    for suite in sid trixie experimental; do
        printf 'deb-src %s%s %s main\n' "$opt" "$uri" "$suite"
    done
}
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list"
    -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt_dir/lists"
    -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)

candidates=()
if ! sources_list >"$apt_dir/sources.list"; then
    : # said why; only a cached build can be used
elif apt-get "${apt_opts[@]}" -qq update >"$apt_dir/update.log" 2>&1; then
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
        # This set of patches, or none: never another build's.
        case ${dir##*/} in
        *-patched-*) if [ -z "$tag" ] || [[ $dir != *"$tag" ]]; then continue; fi ;;
        *) [ -z "$tag" ] || continue ;;
        esac
        version=${dir##*/openssl-}
        if valid "$dir" "${version%%-*}"; then
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

# apply_patches: the PATCHes, in order, in the current (source) directory;
# the first that does not apply stops the build.
apply_patches() {
    local p
    for p in "${patches[@]}"; do
        echo "applying ${p##*/}"
        patch -p1 --forward --batch <"$p" || {
            echo "openssl-build: ${p##*/} does not apply to this release"
            return 1
        }
    done
}

# build DEBIAN_VERSION DEST WORK: download, build, install.  Returns 1 if
# the download failed (may work next time), 2 if the build or its check
# failed (will fail again: remembered, see below).
build() {
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
            && apply_patches \
            && ./Configure --prefix="$dest" --libdir=lib shared no-docs \
                no-tests enable-fips \
            && make -j "$(nproc)" \
            && make DESTDIR="$work/stage" install_sw install_ssldirs \
                install_fips
    ) >"$work/build.log" 2>&1 || {
        tail -n 30 "$work/build.log" >&2
        log "build of $version failed"
        return 2
    }
    # Checked where it was staged (nothing in it uses its final path to
    # run), then renamed into place: the cache's path holds a complete,
    # checked tree or nothing.  An old, invalid tree there is renamed away
    # first (one rename each, same filesystem), never half deleted.
    valid "$work/stage$dest" "$version" || {
        log "built $version does not run, is not $version, or its fipsmodule.cnf does not verify against its fips.so"
        return 2
    }
    if [ ${#patches[@]} -gt 0 ]; then
        sha256sum "${patches[@]}" | sed 's|  .*/|  |' \
            >"$work/stage$dest/rdrand-patches" || return 2
    fi
    if [ -e "$dest" ]; then mv "$dest" "$work/old" || return 1; fi
    mv "$work/stage$dest" "$dest"
}

for deb in "${candidates[@]}"; do
    version=$(upstream "$deb")
    dest=$cache/openssl-$version$tag
    if valid "$dest" "$version"; then
        log "using cached $version"
        echo "$dest"
        exit 0
    fi
    # A source package that downloaded but did not build is not tried
    # again (9 minutes each time); its log is kept.  Delete it to retry.
    failed=$cache/.failed-openssl-$deb$tag.log
    if [ -f "$failed" ]; then
        log "skipping $deb: it failed to build before (log: $failed; delete it to retry)"
        continue
    fi
    start=$SECONDS
    work=$(mktemp -d "$cache/.build-$version.XXXXXX")
    rc=0
    build "$deb" "$dest" "$work" || rc=$?
    if [ "$rc" -eq 2 ]; then
        cp "$work/build.log" "$failed" 2>/dev/null || : >"$failed"
    fi
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
