#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rdrand-check --enable / --disable through the real openssl binary and the
# real module of the build tree.
#
#   test_enable.sh bookworm|trixie: Debian's own stock openssl.cnf of that
#     release (this machine's /etc/ssl/openssl.cnf if it is that release's
#     and dpkg --verify says it is unmodified, else extracted from the
#     openssl .deb: the fresh-system cache, else apt-get download for this
#     machine's release; not obtainable: exit 77, a skip, never a pass):
#     enabled, used by openssl and rdrand-check, enabled again (no change),
#     disabled back byte for byte, disabled again (no change); the same
#     with an operator's own edits; disable after a marked line is edited.
#   test_enable.sh cases: files it must refuse or cannot write, a file
#     enabled by hand, a file without openssl_conf, a new file that fails
#     the check, backups that never overwrite each other, usage.
# shellcheck disable=SC2317 # the helpers below are called through check
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

CHECK=$RDRAND_BUILD_DIR/rdrand-check
MARK='  # rdrand-check --enable'
export OPENSSL_MODULES=$REAL_MODULES
# The fresh-system cache (tests/fresh) holds both releases' .debs.
CACHE=${RDRAND_FRESH_CACHE:-/var/cache/rdrand-provider/fresh}
# The file's bytes and modification time, to prove "nothing changed".
snap() { echo "$(sha256sum <"$1") $(stat -c %y "$1")"; }
unchanged() { [ "$(snap "$1")" = "$2" ]; } # unchanged FILE SNAPSHOT
# No temporary file left beside FILE (mkstemp's FILE.rdrand-check-XXXXXX).
no_temp() {
    ! find "$(dirname "$1")" -maxdepth 1 -name "$(basename "$1").rdrand-check-??????" | grep -q .
}
PY=/usr/bin/python3 # Debian's, for os.setxattr
backups() { find "$(dirname "$1")" -maxdepth 1 -name "$(basename "$1").rdrand-check-backup-*" | wc -l; }
same_as() { cmp -s "$1" "$2"; }
lacks() { ! grep -q -- "$1" "$2"; } # lacks REGEX FILE

require_real_rdrand

# enabled_and_live FILE: what an application and the check see.
enabled_and_live() {
    local what=$1 file=$2
    run "OPENSSL_CONF=$file" -- "$OPENSSL_BIN" rand -hex 16
    check "$what: openssl rand with the enabled file exits 0" exited_ok
    check "$what: openssl rand printed 16 bytes" hex32
    run -- "$CHECK" --here -c "$file"
    check "$what: rdrand-check -c on the enabled file exits 0" exited_with 0
    check "$what: rdrand-check finds no problem" \
        stdout_lacks '^(warning|unhealthy|misconfigured): '
    check "$what: the seed source is live" stdout_has '^seed source: live: '
    # The counters of a process using the file, not only rdrand-check's.
    run "OPENSSL_CONF=$file" -- "$PROBE" -n 32 -r seed-requests seed-failures
    check "$what: rdrand-params counts seed requests with the enabled file" \
        line_at_least 1 1
    check "$what: no seed request failed" line_is 2 0
}

# round_trip NAME ORIGINAL: enable, use, enable again, disable, disable again.
round_trip() {
    local name=$1 orig=$2 f=$OUT/$1.cnf snap
    cp -p "$orig" "$f"
    run -- "$CHECK" --here -c "$f"
    check "$name: before --enable, rdrand-check exits 2 (seeds not ours)" \
        exited_with 2
    run -- "$CHECK" --here --enable "$f"
    check "$name: --enable exits 0" exited_ok
    check "$name: --enable lists the added lines" \
        stdout_has "^\\+ line [0-9]+: .*${MARK}\$"
    check "$name: --enable names the backup" \
        stdout_has "^enabled: $f; the previous file is kept as $f\\.rdrand-check-backup-"
    check "$name: the backup is the original" \
        same_as "$orig" "$(find "$OUT" -name "$name.cnf.rdrand-check-backup-*" | head -1)"
    check "$name: no temporary file left" no_temp "$f"
    check "$name: the mode is kept" [ "$(stat -c %a "$f")" = "$(stat -c %a "$orig")" ]
    enabled_and_live "$name" "$f"

    snap=$(snap "$f")
    run -- "$CHECK" --here --enable "$f"
    check "$name: --enable again exits 0" exited_ok
    check "$name: --enable again says already enabled" \
        stdout_has 'already enabled by rdrand-check --enable; nothing changed$'
    check "$name: --enable again changes nothing (bytes, mtime)" unchanged "$f" "$snap"
    check "$name: --enable again makes no backup" [ "$(backups "$f")" -eq 1 ]

    run -- "$CHECK" --here --disable "$f"
    check "$name: --disable exits 0" exited_ok
    check "$name: --disable lists the removed lines" \
        stdout_has "^- line [0-9]+: .*${MARK}\$"
    check "$name: --disable gives the original back byte for byte" same_as "$orig" "$f"
    run "OPENSSL_CONF=$f" -- "$PROBE" -n 32 -r seed-requests
    check "$name: after --disable rdrand is not loaded (rdrand-params exits 3)" \
        exited_with 3
    run -- "$CHECK" --here -c "$f"
    check "$name: after --disable, the check's advice is --enable on the file" \
        stdout_has "rdrand-check --enable '$f' (adds it and checks the result|makes the edit and checks it)"

    check "$name: one backup after --disable (the older one dropped)" \
        [ "$(backups "$f")" -eq 1 ]

    snap=$(snap "$f")
    run -- "$CHECK" --here --disable "$f"
    check "$name: --disable again exits 0" exited_ok
    check "$name: --disable again says not enabled" \
        stdout_has 'not enabled \(no rdrand line\); nothing changed$'
    check "$name: --disable again changes nothing (bytes, mtime)" unchanged "$f" "$snap"
}

# refused NAME FILE EXIT MESSAGE [COMMAND...]: COMMAND FILE (default:
# rdrand-check --enable FILE) exits EXIT, says why, changes nothing.
refused() {
    local name=$1 f=$2 code=$3 msg=$4 snap
    shift 4
    [ $# -gt 0 ] || set -- "$CHECK" --here --enable
    snap=$(snap "$f")
    run -- "$@" "$f"
    check "$name: exits $code" exited_with "$code"
    check "$name: says why" stderr_has "$msg"
    check "$name: says nothing changed" stderr_has 'nothing changed'
    check "$name: the file is unchanged (bytes, mtime)" unchanged "$f" "$snap"
    check "$name: no temporary file left" no_temp "$f"
}

# ---- the stock file of one release ----

stock() { # stock CODENAME DEST: 0, or 1 with why on stdout
    local codename=$1 dest=$2 here deb dir
    here=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
    if [ "$codename" = "$here" ] && dpkg --verify openssl >"$OUT/verify" 2>&1 &&
        ! grep -q ' /etc/ssl/openssl.cnf$' "$OUT/verify" &&
        [ -f /etc/ssl/openssl.cnf ]; then
        cp /etc/ssl/openssl.cnf "$dest" && echo "this machine's /etc/ssl/openssl.cnf (dpkg --verify: unmodified)" && return 0
    fi
    deb=$(find "$CACHE/$codename-archives" -maxdepth 1 -name 'openssl_*.deb' 2>/dev/null | sort | tail -1)
    if [ -z "$deb" ] && [ "$codename" = "$here" ]; then
        dir=$(mktemp -d -p "$OUT")
        (cd "$dir" && apt-get download -q openssl >/dev/null 2>&1)
        deb=$(find "$dir" -name 'openssl_*.deb' | head -1)
    fi
    if [ -z "$deb" ]; then
        echo "no openssl .deb of $codename (not this machine's release, or not downloadable; $CACHE/$codename-archives has none)"
        return 1
    fi
    dpkg-deb --fsys-tarfile "$deb" | tar -xO ./etc/ssl/openssl.cnf >"$dest" &&
        [ -s "$dest" ] && echo "extracted from $deb" && return 0
    echo "no etc/ssl/openssl.cnf in $deb"
    return 1
}

release() {
    local codename=$1 s=$OUT/stock-orig.cnf f snap
    if ! why=$(stock "$codename" "$s"); then
        echo "SKIP: the stock openssl.cnf of $codename: $why"
        exit 77
    fi
    echo "# $codename's stock openssl.cnf: $why"
    chmod 0644 "$s"

    round_trip stock "$s"

    # The operator's own edits before --enable.
    sed '/^\[ req \]$/a default_md = sha512' "$s" >"$OUT/req-edit.orig"
    check "operator edit: the [ req ] key is there" grep -qx 'default_md = sha512' "$OUT/req-edit.orig"
    round_trip req-edit "$OUT/req-edit.orig"

    head -c -1 "$s" >"$OUT/no-newline.orig" # the file's final newline gone
    round_trip no-newline "$OUT/no-newline.orig"
    check "no final newline: the variant really ends without one" \
        [ "$(tail -c 1 "$OUT/no-newline.orig" | od -An -c | tr -d ' ')" != '\n' ]

    # A provider already activated (default explicitly, and base): the
    # default stays as it is, nothing is activated by --enable but ours.
    sed -e 's/^# *providers = provider_sect$/providers = provider_sect/' \
        -e 's/^# *\[provider_sect\]$/[provider_sect]/' \
        -e 's/^# *default = default_sect$/default = default_sect\nbase = base_sect/' \
        -e 's/^# *\[default_sect\]$/[default_sect]/' \
        -e 's/^# *activate = 1$/activate = 1\n\n[base_sect]\nactivate = 1/' \
        "$s" >"$OUT/active.orig"
    check "provider already active: the variant activates default and base" \
        [ "$(grep -cx 'activate = 1' "$OUT/active.orig")" -eq 2 ]
    round_trip active "$OUT/active.orig"
    cp "$OUT/active.orig" "$OUT/active2.cnf"
    run -- "$CHECK" --here --enable "$OUT/active2.cnf"
    check "provider already active: --enable adds only rdrand's activate" \
        [ "$(grep -c "^activate = 1${MARK}\$" "$OUT/active2.cnf")" -eq 0 ]
    check "provider already active: rdrand added to [provider_sect]" \
        stdout_has "^\\+ line [0-9]+: rdrand = rdrand_sect${MARK}\$"

    # An existing [random] section without a seed: the seed goes into it.
    sed -e 's/^\[openssl_init\]$/&\nrandom = my_random/' \
        -e '$a [my_random]\ncipher = AES-256-CTR' "$s" >"$OUT/random.orig"
    round_trip random "$OUT/random.orig"
    cp "$OUT/random.orig" "$OUT/random2.cnf"
    run -- "$CHECK" --here --enable "$OUT/random2.cnf"
    check "existing [random]: seed added into [my_random]" \
        grep -A1 -x 'cipher = AES-256-CTR' "$OUT/random2.cnf" | grep -qx "seed = RDRAND${MARK}"
    check "existing [random]: no new random section" \
        lacks '^\[rdrand_random_sect\]' "$OUT/random2.cnf"

    # The default file through a symbolic link (Debian's /usr/lib/ssl one).
    f=$OUT/target.cnf
    cp "$s" "$f"
    ln -s "$f" "$OUT/link.cnf"
    run "OPENSSL_CONF=$OUT/link.cnf" -- "$CHECK" --here --enable
    check "symlink: --enable through OPENSSL_CONF exits 0" exited_ok
    check "symlink: names the target it edits" \
        stdout_has "^$OUT/link.cnf is a symbolic link to $f: editing that file$"
    check "symlink: the link is still a link" [ -L "$OUT/link.cnf" ]
    check "symlink: the target is enabled" grep -q "$MARK\$" "$f"
    run "OPENSSL_CONF=$OUT/link.cnf" -- "$CHECK" --here --disable
    check "symlink: --disable gives the target back" same_as "$s" "$f"

    # The operator edits after --enable.
    f=$OUT/after.cnf
    cp "$s" "$f"
    run -- "$CHECK" --here --enable "$f"
    sed -i '/^\[ req \]$/a default_md = sha512' "$f"
    run -- "$CHECK" --here --disable "$f"
    check "edit after --enable: --disable exits 0" exited_ok
    check "edit after --enable: --disable keeps the operator's line only" \
        same_as "$OUT/req-edit.orig" "$f"

    # A marked line's value edited, its mark kept: it is still ours.
    cp "$s" "$f"
    run -- "$CHECK" --here --enable "$f"
    sed -i "s/^random = rdrand_random_sect${MARK}\$/random = rdrand_random_sect2${MARK}/" "$f"
    check "marked line edited: the edit is there" grep -q "^random = rdrand_random_sect2$MARK" "$f"
    run -- "$CHECK" --here --enable "$f"
    check "marked line edited: --enable refuses (not as it writes them)" exited_with 4
    check "marked line edited: --enable says so" stderr_has 'not as --enable writes them'
    run -- "$CHECK" --here --disable "$f"
    check "marked line edited: --disable exits 0" exited_ok
    check "marked line edited: --disable lists the edited line" \
        stdout_has "^- line [0-9]+: random = rdrand_random_sect2${MARK}\$"
    check "marked line edited: --disable gives the original back" same_as "$s" "$f"

    # A marked line whose mark was removed: no longer ours, refused.
    cp "$s" "$f"
    run -- "$CHECK" --here --enable "$f"
    sed -i "s/^random = rdrand_random_sect${MARK}\$/random = rdrand_random_sect/" "$f"
    refused "mark removed: --disable" "$f" 4 'still names rdrand' \
        "$CHECK" --here --disable
    check "mark removed: --disable names the line" \
        stderr_has 'line [0-9]+: random = rdrand_random_sect$'
}

# ---- files it refuses, cannot write, or must leave alone ----

cases() {
    local f=$OUT/case.cnf min=$OUT/min.orig snap n
    printf 'HOME = .\n\n[ req ]\ndefault_bits = 2048\n' >"$min"

    # No openssl_conf: one line in the default section, and the block.
    round_trip minimal "$min"
    cp "$min" "$f"
    run -- "$CHECK" --here --enable "$f"
    check "no openssl_conf: added after the default section's last key" \
        [ "$(sed -n 2p "$f")" = "openssl_conf = rdrand_openssl_init${MARK}" ]
    printf 'HOME = .' >"$OUT/min-nonl.orig"
    round_trip minimal-no-newline "$OUT/min-nonl.orig"
    : >"$OUT/empty.orig"
    round_trip empty "$OUT/empty.orig"
    printf 'openssl_conf = init\r\n\r\n[init]\r\n' >"$OUT/crlf.orig"
    round_trip crlf "$OUT/crlf.orig"
    # x.activate is activate to OpenSSL (one dot skipped): the check agrees.
    printf 'openssl_conf = init\n[init]\nproviders = p\n[p]\ndefault = d\n[d]\nx.activate = 1\n' >"$OUT/dotted.orig"
    round_trip dotted "$OUT/dotted.orig"
    cp "$OUT/crlf.orig" "$f"
    run -- "$CHECK" --here --enable "$f"
    check "CRLF: added lines end in CRLF too" \
        [ "$(grep -c $'\r$' "$f")" -eq "$(wc -l <"$f")" ]

    # Enabled by hand (the project's own example): left alone.
    cp "$CONF/rdrand.cnf" "$f"
    snap=$(snap "$f")
    run -- "$CHECK" --here --enable "$f"
    check "enabled by hand: --enable exits 0" exited_ok
    check "enabled by hand: says so" \
        stdout_has 'already enabled \(by hand\): rdrand is the live seed source; nothing changed$'
    check "enabled by hand: the check ran and was live" stdout_has '^verdict: 0 live'
    check "enabled by hand: unchanged (bytes, mtime)" unchanged "$f" "$snap"
    refused "enabled by hand: --disable" "$f" 4 \
        'enabled by hand, not by rdrand-check --enable' "$CHECK" --here --disable
    check "enabled by hand: --disable lists the lines to revert" \
        stderr_has "^  line $(grep -n -m1 -x 'module = rdrand.so' "$f" | cut -d: -f1): module = rdrand.so$"
    # Named by hand, but not live: refused, not "already enabled".
    sed 's/^seed = RDRAND$/seed = CTR-DRBG/' "$CONF/rdrand.cnf" >"$f"
    refused "named by hand, not live" "$f" 4 'names rdrand but the check gives verdict 2'

    # Extended attributes (an SELinux label, an ACL, user.*) stay on the
    # file the rename puts in place.
    cp "$min" "$f"
    if "$PY" -c 'import os, sys; os.setxattr(sys.argv[1], "user.rdrand-test", b"kept")' "$f" 2>/dev/null; then
        run -- "$CHECK" --here --enable "$f"
        check "xattr: --enable exits 0" exited_ok
        check "xattr: user.rdrand-test kept on the enabled file" \
            "$PY" -c 'import os, sys; assert os.getxattr(sys.argv[1], "user.rdrand-test") == b"kept"' "$f"
        run -- "$CHECK" --here --disable "$f"
        check "xattr: kept through --disable too" \
            "$PY" -c 'import os, sys; assert os.getxattr(sys.argv[1], "user.rdrand-test") == b"kept"' "$f"
    else
        echo "skip - xattr: this file system takes no user.* attribute"
    fi
    rm -f "$f".rdrand-check-backup-*

    # Files it does not understand.
    printf 'openssl_conf = init\n[init]\nproviders = p\n[p]\ndefault = d\n[d]\n[init]\nalg_section = a\n[a]\n' >"$f"
    refused "section written twice" "$f" 4 '\[init\] is written 2 times'
    printf 'openssl_conf = init\n[init]\nproviders = \\\n  p\n[p]\ndefault = d\n[d]\n' >"$f"
    refused "continued line" "$f" 4 'line 3: \[init\] has a line continued with a backslash \(lines 3-4\)'
    printf 'this is not a configuration file\n' >"$f"
    refused "garbage" "$f" 4 'line 1: OpenSSL cannot parse this file'
    head -c 2048 "$OPENSSL_BIN" >"$f"
    refused "binary" "$f" 4 'holds NUL bytes'
    # activate = 0: on under 3.0-3.2, off under 3.3+: refused on every
    # release, so that the edit means the same after a dist-upgrade.
    printf 'openssl_conf = init\n[init]\nproviders = p\n[p]\ndefault = d\n[d]\nactivate = 0\n' >"$f"
    refused "activate = 0 (read differently by 3.0 and 3.3+)" "$f" 4 '\[d\] activate = 0: OpenSSL 3.0-3.2 load the provider whatever the value, 3.3 and later do not'
    # A second name would keep the old text after the rename.
    cp "$min" "$f"
    ln "$f" "$f.link"
    refused "hard link" "$f" 4 'has 2 hard links: the edit would reach only this one'
    rm -f "$f.link"
    printf 'openssl_conf = init\n.include /nonexistent.cnf\n[init]\n' >"$f"
    refused ".include" "$f" 4 'line 2: \.include'
    printf 'openssl_conf = init\n[init]\nprov.x = p\n[p]\ndefault = d\n[d]\nactivate = 1\n' >"$f"
    refused "prov.x (a providers line to OpenSSL)" "$f" 4 'line 3: \[init\] prov\.x: OpenSSL reads this entry as a providers line too'
    printf 'openssl_conf = init\nx::.include = /nonexistent.cnf\n[init]\n' >"$f"
    refused "x::.include (an include too)" "$f" 4 'line 2: \.include'
    printf 'openssl_conf = init\n[init]\nrandom = r\n[r]\nseed = JITTER\n' >"$f"
    refused "[random] with another seed" "$f" 4 'line 5: \[r\] seed = JITTER: this file already chooses a seed source'
    printf '[x]\nopenssl_conf = init\n[init]\n' >"$f"
    refused "openssl_conf not in the default section" "$f" 4 'line 2: openssl_conf in \[x\]'
    printf 'openssl_conf = init\n[init]\nproviders = p\nproviders = p\n[p]\n' >"$f"
    refused "duplicate key it reads" "$f" 4 '\[init\] providers is given 2 times'
    printf 'openssl_conf = init\n[init]\nproviders = "p"\n[p]\n' >"$f"
    refused "quoted value" "$f" 4 'line 3: \[init\] providers = "p": OpenSSL reads a different value'
    printf 'openssl_conf = init\n[init]\nproviders = p\n[p]\nrdrand = mine\n[mine]\nactivate = 1\n' >"$f"
    refused "provider rdrand named by hand" "$f" 4 'names rdrand but the check gives verdict'
    printf 'openssl_conf = init\n[init]\n' >"$f"
    printf '# %s' "\\" >>"$f" # a last line ending in a backslash
    refused "last line continued" "$f" 4 'the last line ends in a backslash'
    printf 'openssl_conf = init\n[init]\nx = 1 %s' "\\" >"$f"
    refused "last key line continued" "$f" 4 'the last line ends in a backslash'
    printf 'openssl_conf = init\n[init]\nx = "a %s' "\\" >"$f"
    refused "last line continued in a quote" "$f" 4 'the last line ends in a backslash'
    # Sections named but not there, or named in a way a line editor
    # cannot follow: refused, with the line.
    printf 'openssl_conf = nosuch\n' >"$f"
    refused "openssl_conf names no section" "$f" 4 'line 1: openssl_conf = nosuch, and there is no section \[nosuch\]'
    printf 'openssl_conf = default\nx = 1\n' >"$f"
    refused "openssl_conf names the default section" "$f" 4 'line 1: openssl_conf = default, and there is no section \[default\]'
    printf 'openssl_conf = init\n[init]\nproviders = nosuch\n' >"$f"
    refused "providers names no section" "$f" 4 'line 3: providers = nosuch, and there is no other section \[nosuch\]'
    printf 'openssl_conf = init\n[init]\nproviders = init\n' >"$f"
    refused "providers names its own section" "$f" 4 'line 3: providers = init, and there is no other section \[init\]'
    printf 'openssl_conf = init\n[init]\nproviders = p\n[p]\ndefault = nosuch\n' >"$f"
    refused "a provider entry naming no section" "$f" 4 'line 5: default = nosuch, and there is no section \[nosuch\]'
    printf 'openssl_conf = init\n[init]\nproviders = p\n[p]\ndefault = "d"\n[d]\nactivate = 1\n' >"$f"
    refused "a quoted provider section" "$f" 4 'line 5: \[p\] default = "d": OpenSSL reads a different value'
    printf 'openssl_conf = "init"\n[init]\n' >"$f"
    refused "a quoted openssl_conf" "$f" 4 'line 1: \[default\] openssl_conf = "init": OpenSSL reads a different value'
    printf 'openssl_conf = init\n[init]\nrandom = "r"\n[r]\n' >"$f"
    refused "a quoted random section" "$f" 4 'line 3: \[init\] random = "r": OpenSSL reads a different value'
    printf 'openssl_conf = x\nopenssl_conf = init\n[init]\n' >"$f"
    refused "openssl_conf twice" "$f" 4 'line 2: \[default\] openssl_conf is given 2 times'
    printf 'openssl_conf = init\n[init]\nrandom = r\nrandom = r\n[r]\n' >"$f"
    refused "random twice" "$f" 4 'line 4: \[init\] random is given 2 times'
    printf 'openssl_conf = init\n[init]\n[default]\nx = 1\n' >"$f"
    refused "the default section reopened" "$f" 4 '\[default\] is reopened 1 times by a header'
    printf 'openssl_conf = init\n[init]\nrandom = r\n[r]\nseed_properties = provider=default\n' >"$f"
    refused "[random] with seed_properties" "$f" 4 'line 5: \[r\] seed_properties = provider=default: this file already chooses a seed source'
    printf 'openssl_conf = init\n[init]\nrandom = r\n[r]\ncipher = AES-256-CTR\nCIPHER = AES-128-CTR\n' >"$f"
    refused "[random] key twice, in two cases" "$f" 4 'line 5: \[r\] cipher is given twice \(OpenSSL ignores case here'
    printf 'openssl_conf = init\n[init]\nproviders = p\n[p]\ndefault = d\n[d]\nx = 1 \\\n  2\n' >"$f"
    refused "the default provider's section continued" "$f" 4 'line 7: \[d\] has a line continued with a backslash \(lines 7-8\)'

    # activate as OpenSSL 3.3+ reads it (provider_conf.c): the seven true
    # spellings are on everywhere; another case of one is off there.
    for v in yes YES true TRUE on ON; do
        printf 'openssl_conf = init\n[init]\nproviders = p\n[p]\ndefault = d\n[d]\nactivate = %s\n' "$v" >"$f"
        run -- "$CHECK" --here --enable "$f"
        check "activate = $v: --enable exits 0" exited_ok
        check "activate = $v: the default section left as it is" \
            [ "$(grep -c '^activate = ' "$f")" -eq 2 ]
        rm -f "$f".rdrand-check-backup-*
    done
    printf 'openssl_conf = init\n[init]\nproviders = p\n[p]\ndefault = d\n[d]\nactivate = True\n' >"$f"
    refused "activate = True (off on 3.3+)" "$f" 4 '\[d\] activate = True: OpenSSL 3.0-3.2 load the provider whatever the value'
    # A .pragma and a key set through "req::": read, left alone.
    printf '.pragma dollarid:on\nHOME = .\nreq::default_bits = 2048\n[ req ]\nx = 1\n' >"$f"
    cp "$f" "$OUT/pragma.orig"
    run -- "$CHECK" --here --enable "$f"
    check ".pragma and req::key: --enable exits 0" exited_ok
    run -- "$CHECK" --here --disable "$f"
    check ".pragma and req::key: --disable gives the file back" same_as "$OUT/pragma.orig" "$f"
    rm -f "$f".rdrand-check-backup-*
    # A key of a section it edits set from another section: refused.
    printf 'openssl_conf = init\n[init]\n[x]\ninit::providers = p\n[p]\n' >"$f"
    refused "init::providers written in [x]" "$f" 4 'line 4: init::providers, written in \[x\], sets a key of \[init\]'

    # The block --enable wrote, edited by hand: --disable refuses.
    damaged() { # damaged NAME SED-SCRIPT WHY
        cp "$min" "$f"
        run -- "$CHECK" --here --enable "$f"
        sed -i "$2" "$f"
        refused "$1: --disable" "$f" 4 "$3" "$CHECK" --here --disable
    }
    damaged "BEGIN line doubled" '/^# BEGIN rdrand-provider/p' 'line [0-9]+: a second BEGIN rdrand-provider line'
    damaged "BEGIN line removed" '/^# BEGIN rdrand-provider/d' 'line [0-9]+: END rdrand-provider without its BEGIN line'
    damaged "END line removed" '/^# END rdrand-provider$/d' 'BEGIN rdrand-provider without its END line'
    damaged "block removed, marked line kept" '/^# BEGIN rdrand-provider/,/^# END rdrand-provider$/d' 'marked lines without the BEGIN rdrand-provider block'
    # --enable on a file whose block was edited refuses too.
    cp "$min" "$f"
    run -- "$CHECK" --here --enable "$f"
    sed -i '/^# BEGIN rdrand-provider/p' "$f"
    refused "BEGIN line doubled: --enable" "$f" 4 'line [0-9]+: a second BEGIN rdrand-provider line'
    # A line naming rdrand added by hand after --enable: the file is no
    # longer what --enable writes.
    cp "$min" "$f"
    run -- "$CHECK" --here --enable "$f"
    printf '[mine]\nk = rdrand\n' >>"$f"
    refused "a line naming rdrand added after --enable: --enable" "$f" 4 'has rdrand-check.s marks, but not as --enable writes them'
    rm -f "$f".rdrand-check-backup-*
    # An empty file enabled, its last newline removed: --disable gives the
    # empty file back.
    : >"$f"
    run -- "$CHECK" --here --enable "$f"
    truncate -s -1 "$f"
    run -- "$CHECK" --here --disable "$f"
    check "empty file enabled, last newline removed: --disable exits 0" exited_ok
    check "  ... the file is empty again" [ ! -s "$f" ]
    rm -f "$f".rdrand-check-backup-*

    # The new file fails the check: nothing installed.  Only base is
    # activated (a FIPS-like system without fips): --enable leaves the
    # default off, and the check calls that misconfigured.
    printf 'openssl_conf = init\n[init]\nproviders = p\n[p]\nbase = b\n[b]\nactivate = 1\n' >"$f"
    n=$(backups "$f")
    refused "new file fails the check" "$f" 6 'the new file fails the check \(verdict 2'
    check "new file fails the check: the report names the default" \
        stdout_has 'default is not activated'
    check "new file fails the check: no backup" [ "$(backups "$f")" -eq "$n" ]
    cp "$min" "$f"
    snap=$(snap "$f")
    run "OPENSSL_MODULES=$OUT/nowhere" -- "$CHECK" --here --enable "$f"
    check "module not installed: --enable exits 6" exited_with 6
    check "module not installed: the report names the module" stdout_has 'no file .*/nowhere/rdrand.so'
    check "module not installed: unchanged" unchanged "$f" "$snap"
    check "module not installed: no temporary file left" no_temp "$f"

    # Files it cannot read or write.
    run -- "$CHECK" --here --enable "$OUT/nonexistent.cnf"
    check "nonexistent: exits 5" exited_with 5
    check "nonexistent: says so" stderr_has "nonexistent.cnf: No such file or directory; nothing changed"
    check "nonexistent: creates nothing" [ ! -e "$OUT/nonexistent.cnf" ]
    if [ "$(id -u)" -eq 0 ]; then
        # Root writes any file: run as nobody, where permissions bind.
        local as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
        local d=$OUT/ro
        mkdir -m 0755 "$d"
        chmod 0711 "$OUT"
        cp "$min" "$d/root.cnf"
        refused "unwritable file (nobody, root's 0644)" "$d/root.cnf" 5 \
            "cannot write $d/root.cnf: Permission denied" "${as[@]}" "$CHECK" --here --enable
        cp "$min" "$d/mine.cnf"
        chown 65534:65534 "$d/mine.cnf"
        refused "unwritable directory (nobody's file, root's directory)" \
            "$d/mine.cnf" 5 "cannot create a file in $d .*Permission denied" \
            "${as[@]}" "$CHECK" --here --enable
        cp "$min" "$d/secret.cnf"
        chmod 0600 "$d/secret.cnf"
        refused "unreadable file" "$d/secret.cnf" 5 \
            "cannot read $d/secret.cnf: Permission denied" "${as[@]}" "$CHECK" --here --enable
    else
        cp "$min" "$f"
        chmod 0444 "$f"
        refused "unwritable file (0444)" "$f" 5 "cannot write $f: Permission denied"
        chmod 0644 "$f"
    fi

    # Not a regular file of at most 4 MiB: refused before anything.
    run -- "$CHECK" --here --enable "$OUT"
    check "a directory: exits 5" exited_with 5
    check "a directory: says why" stderr_has "$OUT is not a regular file of at most 4194304 bytes"
    run -- "$CHECK" --here --enable /dev/null
    check "/dev/null: exits 5" exited_with 5
    check "/dev/null: says why" stderr_has '/dev/null is not a regular file of at most'
    cp "$min" "$f"
    truncate -s 5M "$f"
    refused "a 5 MiB file" "$f" 5 "is not a regular file of at most 4194304 bytes"

    # Names beside the file that only look like its backups are never
    # taken for one (the older backups go, these stay).
    cp "$min" "$OUT/dk.cnf"
    local decoys=(2026 20260101X000000Z 20260101T000000X 2026010xT000000Z
        20260101T000000Zx 20260101T000000Z- 20260101T000000Z-2a)
    for d in "${decoys[@]}"; do : >"$OUT/dk.cnf.rdrand-check-backup-$d"; done
    cp "$min" "$OUT/dk.cnf.rdrand-check-backup-20200101T000000Z-3"
    run -- "$CHECK" --here --enable "$OUT/dk.cnf"
    check "backup look-alikes: --enable exits 0" exited_ok
    check "backup look-alikes: the older real backup went" \
        [ ! -e "$OUT/dk.cnf.rdrand-check-backup-20200101T000000Z-3" ]
    look_alikes_kept() {
        for d in "${decoys[@]}"; do
            [ -e "$OUT/dk.cnf.rdrand-check-backup-$d" ] || return 1
        done
    }
    check "backup look-alikes: every look-alike kept" look_alikes_kept
    check "backup look-alikes: one real backup beside them" \
        [ "$(backups "$OUT/dk.cnf")" -eq $((${#decoys[@]} + 1)) ]

    # One backup per file, not one per run (issue 30): the new one is
    # written under a name of its own (never over another, even within
    # one second), then the older ones go; it holds the file as it was
    # before the last edit.
    cp "$min" "$OUT/bk.cnf"
    for _ in 1 2; do
        run -- "$CHECK" --here --enable "$OUT/bk.cnf"
        cp "$OUT/bk.cnf" "$OUT/bk.enabled"
        run -- "$CHECK" --here --disable "$OUT/bk.cnf"
    done
    check "four edits, one backup" [ "$(backups "$OUT/bk.cnf")" -eq 1 ]
    check "  ... the file before the last edit" \
        same_as "$OUT/bk.enabled" "$(find "$OUT" -maxdepth 1 -name 'bk.cnf.rdrand-check-backup-*')"
    # A name with glob characters names only itself: [ab].cnf's edit
    # leaves a.cnf's backup alone.
    cp "$min" "$OUT/a.cnf"
    cp "$min" "$OUT/[ab].cnf"
    run -- "$CHECK" --here --enable "$OUT/a.cnf"
    run -- "$CHECK" --here --enable "$OUT/[ab].cnf"
    check "[ab].cnf enabled after a.cnf: a.cnf's backup kept" [ "$(backups "$OUT/a.cnf")" -eq 1 ]
    # Two edits at once: one at a time (a lock on the file), never a
    # backup deleted by the other.
    two_at_once() {
        for _ in 1 2 3 4 5 6; do
            cp "$min" "$OUT/race.cnf"
            rm -f "$OUT"/race.cnf.rdrand-check-backup-*
            "$CHECK" --here --enable "$OUT/race.cnf" >/dev/null 2>&1 &
            "$CHECK" --here --enable "$OUT/race.cnf" >/dev/null 2>&1
            wait $!
            [ "$(backups "$OUT/race.cnf")" -eq 1 ] || return 1
            grep -q "$MARK" "$OUT/race.cnf" || return 1
        done
    }
    check "two --enable at once, six times: enabled, one backup each time" two_at_once
    check "four edits: the file is the original" same_as "$min" "$OUT/bk.cnf"

    # Usage.
    run -- "$CHECK" --here --enable "$f" --json
    check "--enable --json: usage, exit 3" exited_with 3
    run -- "$CHECK" --here --enable "$f" "$f"
    check "--enable with two files: usage, exit 3" exited_with 3
    run -- "$CHECK" --here --enable --disable "$f"
    check "--enable --disable: usage, exit 3" exited_with 3
}

case ${1:-} in
bookworm | trixie) release "$1" ;;
cases) cases ;;
*)
    echo "usage: $0 bookworm|trixie|cases" >&2
    exit 2
    ;;
esac
finish
