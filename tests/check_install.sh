#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shellcheck disable=SC2317 # the helpers below are called through check
# Install and package the build for real, as an operator would.
#   check_install.sh destdir        cmake --install into throwaway roots: the
#                                   exact file list, --prefix, man pages lint
#   check_install.sh system         root: cmake --install onto this machine,
#                                   openssl finds rdrand.so on its own, then
#                                   the documented uninstall leaves nothing
#   check_install.sh system-rdrand  root + RDRAND: as system, and the
#                                   installed example config (module =
#                                   rdrand.so, no path) seeds from RDRAND,
#                                   proved by the installed tool's counters
#   check_install.sh package        cpack -G DEB: the two packages for this
#                                   machine's Debian release (dpkg-deb,
#                                   lintian), the upgrade from the single
#                                   0.1.0 package (a throwaway dpkg
#                                   root), and no package where the tools
#                                   for its Depends are missing or whose
#                                   rdrand.so the system's libcrypto
#                                   would not find (no root)
#   check_install.sh deb            root: both packages, dpkg -i, the
#                                   installed tool against the installed
#                                   module, dpkg -r warns while a config
#                                   loads the module, and leaves nothing
#   check_install.sh deb-rdrand     root + RDRAND: the .deb seeds from RDRAND
#   check_install.sh guards         root: the modes above refuse to install
#                                   over a file already there, and wait for
#                                   another run's lock
# The root modes hold one machine-wide lock ($lock: ctest's RESOURCE_LOCK
# spans one ctest run only), refuse to start over any file they would
# install (they would delete it afterwards), and remove what they
# installed on exit, SIGKILL aside.
# Exit 77 (ctest: skipped) without root, or without RDRAND for *-rdrand.
set -uo pipefail
: "${RDRAND_BUILD_DIR:?}" "${RDRAND_SOURCE_DIR:?}" "${OPENSSL_BIN:?}"
: "${RDRAND_MODULESDIR:?}" "${RDRAND_VERSION:?}" "${RDRAND_TOOLS:?}"
mode=${1:?usage: check_install.sh destdir|package|system|system-rdrand|deb|deb-rdrand|guards}
build=$RDRAND_BUILD_DIR
pkg=rdrand-provider # the runtime package, and the docs directory's name
devpkg=$pkg-dev
read -ra tools <<<"$RDRAND_TOOLS"
tool=${tools[0]} # the operator's tool, rdrand-check
work=$(mktemp -d)
chmod 755 "$work" # configurations here must be readable by every user (rdrand-check)
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
# shellcheck source=tests/checks.sh
. "$(dirname "$0")/checks.sh"
check_failed() { sed 's/^/  | /' "$work/out" 2>/dev/null; }
# out CMD...: run, output kept for check_failed, status returned
out() { "$@" >"$work/out" 2>&1; }

# The files an installation must hold, relative to /, for PREFIX (no
# leading slash), the module directory aside; stated independently of
# the CMake rules.  The shipped examples are named: conf/ files that load
# the simulated CPU are not among them.  runtime_files: the package
# rdrand-provider; dev_files: rdrand-provider-dev; expected_files: what
# cmake --install leaves, both and its uninstall list (no doc symlink).
examples=(rdrand.cnf rdrand-coco.cnf rdrand-fips.cnf seed-only.cnf
    rdrand-reduce512.cnf rdrand-mix.cnf rdrand-check.service
    rdrand-check.timer rdrand.rules.yml)
runtime_files() {
    local p=$1 doc=$1/share/doc/$pkg f t
    echo "${RDRAND_MODULESDIR#/}/rdrand.so"
    echo "$p/share/man/man7/rdrand-provider.7.gz"
    for t in "${tools[@]}"; do
        echo "$p/bin/$t"
        echo "$p/share/man/man1/$t.1.gz"
    done
    for f in "${examples[@]}"; do
        echo "$doc/examples/$f"
    done
    for f in README.md "$RDRAND_SOURCE_DIR"/docs/*.md; do
        echo "$doc/${f##*/}"
    done
    echo "$doc/copyright"
    echo "$doc/changelog.Debian.gz"
}
dev_files() { # in the package, its docs directory is a link to $pkg's
    echo "$1/include/rdrand_provider.h"
    echo "$1/include/rdrand_status.h"
    echo "$1/share/pkgconfig/$pkg.pc"
    [ "${2-}" != deb ] || echo "$1/share/doc/$devpkg"
}
expected_files() {
    runtime_files "$1"
    dev_files "$1"
    echo "$1/share/doc/$pkg/install_manifest.txt"
}
# The pages are checked under their own names: mandoc reads the section
# from the name (a "page" in /tmp/tmp.3xyz would be section 3).
scdoc_clean() { # as the build makes a page: scdoc, then tidy.awk
    local page
    page=$work/$(basename "$1" .scd)
    scdoc <"$1" | awk -f "$RDRAND_SOURCE_DIR/docs/man/tidy.awk" >"$page" &&
        roff_clean "$page"
}
not_in_module() { ! strings "$2" | grep -- "$1" >/dev/null; }
files_under() { (cd "$1" && find . ! -type d -printf '%P\n' | sort); }
same_list() { # same_list EXPECTED ACTUAL: equal, else the diff for the log
    diff "$1" "$2" >"$work/out" 2>&1
}

# --- man pages: render without a warning --------------------------------
man_clean() { # man_clean PAGE.gz
    local page
    page=$work/$(basename "$1" .gz)
    zcat "$1" >"$page" && roff_clean "$page"
}
# roff_clean PAGE: groff, mandoc and man -l say nothing, and in 80
# columns every line fits (literal blocks are not wrapped).
roff_clean() {
    local raw=$1
    groff -man -ww -z "$raw" >"$work/out" 2>&1 && [ ! -s "$work/out" ] &&
        mandoc -T lint -W warning "$raw" >"$work/out" 2>&1 &&
        MANWIDTH=80 man -l "$raw" >"$work/text" 2>"$work/out" &&
        [ ! -s "$work/out" ] && grep -q '^NAME' "$work/text" &&
        awk 'length > 80 {print "  > 80 columns: " $0; long = 1}
            END {exit long}' "$work/text" >"$work/out"
}

# fenced FILE OPEN: the first fenced block opened by the line OPEN
fenced() { awk -v open="$2" '$0 == open && !n {f = 1; n = 1; next}
    /^```$/ {f = 0} f' "$1"; }
readme_cnf() { fenced "$RDRAND_SOURCE_DIR/README.md" '```ini'; }
runs_installed_tool() { # runs_installed_tool ROOT PREFIX: the .service's
    grep -q "^ExecStart=$2/bin/rdrand-check " \
        "$1$2/share/doc/$pkg/examples/rdrand-check.service"
}

if [ "$mode" = destdir ]; then
    root=$work/usr-root
    DESTDIR=$root cmake --install "$build" --prefix /usr >/dev/null
    expected_files usr | sort >"$work/expected"
    files_under "$root" >"$work/actual"
    check "DESTDIR, --prefix /usr: exactly the expected files" \
        same_list "$work/expected" "$work/actual"
    check "rdrand.so installed 0644, as Debian's modules" \
        test "$(stat -c %a "$root$RDRAND_MODULESDIR/rdrand.so")" = 644
    check "the installed rdrand.so carries no simulation" \
        not_in_module RDRAND_SIM "$root$RDRAND_MODULESDIR/rdrand.so"
    for t in "${tools[@]}"; do
        check "$t installed executable" test -x "$root/usr/bin/$t"
    done
    for t in rdrand-stat rdrand-params; do # removed (README); the tests' probe
        check "$t is not installed" test ! -e "$root/usr/bin/$t" -a ! -L "$root/usr/bin/$t"
    done
    check "the systemd example runs the installed rdrand-check" \
        runs_installed_tool "$root" /usr
    check "the uninstall list names every installed file, DESTDIR left out" \
        same_list <(sed 's|^|/|' "$work/expected") \
        <(sort "$root/usr/share/doc/$pkg/install_manifest.txt")
    for page in "$root"/usr/share/man/man*/*.gz; do
        check "man page ${page##*/} renders without warnings" man_clean "$page"
    done
    # Pages of programs not built (yet) are checked from their source.
    for src in "$RDRAND_SOURCE_DIR"/docs/man/*.scd; do
        page=${src##*/}
        page=${page%.scd}
        [ -e "$root/usr/share/man/man${page##*.}/$page.gz" ] && continue
        check "man page source $page.scd builds and renders without warnings" \
            scdoc_clean "$src"
    done
    readme_cnf >"$work/readme.cnf"
    check "rdrand-provider(7) SYNOPSIS is README's openssl.cnf, verbatim" \
        same_list "$work/readme.cnf" \
        <(fenced "$RDRAND_SOURCE_DIR/docs/man/rdrand-provider.7.scd" '```')

    # --prefix moves everything but the module, which stays where
    # libcrypto looks (under DESTDIR).
    root=$work/opt-root
    DESTDIR=$root cmake --install "$build" --prefix /opt/rdrand >/dev/null
    expected_files opt/rdrand | sort >"$work/expected"
    files_under "$root" >"$work/actual"
    check "DESTDIR, --prefix /opt/rdrand: the module in modulesdir, the rest under the prefix" \
        same_list "$work/expected" "$work/actual"
    check "  ... and the systemd example runs /opt/rdrand/bin/rdrand-check" \
        runs_installed_tool "$root" /opt/rdrand
    # An application's build: pkg-config finds the headers under the
    # prefix (PKG_CONFIG_SYSROOT_DIR: as if DESTDIR were /), and the
    # example compiles with nothing else but libcrypto's flags.
    pc() { PKG_CONFIG_PATH=$root/opt/rdrand/share/pkgconfig \
        PKG_CONFIG_SYSROOT_DIR=$root pkg-config "$@"; }
    check "  ... pkg-config --cflags $pkg: -I<prefix>/include" \
        test "$(pc --cflags "$pkg" | xargs)" = "-I$root/opt/rdrand/include"
    check "  ... pkg-config --modversion $pkg: the project's version" \
        test "$(pc --modversion "$pkg")" = "$RDRAND_VERSION"
    example_compiles() {
        local flags
        flags=$(pc --cflags "$pkg" libcrypto) || return
        cp "$RDRAND_SOURCE_DIR/docs/examples/seed_from_rdrand.c" "$work/" ||
            return
        # shellcheck disable=SC2086 # flags, split as a build splits them
        cc -Wall -Werror $flags -c "$work/seed_from_rdrand.c" \
            -o "$work/example.o"
    }
    check "  ... docs/examples/seed_from_rdrand.c compiles with those flags" \
        out example_compiles

    # A relative RDRAND_MODULESDIR is under the prefix; an absolute one
    # outside it is said when installing without DESTDIR.  A second build
    # tree, without the tests, configured from this one's sources.
    other=$work/build
    configure_relative() {
        cmake -S "$RDRAND_SOURCE_DIR" -B "$other" -DRDRAND_BUILD_TESTS=OFF \
            -DRDRAND_MODULESDIR=lib/ossl-modules && cmake --build "$other"
    }
    install_under() { # install_under PREFIX MODULE: MODULE is where it went
        cmake --install "$other" --prefix "$1" && test -f "$2"
    }
    reconfigure_install() { # reconfigure_install MODULESDIR PREFIX
        cmake "$other" -DRDRAND_MODULESDIR="$1" &&
            install_under "$2" "$1/rdrand.so"
    }
    check "configure with -DRDRAND_MODULESDIR=lib/ossl-modules, build" \
        out configure_relative
    check "  ... the cache keeps it relative" \
        grep -qx 'RDRAND_MODULESDIR:STRING=lib/ossl-modules' \
        "$other/CMakeCache.txt"
    check "  ... cmake --install --prefix P puts rdrand.so in P/lib/ossl-modules" \
        out install_under "$work/p" "$work/p/lib/ossl-modules/rdrand.so"
    check "-DRDRAND_MODULESDIR=$work/mods: installed there, outside the prefix" \
        out reconfigure_install "$work/mods" "$work/q"
    check "  ... and cmake --install says so" \
        grep -q "rdrand.so went to $work/mods, outside the prefix $work/q" \
        "$work/out"
    finish
fi

# The packages are built for the Debian release of the machine building
# them (CMakeLists.txt): their version and the libssl package their
# Depends name are this machine's, read here from /etc/os-release.
os_field() { sed -n "s/^$1=//p" /etc/os-release | tr -d "\"'"; }
release=$(os_field VERSION_ID)
case $mode in
package | deb*)
    if [ "$(os_field ID)" != debian ] || [[ ! $release =~ ^[0-9]+$ ]]; then
        echo "SKIP: not a Debian release (/etc/os-release): no package"
        exit 77
    fi
    ;;
esac
deb_version=$RDRAND_VERSION-1~deb$release
codename=$(os_field VERSION_CODENAME)
case $release in
12) libssl=libssl3 ;;    # bookworm
13) libssl=libssl3t64 ;; # trixie: the 64-bit time_t transition's name
*) libssl="(no expectation for Debian $release: state it here)" ;;
esac

# cpack -G DEB into $work, as README "Install" builds the packages: sets
# deb and devdeb.
make_package() {
    deb=$work/${pkg}_${deb_version}_amd64.deb
    devdeb=$work/${devpkg}_${deb_version}_all.deb
    check "cpack -G DEB" out cpack -G DEB --config "$build/CPackConfig.cmake" \
        -B "$work"
}
if [ "$mode" = package ]; then
    make_package
    check "  ... made exactly ${deb##*/} and ${devdeb##*/}" \
        same_list <(printf '%s\n' "$deb" "$devdeb" | sort) \
        <(printf '%s\n' "$work"/*.deb)
    field() { dpkg-deb -f "$deb" "$1"; }
    check "Package: $pkg" test "$(field Package)" = "$pkg"
    check "Version: $deb_version (project(), Debian $release)" \
        test "$(field Version)" = "$deb_version"
    # 0.1.0-1~deb12 < 0.1.0-1~deb13 < 0.1.0-1: a dist-upgrade upgrades
    # the previous release's build, and Debian's own would win.
    sorts_between() { # the package's own Version, whatever it is
        local v=$RDRAND_VERSION-1 own
        own=$(field Version)
        dpkg --compare-versions "$own" gt "$v~deb$((release - 1))" &&
            dpkg --compare-versions "$own" lt "$v~deb$((release + 1))" &&
            dpkg --compare-versions "$own" lt "$v"
    }
    check "  ... above the previous release's build, below the next's and -1" \
        sorts_between
    check "Architecture: amd64" test "$(field Architecture)" = amd64
    depends() { field Depends | tr -d ' ' | tr ',' '\n' | sed 's/(.*//'; }
    check "Depends (shlibdeps): libc6" grep -qx libc6 <(depends)
    check "Depends (shlibdeps): $libssl, Debian $release's libssl" \
        grep -qx "$libssl" <(depends)
    check "  ... and no other libssl" \
        same_list <(echo "$libssl") <(grep '^libssl' <(depends))
    check "Maintainer, Section and a long Description" \
        test -n "$(field Maintainer)" -a "$(field Section)" = libs -a \
        "$(field Description | wc -l)" -gt 3
    check "dpkg-deb --info" out dpkg-deb --info "$deb"
    devfield() { dpkg-deb -f "$devdeb" "$1"; }
    check "$devpkg: Package, Version $deb_version, Architecture: all" \
        test "$(devfield Package)/$(devfield Version)/$(devfield Architecture)" \
        = "$devpkg/$deb_version/all"
    check "  ... Depends: $pkg (= $deb_version), nothing else" \
        test "$(devfield Depends)" = "$pkg (= $deb_version)"
    check "  ... Section: libdevel, Source: $pkg, its own synopsis" \
        test "$(devfield Section)/$(devfield Source)" = "libdevel/$pkg" -a \
        "$(devfield Description | head -1)" != "$(field Description | head -1)"
    # rdrand-provider 0.1.0 (no Debian revision) was one package, header
    # included: the -dev package takes the header over from it.
    check "  ... Replaces and Breaks: $pkg (<< 0.1.0-1~), which had the header" \
        same_list <(printf '%s\n' "$pkg (<< 0.1.0-1~)" "$pkg (<< 0.1.0-1~)") \
        <(devfield Replaces && devfield Breaks)
    contents() { # contents DEB: its files and links, not its directories
        dpkg-deb --contents "$1" | awk '$1 !~ /^d/ {sub("^./", "", $6); print $6}' |
            sort
    }
    check "dpkg-deb --contents $pkg: exactly the expected files" \
        same_list <(runtime_files usr | sort) <(contents "$deb")
    check "dpkg-deb --contents $devpkg: exactly the expected files" \
        same_list <(dev_files usr deb | sort) <(contents "$devdeb")
    dpkg-deb -x "$deb" "$work/root"
    dpkg-deb -x "$devdeb" "$work/root"
    check "$devpkg's docs directory is a link to $pkg's" \
        test "$(readlink "$work/root/usr/share/doc/$devpkg")" = "$pkg"
    check "the systemd example runs /usr/bin/rdrand-check" \
        runs_installed_tool "$work/root" /usr
    changelog=$work/root/usr/share/doc/$pkg/changelog.Debian.gz
    check "changelog.Debian.gz: $deb_version, distribution $codename" \
        test "$(dpkg-parsechangelog -l "$changelog" -S Version)/$(
            dpkg-parsechangelog -l "$changelog" -S Distribution)" = \
        "$deb_version/$codename"
    # Info tags (hardening flags, issue 9) are not failures; E: and W: are.
    # Its status is the verdict (a lintian that cannot run fails too);
    # TMPDIR keeps its scratch files in $work.
    check "lintian: no error, no warning" \
        out env TMPDIR="$work" lintian --fail-on error,warning "$deb" "$devdeb"

    # The upgrade from the single package: dpkg, in a throwaway root of
    # its own, with rdrand-provider 0.1.0 as it was (the header in
    # /usr/include; a stand-in built here), installs both packages, the
    # -dev one first (dpkg -i *.deb's order), which takes the header over.
    # --auto-deconfigure, as apt runs dpkg: the -dev package Breaks the
    # old one, which dpkg then upgrades.  --force-depends: libc6 and
    # libssl are not in that root.
    old=$work/old-layout
    admin=$work/dpkg-root/var/lib/dpkg
    mkdir -p "$old/DEBIAN" "$old/usr/include" "$admin"
    cp "$RDRAND_SOURCE_DIR/include/rdrand_provider.h" "$old/usr/include/"
    printf '%s\n' "Package: $pkg" "Version: 0.1.0" "Architecture: amd64" \
        "Maintainer: $(field Maintainer)" \
        "Description: the single package of 0.1.0, header included" \
        >"$old/DEBIAN/control"
    : >"$admin/status"
    dpkg_root() { # dpkg in $work/dpkg-root, root or not, output kept
        PATH=$PATH:/usr/sbin:/sbin dpkg --root="$work/dpkg-root" \
            --log=/dev/null --force-not-root --force-depends "$@" \
            >"$work/out" 2>&1
    }
    check "a stand-in $pkg 0.1.0 with the header, in a throwaway dpkg root" \
        out dpkg-deb --root-owner-group -b "$old" "$work/old.deb"
    check "  ... installed there" dpkg_root -i "$work/old.deb"
    check "  ... dpkg --auto-deconfigure -i $devpkg then $pkg over it" \
        dpkg_root --auto-deconfigure -i "$devdeb" "$deb"
    check "  ... both at $deb_version, the header now $devpkg's" \
        same_list <(printf '%s\n' "$pkg $deb_version" "$devpkg $deb_version" \
            "$devpkg: /usr/include/rdrand_provider.h") \
        <(dpkg-query --admindir="$admin" -W -f='${Package} ${Version}\n' \
            "$pkg" "$devpkg" &&
            dpkg-query --admindir="$admin" -S /usr/include/rdrand_provider.h 2>&1)

    # The release CMake reads: cmake/debian/release.cmake on os-release
    # files of other systems.
    release_of() { # release_of ID VERSION_ID CODENAME [OVERRIDE]
        printf 'ID=%s\nVERSION_ID="%s"\nVERSION_CODENAME=%s\n' "$1" "$2" \
            "$3" | grep -v '=""$' >"$work/os-release"
        cmake -DOS_RELEASE="$work/os-release" -DOVERRIDE="${4-}" \
            -P "$RDRAND_SOURCE_DIR/cmake/debian/release.cmake" 2>&1
    }
    check "os-release of Debian 12: 12 bookworm" \
        test "$(release_of debian 12 bookworm)" = "12 bookworm"
    check "os-release of Debian 13: 13 trixie" \
        test "$(release_of debian 13 trixie)" = "13 trixie"
    check "os-release of a later Debian: its VERSION_ID and codename" \
        test "$(release_of debian 16 later)" = "16 later"
    check "Ubuntu: no Debian release, said" \
        grep -q '^problem: .*ID=ubuntu VERSION_ID=24.04, not a Debian release' \
        <(release_of ubuntu 24.04 noble)
    check "Debian unstable (no VERSION_ID): no release, said" \
        grep -q '^problem: .*not a Debian release' <(release_of debian '' sid)
    check "  ... RDRAND_DEBIAN_RELEASE=14 names one" \
        test "$(release_of debian '' sid 14)" = "14 forky"
    refuses_override() { # refuses_override VALUE
        ! release_of debian 12 bookworm "$1" >"$work/out" &&
            grep -q "RDRAND_DEBIAN_RELEASE=$1: a Debian major release number" \
                "$work/out"
    }
    check "RDRAND_DEBIAN_RELEASE=sid: refused" refuses_override sid

    # No package without its Depends: as on a machine without dpkg-dev
    # (dpkg-shlibdeps) or without file, cpack fails, saying what to
    # install, and leaves no .deb.  CMake's own search directories
    # (/usr/bin, ...) off, PATH is $work/path: a link to every program of
    # PATH (the first of a name) but the one moved out of it.
    IFS=: read -ra path_dirs <<<"$PATH"
    mkdir "$work/path" "$work/hidden"
    for d in "${path_dirs[@]}"; do # cp skips the directories
        [[ $d == /* ]] && cp -sn "$d"/* "$work/path/" 2>/dev/null
    done
    cpack_without() { # cpack_without PROGRAM: output kept, status returned
        local status
        mv "$work/path/$1" "$work/hidden/" 2>/dev/null
        PATH=$work/path cpack -G DEB --config "$build/CPackConfig.cmake" \
            -B "$work/without-$1" -D CMAKE_FIND_USE_CMAKE_SYSTEM_PATH=FALSE \
            >"$work/out" 2>&1
        status=$?
        mv "$work/hidden/$1" "$work/path/" 2>/dev/null
        return "$status"
    }
    made_deb() { compgen -G "$work/without-$1/*.deb" >/dev/null; }
    # refuses_without PROGRAM PACKAGE: cpack fails, says to install
    # PACKAGE, and made no .deb.
    refuses_without() {
        ! cpack_without "$1" || return 1
        tr -s ' \n' '  ' <"$work/out" >"$work/said"
        grep -q "No .deb: .*apt-get install $2)" "$work/said" && ! made_deb "$1"
    }
    packs_with_depends() {
        cpack_without no-such-program &&
            test -n "$(dpkg-deb -f "$work/without-no-such-program/${deb##*/}" \
                Depends)"
    }
    check "cpack with PATH's programs only: the packages, with Depends" \
        packs_with_depends
    check "  ... without dpkg-shlibdeps: fails, says to install dpkg-dev" \
        refuses_without dpkg-shlibdeps dpkg-dev
    check "  ... without file: fails, says to install file" \
        refuses_without file file
    # What configure found (CPACK_RDRAND_DEB_PROBLEM, cmake/debian/
    # cpack-checks.cmake) on a system with no Debian release.
    refuses_unknown_release() {
        ! cpack -G DEB --config "$build/CPackConfig.cmake" \
            -B "$work/without-release" \
            -D CPACK_RDRAND_DEB_PROBLEM="not a Debian release" \
            >"$work/out" 2>&1 &&
            grep -q "No .deb: not a Debian release" "$work/out" &&
            ! made_deb release
    }
    check "  ... where configure found no Debian release: fails, says why" \
        refuses_unknown_release
    # A package whose rdrand.so is not where the system's libcrypto looks
    # (a build against a private OpenSSL, whose modulesdir is its own, or
    # an RDRAND_MODULESDIR elsewhere) would install and never be found:
    # cpack refuses before it installs anything, so this second build tree
    # is configured, not built.
    system_modulesdir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/ossl-modules
    other=$work/build
    refuses_modulesdir() { # refuses_modulesdir DIR: configure with it, cpack
        cmake -S "$RDRAND_SOURCE_DIR" -B "$other" -DRDRAND_BUILD_TESTS=OFF \
            -DRDRAND_MODULESDIR="$1" >"$work/out" 2>&1 || return 1
        ! cpack -G DEB --config "$other/CPackConfig.cmake" \
            -B "$work/elsewhere" >"$work/out" 2>&1 || return 1
        tr -s ' \n' '  ' <"$work/out" >"$work/said"
        grep -q "No .deb: rdrand.so would be installed in $2, not in the system libcrypto's modules directory $system_modulesdir.* build the package against the system's libssl-dev" \
            "$work/said" && ! compgen -G "$work/elsewhere/*.deb" >/dev/null
    }
    check "  ... with -DRDRAND_MODULESDIR=/opt/elsewhere/ossl-modules: fails, says why" \
        refuses_modulesdir /opt/elsewhere/ossl-modules /opt/elsewhere/ossl-modules
    check "  ... with a relative lib/ossl-modules (/usr/lib/ossl-modules): fails" \
        refuses_modulesdir lib/ossl-modules /usr/lib/ossl-modules
    finish
fi

# ---- the modes below change this machine ---------------------------------
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: $mode installs onto this machine and needs root"
    exit 77
fi
unset OPENSSL_MODULES # the point: libcrypto finds rdrand.so by itself
case $mode in
*-rdrand)
    # The build's own module says whether CPUID has RDRAND.
    if [ "$(OPENSSL_MODULES=$build OPENSSL_CONF=/dev/null \
        "$build/rdrand-params" -l rdrand-available)" != 1 ]; then
        echo "SKIP: CPUID reports no RDRAND on this machine"
        exit 77
    fi
    ;;
esac

# One run at a time on this machine, whoever started it: fd 9 holds the
# lock, and a run started by one holding it (guards) inherits it.
lock=/run/lock/rdrand-provider-install.lock
{ : >&9; } 2>/dev/null || exec 9>"$lock"
if ! flock -w "${RDRAND_INSTALL_LOCK_WAIT:-600}" 9; then
    echo "another install test holds $lock: not installing"
    exit 1
fi
# refuse_existing LIST: exit 1 if a file LIST names is there already: an
# operator's installation, which installing over and removing would delete.
refuse_existing() {
    local f
    while read -r f; do
        if [ -e "$f" ] || [ -L "$f" ]; then
            echo "$f already exists: not installing over it (and deleting it)"
            exit 1
        fi
    done <"$1"
}

# Everything an installation may touch, files and directories, to compare
# before and after; the trap puts the machine back to the first snapshot.
snapshot() { # snapshot PREFIX
    find "$1"/bin "$1"/include "$1"/share/man "$1"/share/doc \
        "$RDRAND_MODULESDIR" -printf '%y %p\n' 2>/dev/null | sort
}
# remove_new PREFIX: delete what is in the current snapshot and not in the
# first, deepest first; directories only if empty.
remove_new() {
    local kind path
    snapshot "$1" | comm -13 "$work/before" - | sort -k2 -r |
        while read -r kind path; do
            if [ "$kind" = d ]; then rmdir "$path"; else rm -f "$path"; fi
        done
}
# dpkg_wait ARGS...: dpkg, waiting up to 5 minutes while another package
# operation (apt on a shared machine) holds dpkg's lock.
dpkg_wait() {
    local _
    for _ in $(seq 60); do
        dpkg "$@" >"$work/out" 2>&1 && return 0
        grep -q 'lock' "$work/out" || return 1
        sleep 5
    done
    return 1
}
all_present() { while read -r f; do test -f "$f" || return 1; done <"$1"; }
not_installed() { # not_installed PACKAGE...: each unknown to dpkg, or
    local p status  #  known as "not-installed"
    for p in "$@"; do
        status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
        [ -z "$status" ] || [ "${status##* }" = not-installed ] || return 1
    done
}
# The installed operator's tool (in $bin), run as an operator would.
# tool_version CONF: the module's version, read with CONF loaded.
# tool_proves_seeding CONF: in the tool's own process, with CONF, the
# seeds came from rdrand.so and RDRAND never failed.
tool_version() {
    "$bin/$tool" -c "$1" --json | grep -o '"version": "[^"]*"' | cut -d'"' -f4
}
tool_proves_seeding() {
    "$bin/$tool" -c "$1" --json >"$work/out" 2>&1 &&
        grep -q '"seed_source_live": true' "$work/out" &&
        grep -qE '"rdrand-failures": 0[,}]' "$work/out"
}
lists_rdrand_active() {
    OPENSSL_CONF=/dev/null "$OPENSSL_BIN" list -providers -provider rdrand \
        >"$work/out" 2>&1 &&
        grep -A3 -x '  rdrand' "$work/out" | grep -x '    status: active' >/dev/null
}
# seeds_from_rdrand CONF: openssl rand works with CONF, and in the installed
# tool's process the seed requests went to rdrand.so, none failing.
seeds_from_rdrand() {
    local conf=$1
    check "$conf says module = rdrand.so, no path" \
        grep -qx 'module = rdrand.so' "$conf"
    check "openssl rand -hex 32 with it" \
        out env OPENSSL_CONF="$conf" "$OPENSSL_BIN" rand -hex 32
    check "openssl list -random-generators shows RDRAND @ rdrand" \
        out env OPENSSL_CONF="$conf" "$OPENSSL_BIN" list -random-generators
    check "  ... and RDRAND @ rdrand is listed" grep -q 'RDRAND @ rdrand$' \
        "$work/out"
    check "installed $tool: its seeds came from rdrand.so, no RDRAND failure" \
        tool_proves_seeding "$conf"
}
# installed_works PREFIX: the installed module, tool, man page and example.
installed_works() {
    local conf=$1/share/doc/$pkg/examples/rdrand.cnf
    check "openssl list -providers -provider rdrand, no OPENSSL_MODULES" \
        lists_rdrand_active
    check "man finds rdrand-provider(7)" out man -w 7 rdrand-provider
    check "installed $tool reads the installed module's version" \
        test "$(tool_version "$conf")" = "$RDRAND_VERSION"
    case $mode in
    *-rdrand)
        seeds_from_rdrand "$conf"
        readme_cnf >"$work/readme.cnf" # README "Quick start", verbatim
        seeds_from_rdrand "$work/readme.cnf"
        ;;
    esac
}

case $mode in
system | system-rdrand)
    prefix=${RDRAND_INSTALL_PREFIX:?}
    bin=$prefix/bin
    manifest=$prefix/share/doc/$pkg/install_manifest.txt
    expected_files "${prefix#/}" | sed 's|^|/|' | sort >"$work/expected"
    refuse_existing "$work/expected"
    snapshot "$prefix" >"$work/before"
    trap 'remove_new "$prefix"; cleanup' EXIT
    check "cmake --install $build (prefix $prefix)" \
        out cmake --install "$build"
    check "installed where expected" all_present "$work/expected"
    check "libcrypto's modulesdir is where rdrand.so went" \
        grep -qF "MODULESDIR: \"$RDRAND_MODULESDIR\"" \
        <("$OPENSSL_BIN" version -m)
    installed_works "$prefix"
    # A later install elsewhere rewrites build/install_manifest.txt; the
    # documented uninstall (README "Install") reads the installed copy.
    DESTDIR=$work/later cmake --install "$build" --prefix /opt/later >/dev/null
    xargs -d '\n' rm -f <"$manifest"
    rm -r "$prefix/share/doc/$pkg"
    check "documented uninstall leaves no file behind" \
        same_list <(grep '^f' "$work/before") <(snapshot "$prefix" | grep '^f')
    remove_new "$prefix"
    check "and, with the empty directories gone, nothing at all" \
        same_list "$work/before" <(snapshot "$prefix")
    ;;
deb | deb-rdrand)
    bin=/usr/bin
    if ! not_installed "$pkg" "$devpkg"; then
        echo "package $pkg or $devpkg is installed: not replacing (and removing) it"
        exit 1
    fi
    # dpkg -i replaces files no package owns without a word, and dpkg -r
    # then deletes them.
    { runtime_files usr && dev_files usr deb; } | sed 's|^|/|' |
        sort >"$work/expected"
    refuse_existing "$work/expected"
    snapshot /usr >"$work/before"
    trap 'not_installed "$pkg" "$devpkg" || dpkg_wait -r "$devpkg" "$pkg"
        cleanup' EXIT
    make_package
    check "dpkg -i both packages" dpkg_wait -i "$deb" "$devdeb"
    check "dpkg-query: both installed, version $deb_version" \
        same_list <(printf '%s %s\n' "$pkg" "$deb_version" "$devpkg" \
            "$deb_version" | sort) \
        <(dpkg-query -W -f='${Package} ${Version}\n' "$pkg" "$devpkg" | sort)
    check "dpkg -L: rdrand.so in libcrypto's modulesdir" \
        grep -qx "$RDRAND_MODULESDIR/rdrand.so" <(dpkg -L "$pkg")
    check "dpkg -L $devpkg: rdrand_provider.h in /usr/include" \
        grep -qx /usr/include/rdrand_provider.h <(dpkg -L "$devpkg")
    check "  ... and its docs are $pkg's" \
        test -f "/usr/share/doc/$devpkg/copyright"
    installed_works /usr
    # The admin's configuration still loads the module (OPENSSL_CONF, as
    # dpkg passes its environment on; the fresh Debian systems check the
    # real /etc/ssl/openssl.cnf): prerm must say so, naming the file, the
    # line and the command that reverts it, and still let the removal go.
    printf 'openssl_conf = init\n[init]\nproviders = prov\n[prov]\nrdrand = rdrand_sect\n[rdrand_sect]\nmodule = rdrand.so\nactivate = 1\n' \
        >"$work/enabled.cnf"
    remove_enabled() {
        OPENSSL_CONF=$work/enabled.cnf dpkg_wait -r "$devpkg" "$pkg"
    }
    check "dpkg -r both" remove_enabled
    warned() {
        grep -q "^WARNING: rdrand-provider is being removed" "$work/out" &&
            grep -qF "    $work/enabled.cnf:7: [rdrand_sect] loads rdrand.so" "$work/out" &&
            grep -qF "rm '$work/enabled.cnf'" "$work/out"
    }
    check "  ... prerm warned: the file, its line, the advice (a copy: rm)" \
        warned || sed 's/^/    /' "$work/out"
    check "dpkg: neither is installed any more" not_installed "$pkg" "$devpkg"
    check "nothing left behind (files and directories as before)" \
        same_list "$work/before" <(snapshot /usr)
    ;;
guards)
    # An operator's rdrand.so (a file no package owns) where both installs
    # put theirs: each must refuse, and leave it as it was.
    target=$RDRAND_MODULESDIR/rdrand.so
    if [ -e "$target" ] || [ -L "$target" ]; then
        echo "$target already exists: not planting over it"
        exit 1
    fi
    run_mode() { # run_mode MODE [fd 9 closed]: this script, output kept
        bash "$0" "$1" >"$work/out" 2>&1
    }
    waits() { # a run without the lock we hold gives up
        RDRAND_INSTALL_LOCK_WAIT=1 bash "$0" system 9>&- >"$work/out" 2>&1
        [ $? -eq 1 ] && grep -q "holds $lock" "$work/out" && [ ! -e "$target" ]
    }
    check "another run waits for the lock ($lock), then gives up" waits
    echo "an operator's rdrand.so" >"$target"
    trap 'rm -f "$target"; cleanup' EXIT
    refuses() { # refuses MODE
        ! run_mode "$1" && grep -q "^$target already exists" "$work/out" &&
            [ "$(cat "$target")" = "an operator's rdrand.so" ]
    }
    check "system refuses over an unowned rdrand.so, which stays" \
        refuses system
    check "deb refuses over an unowned rdrand.so, which stays" refuses deb
    check "  ... and the packages are not installed" \
        not_installed "$pkg" "$devpkg"
    ;;
*)
    echo "unknown mode $mode" >&2
    exit 2
    ;;
esac
finish
