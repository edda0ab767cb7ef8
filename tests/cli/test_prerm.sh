#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# shellcheck disable=SC2317 # the helpers below are called through check
# shellcheck disable=SC2016 # ${m} and $ in configs are text for NCONF
# The package's prerm (cmake/debian/prerm) run as dpkg runs it, by
# /bin/sh (dash on Debian), on configurations given through OPENSSL_CONF,
# with this build's rdrand-check as the tool it asks (--loads): it must
# warn for every file that makes OpenSSL load rdrand.so, whatever way the
# file writes it, and stay quiet for one that does not, each proved
# against OpenSSL itself (openssl list -providers with that file); print
# advice that works when applied; and never fail the removal, whatever
# the files are named.  tests/check_install.sh and tests/fresh run it
# through dpkg -r.
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
export OPENSSL_MODULES=$REAL_MODULES
# The prerm with this build's tool in place of the package's.
sed "s|^tool=/usr/bin/rdrand-check\$|tool=$RDRAND_BUILD_DIR/rdrand-check|" \
    "$RDRAND_SOURCE_DIR/cmake/debian/prerm" >"$OUT/prerm"
check "the prerm asks this build's rdrand-check" \
    grep -qxF "tool=$RDRAND_BUILD_DIR/rdrand-check" "$OUT/prerm"

prerm() { # FILE ACTION: the output in $OUT/stdout, the status in $status
    run "OPENSSL_CONF=$1" -- sh "$OUT/prerm" "$2"
    cat "$OUT/stderr" >>"$OUT/stdout"
}
loads() { # FILE: OpenSSL itself, pointed at FILE, has provider rdrand active
    run "OPENSSL_CONF=$1" -- "$OPENSSL_BIN" list -providers
    listed rdrand active
}
warns_for() { # FILE WHERE: exit 0, warned, naming WHERE (FILE:LINE)
    prerm "$1" remove
    [ "$status" -eq 0 ] &&
        grep -q "^WARNING: rdrand-provider is being removed" "$OUT/stdout" &&
        grep -qF "    $2: [" "$OUT/stdout"
}
loads_not() { ! loads "$1"; }
quiet_for() {
    prerm "$1" remove
    [ "$status" -eq 0 ] && ! grep -q WARNING "$OUT/stdout"
}

# conf(NAME, MODULE-LINES...): a whole configuration loading a provider
# entry rdrand whose section holds the given lines.
conf() {
    local f=$OUT/$1
    shift
    {
        printf 'openssl_conf = init\n[init]\nproviders = prov\n'
        printf '[prov]\ndefault = dflt\nrdrand = rdrand_sect\n'
        printf '[dflt]\nactivate = 1\n[rdrand_sect]\nactivate = 1\n'
        printf '%s\n' "$@"
    } >"$f"
    echo "$f"
}

# ---- each way a file can load rdrand.so: OpenSSL loads it, prerm warns ----
while IFS='~' read -r name lines; do
    # shellcheck disable=SC2086 # the lines are split on purpose
    IFS='|' read -ra body <<<"$lines"
    f=$(conf "$name.cnf" "${body[@]}")
    # The line naming the module, else the entry's section header.
    line=$(grep -n -m1 -e '^module' "$f" | cut -d: -f1)
    [ -n "$line" ] || line=$(grep -n -m1 -xF '[rdrand_sect]' "$f" | cut -d: -f1)
    check "$name: OpenSSL loads rdrand.so" loads "$f"
    check "$name: prerm warns, naming line $line" warns_for "$f" "$f:$line"
done <<'CASES'
plain~module = rdrand.so
continued~module = \|rdrand.so
escaped~module = rdr\and.so
quoted~module = rdr"and".so
variable~m = rdr|module = ${m}and.so
no module line~# the entry's name is the module's
CASES
# (the last: an entry named rdrand without module loads rdrand.so)

# The providers module under another name of OpenSSL's matching (the
# entry's name up to its last '.', a prefix of "providers").
for entry in providers.2 prov.x prov; do
    f=$(conf "entry-$entry.cnf" 'module = rdrand.so')
    sed -i "s/^providers = prov\$/$entry = prov/" "$f"
    check "init entry '$entry = prov': OpenSSL loads rdrand.so" loads "$f"
    check "init entry '$entry = prov': prerm warns" warns_for "$f" "$f:11"
done

# Loaded through an include outside /etc/ssl, of a file not named .cnf.
mkdir -p "$OUT/elsewhere"
printf '[rdrand_sect]\nactivate = 1\nmodule = rdrand.so\n' >"$OUT/elsewhere/rdrand-part"
printf 'openssl_conf = init\n[init]\nproviders = prov\n[prov]\ndefault = dflt\nrdrand = rdrand_sect\n[dflt]\nactivate = 1\n.include %s\n' \
    "$OUT/elsewhere/rdrand-part" >"$OUT/top.cnf"
check "include outside /etc/ssl, not .cnf: OpenSSL loads rdrand.so" loads "$OUT/top.cnf"
check "  ... prerm warns, naming the included file's line" \
    warns_for "$OUT/top.cnf" "$OUT/elsewhere/rdrand-part:3"
check "  ... and the file that includes it" \
    stdout_has "\(included from $OUT/top\.cnf\)"

# ---- files that do not load it: OpenSSL agrees, prerm is quiet ----
printf '[rdrand_sect]\nmodule = rdrand.so\nactivate = 1\n' >"$OUT/fragment.cnf"
f=$(conf commented.cnf '# module = rdrand.so')
sed -i 's/^rdrand = rdrand_sect$/#rdrand = rdrand_sect/' "$f"
for f in "$OUT/fragment.cnf" "$f"; do
    check "$(basename "$f"): OpenSSL does not load rdrand.so" loads_not "$f"
    check "$(basename "$f"): prerm quiet, exit 0" quiet_for "$f"
done

# ---- odd names: never a failed removal, every path quoted ----
for name in 'site|local.cnf' 'a&b.cnf' "it's here.cnf"; do
    f=$(conf "$name" 'module = rdrand.so')
    prerm "$f" remove
    check "named $name: exit 0" test "$status" -eq 0
    check "named $name: the path shown as it is" grep -qF "    $f:" "$OUT/stdout"
    advice=$(sed -n 's/^ *not --enable.s edit: .*: \(rm .*\)$/\1/p' "$OUT/stdout" | head -n 1)
    check "named $name: the advice is one rm of that file" test -n "$advice"
    # Applied as printed (by sh), the advice removes that file and no other.
    sh -c "$advice" && [ ! -e "$f" ]
    check "named $name: the advice, run by sh, removed it" test $? -eq 0
    prerm "$f" remove
    check "named $name: after the advice, prerm is quiet" quiet_for "$f"
done

# A name with a newline: named (escaped), no command to paste.
f=$(conf "$(printf 'nl\nname.cnf')" 'module = rdrand.so')
prerm "$f" remove
check "a name with a newline: no command to paste, said why" \
    grep -q 'a name with a control character: do it by hand' "$OUT/stdout"
rm -f "$f"
# Configured but not activated: OpenSSL does not load it at start.
f=$(conf inactive.cnf 'module = rdrand.so')
sed -i 's/^activate = 1$/activate = 0/' "$f"
# (3.3 and later do not load it; 3.0-3.2 load it whatever the value.)
prerm "$f" remove
if grep -qx '  rdrand' <(OPENSSL_CONF=$f "$OPENSSL_BIN" list -providers 2>/dev/null); then
    check "activate = 0, this OpenSSL loads it: reported as loading" grep -q '\] loads rdrand\.so' "$OUT/stdout"
else
    check "activate = 0, this OpenSSL does not: reported as configured, not activated" \
        grep -q '\] configures rdrand\.so (not activated' "$OUT/stdout"
fi

# ---- a file --enable edited: the advice is --disable, and it works ----
printf 'openssl_conf = init\n[init]\nproviders = prov\n[prov]\ndefault = dflt\n[dflt]\nactivate = 1\n' >"$OUT/stock.cnf"
run -- "$RDRAND_BUILD_DIR/rdrand-check" --here --enable "$OUT/stock.cnf"
check "--enable on a stock-like file: exit 0" test "$status" -eq 0
prerm "$OUT/stock.cnf" remove
check "enabled file: prerm warns" grep -q '^WARNING' "$OUT/stdout"
check "  ... its advice is rdrand-check --disable, quoted" \
    grep -qxF "      revert: rdrand-check --disable '$OUT/stock.cnf'" "$OUT/stdout"
check "  ... and --enable's backup, for when the tool is gone" \
    grep -qE "^      without rdrand-check, restore --enable's backup: cp -p '$OUT/stock\.cnf\.rdrand-check-backup-[^']*' '$OUT/stock\.cnf'$" "$OUT/stdout"
run -- "$RDRAND_BUILD_DIR/rdrand-check" --disable "$OUT/stock.cnf"
check "  ... applied (--disable): exit 0" test "$status" -eq 0
check "  ... and then prerm is quiet" quiet_for "$OUT/stock.cnf"

# ---- the scan of /etc/ssl (here a directory of the test's) goes on
# whatever OPENSSL_CONF names or whether OpenSSL's default file exists ----
mkdir -p "$OUT/etcssl"
f=$(conf scanned.cnf 'module = rdrand.so')
mv "$f" "$OUT/etcssl/scanned.cnf"
ln -s "$OUT/etcssl/scanned.cnf" "$OUT/etcssl/link.cnf"
sed -e "s|/etc/ssl|$OUT/etcssl|g" -e "s|/usr/lib/ssl/openssl.cnf|$OUT/nonexistent/openssl.cnf|" \
    "$OUT/prerm" >"$OUT/prerm-scan"
for conf in /nonexistent.cnf -name relative.cnf ""; do
    run "OPENSSL_CONF=$conf" -- sh "$OUT/prerm-scan" remove
    cat "$OUT/stderr" >>"$OUT/stdout"
    scanned() { [ "$status" -eq 0 ] && grep -qF "    $OUT/etcssl/scanned.cnf:" "$OUT/stdout"; }
    check "scan, OPENSSL_CONF='$conf', no default file: exit 0, the scanned file named" scanned
done
rm "$OUT/etcssl/scanned.cnf"
cp "$(conf target.cnf 'module = rdrand.so')" "$OUT/elsewhere/target.cnf"
ln -sf "$OUT/elsewhere/target.cnf" "$OUT/etcssl/link.cnf"
run -- sh "$OUT/prerm-scan" remove
check "scan: a symlink under it to a file elsewhere is read" \
    grep -qF "    $OUT/elsewhere/target.cnf:" "$OUT/stderr"

# ---- other actions, and no tool ----
f=$(conf up.cnf 'module = rdrand.so')
prerm "$f" upgrade
check "upgrade: quiet, exit 0" test "$status" -eq 0 -a ! -s "$OUT/stdout"
sed 's|^tool=.*|tool=/nonexistent/rdrand-check|' "$OUT/prerm" >"$OUT/prerm-gone"
run "OPENSSL_CONF=$f" -- sh "$OUT/prerm-gone" remove
check "the tool gone already: quiet, exit 0" test "$status" -eq 0
prerm "$OUT/missing.cnf" remove
check "a file that does not exist: exit 0" test "$status" -eq 0
finish
