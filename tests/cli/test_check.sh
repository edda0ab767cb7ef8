#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# rdrand-check and the config latch through the real openssl binary: every
# operator mistake as a variant of conf/rdrand.cnf (pointed at the
# simulated-CPU module so that it runs on any CPU): openssl rand fails for
# the provider's own bad values, rdrand-check exits 2 (0 where OpenSSL
# really does what was meant) naming the line; the correct file passes.
# Then a failing and an absent simulated RDRAND (exit 1), a refused load,
# the JSON (python3's json parser) and Prometheus (promtool) outputs, -o,
# -n, usage errors, and no program answering to the removed rdrand-stat.
# shellcheck disable=SC2317 # the helpers below are called through check
# shellcheck disable=SC2016 # $ENV::NAME in configs is text for NCONF, not the shell
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"

CHECK=$RDRAND_BUILD_DIR/rdrand-check
SIM=rdrand-sim
PY=/usr/bin/python3 # Debian's, with only the standard library
names_line() { # names_line N: the report names FILE:N
    grep -qF -- "$VARIANT:$1: " "$OUT/stdout"
}

# conf/rdrand.cnf, unchanged but for the module it names (the simulated
# CPU's) and warn = stderr, so the one-shot warning shows in the test.
VARIANT=$OUT/variant.cnf
make_variant() { # make_variant SED-SCRIPT
    sed -e 's/^module = rdrand\.so$/module = rdrand-sim.so/' \
        -e 's/^rdrand = rdrand_sect$/rdrand-sim = rdrand_sect/' \
        -e 's/^seed_properties = provider=rdrand$/&-sim/' \
        -e 's/^warn = syslog$/warn = stderr/' "$CONF/rdrand.cnf" |
        sed -e "$1" >"$VARIANT"
}
line_of() { grep -n -m1 -xF -- "$1" "$VARIANT" | cut -d: -f1; }
sim() { run "OPENSSL_MODULES=$SIM_MODULES" "RDRAND_SIM=${RDRAND_SIM_SPEC:-}" "$@"; }

make_variant ''
check "the translated conf/rdrand.cnf still names rdrand-sim.so" \
    grep -qx 'module = rdrand-sim.so' "$VARIANT"
sim "OPENSSL_CONF=$VARIANT" -- "$OPENSSL_BIN" rand -hex 16
check "correct file: openssl rand exits 0" exited_ok
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "correct file: rdrand-check exits 0" exited_with 0
check "correct file: seed source live" stdout_has '^seed source: live: '
check "correct file: verdict live" stdout_has '^verdict: 0 live'
check "correct file: no problem reported" \
    stdout_lacks '^(warning|unhealthy|misconfigured): '

# NAME ~ SED ~ EXIT ~ LINE TO NAME (as written in the variant, "" for
# none) ~ MESSAGE (of both the provider and the checker) ~ openssl rand:
# fails, warning on stderr | fails, warning to syslog (warn itself is
# bad) | ok (OpenSSL hides the mistake, on every release) | fetch (the
# seed source [random] names cannot be fetched: 3.0-3.6 hide it and seed
# from the OS, 4.0 fails closed) | any (OpenSSL's own error)
mistakes=(
    "coco_seed_bits = 128~s/^coco_seed_bits = 256$/coco_seed_bits = 128/~2~coco_seed_bits = 128~\"128\" is not accepted \\(below 256\\)~stderr"
    "coco_seed_bits = 0256~s/^coco_seed_bits = 256$/coco_seed_bits = 0256/~2~coco_seed_bits = 0256~\"0256\" is not accepted \\(leading zero\\)~stderr"
    "coco_seed_bits = 00000256~s/^coco_seed_bits = 256$/coco_seed_bits = 00000256/~2~coco_seed_bits = 00000256~\"00000256\" is not accepted \\(leading zero\\)~stderr"
    "on_coco_failure = refusee~s/^on_coco_failure = fail-closed$/on_coco_failure = refusee/~2~on_coco_failure = refusee~use refuse \\| fail-closed \\| abort~stderr"
    "conditioning = Reduce512~s/^conditioning = none$/conditioning = Reduce512/~2~conditioning = Reduce512~\"Reduce512\" is not accepted \\(values are case-sensitive\\); use none \\| reduce512~stderr"
    "conditioning = reduce~s/^conditioning = none$/conditioning = reduce/~2~conditioning = reduce~\"reduce\" is not accepted; use none \\| reduce512~stderr"
    "conditioning empty~s/^conditioning = none$/conditioning =/~2~conditioning =~conditioning = \"\" is not accepted; use none \\| reduce512~stderr"
    "CONDITIONING in capitals~s/^conditioning = none$/CONDITIONING = reduce512/~2~CONDITIONING = reduce512~keys are case-sensitive~stderr"
    "conditioning twice~s/^conditioning = none$/conditioning = reduce512\\nconditioning = none/~2~conditioning = reduce512~given twice~ok"
    "conditioning naming a section the provider does not probe~s/^conditioning = none$/conditioning = cond_sect/;\$a[cond_sect]\\nmode = reduce512~2~conditioning = cond_sect~conditioning is a section name, not a value~ok"
    "misspelt conditioning~s/^conditioning = none$/conditoning = reduce512/~2~conditoning = reduce512~did you mean conditioning\\?~ok"
    "MIX (a spelling the provider asks for, and refuses)~s/^conditioning = none$/conditioning = none\\nMIX = os/~2~MIX = os~MIX = \"os\" is not accepted \\(keys are case-sensitive\\)~stderr"
    "mIx (a spelling the provider never sees)~s/^conditioning = none$/conditioning = none\\nmIx = os/~2~mIx = os~unknown key mIx \\(keys are case-sensitive\\): the provider never sees it~ok"
    "conditioning = reduce512~s/^conditioning = none$/conditioning = reduce512/~0~~^seed source: live~ok"
    "warn = loud~s/^warn = stderr$/warn = loud/~2~warn = loud~warn = \"loud\" is not accepted~syslog"
    "WARN in capitals~s/^warn = stderr$/WARN = bogus/~2~WARN = bogus~keys are case-sensitive~syslog"
    "value naming a section~s/^on_coco_failure = fail-closed$/on_coco_failure = default_sect/~2~on_coco_failure = default_sect~on_coco_failure is a section name, not a value~stderr"
    "misspelt key~s/^on_coco_failure = fail-closed$/on_coco_failur = fail-closed/~2~on_coco_failur = fail-closed~did you mean on_coco_failure\\?~ok"
    "duplicated key~s/^warn = stderr$/warn = bogus\\nwarn = stderr/~2~warn = bogus~given twice~ok"
    "seed = RDRANDX~s/^seed = RDRAND$/seed = RDRANDX/~2~seed = RDRANDX~did you mean RDRAND\\?~fetch"
    "seed_properties = provider=rdrnd~s/^seed_properties = .*/seed_properties = provider=rdrnd/~2~seed_properties = provider=rdrnd~did you mean provider=$SIM\\?~fetch"
    "seed_properties missing~/^seed_properties = /d~2~[random_sect]~no seed_properties line~ok"
    "seed missing~/^seed = /d~2~[random_sect]~no seed line~ok"
    "unknown key in [random]~s/^seed = RDRAND$/&\\nseeed = RDRAND/~2~seeed = RDRAND~did you mean seed\\?~any"
    "module without .so~s/^module = rdrand-sim.so$/module = rdrand-sim/~2~module = rdrand-sim~did you mean module = rdrand-sim.so\\?~fetch"
    "module path that does not exist~s|^module = rdrand-sim.so$|module = /nonexistent/rdrand-sim.so|~2~module = /nonexistent/rdrand-sim.so~no file /nonexistent/rdrand-sim.so~fetch"
    "provider section without activate~/^\\[rdrand_sect\\]/,/^\\[/{/^activate = 1$/d}~2~[rdrand_sect]~no activate line~fetch"
    "default not activated~/^\\[default_sect\\]/,/^\\[/{/^activate = 1$/d}~2~[provider_sect]~default is not activated~any"
    "no random line~/^random = random_sect$/d~2~[openssl_init]~no random line~ok"
    "provider named by identity~s/^rdrand-sim = rdrand_sect$/seedprov = rdrand_sect/;s/^module = rdrand-sim.so$/&\nidentity = rdrand-sim/~0~~^configuration: no problem found~ok"
    "seed = rdrand in lower case (names are case-insensitive)~s/^seed = RDRAND$/seed = rdrand/~0~~^seed source: live~ok"
    "SEED in capitals ([random] keys ignore case)~s/^seed = RDRAND$/SEED = RDRAND/;s/^seed_properties = /SEED_Properties = /~0~~^configuration: no problem found~ok"
    "seed twice, in two cases~s/^seed = RDRAND$/seed = RDRANDX\\nSEED = RDRAND/~2~seed = RDRANDX~given twice~ok"
    "SEED = RDRANDX in capitals~s/^seed = RDRAND$/SEED = RDRANDX/~2~SEED = RDRANDX~did you mean RDRAND\\?~fetch"
    # A provider OpenSSL skips while [random] names no seed: every
    # release, 4.0 too, seeds from the OS without a word.
    "module without .so, no seed line~s/^module = rdrand-sim.so$/module = rdrand-sim/;/^seed = /d~2~module = rdrand-sim~did you mean module = rdrand-sim.so\\?~ok"
    "provider section without activate, no seed line~/^\\[rdrand_sect\\]/,/^\\[/{/^activate = 1$/d};/^seed = /d~2~[rdrand_sect]~no activate line~ok"
    # A DRBG OpenSSL cannot fetch: every draw fails before a seed is asked
    # for, on every release; the checker tells that from RDRAND failing
    # by the provider's counters (0 seed requests), not by error text.
    "random = CTR-DRBGX~s/^\\[random_sect\\]$/&\\nrandom = CTR-DRBGX/~2~~never asked for a seed~any"
)
WARNED="^rdrand-provider: invalid value in the rdrand"
for row in "${mistakes[@]}"; do
    IFS='~' read -r name script want line message rand <<<"$row"
    make_variant "$script"
    if [ -n "$line" ]; then
        check "$name: the variant has the line to name" test -n "$(line_of "$line")"
    fi
    sim "OPENSSL_CONF=$VARIANT" -- "$OPENSSL_BIN" rand -hex 16
    case $rand in
    stderr | syslog)
        check "$name: openssl rand exits non-zero" exited_fail
        check "$name: openssl rand names it" stderr_has "$message"
        check "$name: and prints no bytes" stdout_lacks '[0-9a-f]{8}'
        if [ "$rand" = stderr ]; then
            check "$name: the warning on stderr (warn = stderr)" \
                stderr_has "$WARNED"
        else
            check "$name: the warning goes to syslog, not stderr" \
                test "$(grep -c "$WARNED" "$OUT/stderr")" -eq 0
        fi
        ;;
    ok) check "$name: openssl rand exits 0 (OpenSSL hides this one)" exited_ok ;;
    any)
        check "$name: openssl rand fails (OpenSSL's own error)" exited_fail
        check "$name: and prints no bytes" stdout_lacks '[0-9a-f]{8}'
        ;;
    fetch)
        if openssl_at_least 4 0; then
            check "$name: openssl rand fails closed (4.0: seed not fetched)" \
                exited_fail
            check "$name: openssl rand says the fetch failed" \
                stderr_has 'rand_new_seed:unable to fetch drbg'
            check "$name: and prints no bytes" stdout_lacks '[0-9a-f]{8}'
        else
            check "$name: openssl rand exits 0 (3.x hides this one)" exited_ok
            check "$name: and prints OS-seeded bytes" hex32
        fi
        ;;
    esac
    sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
    check "$name: rdrand-check exits $want" exited_with "$want"
    check "$name: rdrand-check says why" stdout_has "$message"
    if [ -n "$line" ]; then
        check "$name: rdrand-check names line $(line_of "$line")" \
            names_line "$(line_of "$line")"
    fi
done

# seed_properties that select the provider and also ask for a property
# it lacks: the file reads right, only the draw tells.  3.0-3.6 seed from
# the OS (no seed request reaches the provider), 4.0 fails closed (the
# seed source cannot be fetched); the checker exits 2 on both.
make_variant 's/^seed_properties = .*/&,fips=yes/'
t="seed_properties = provider=$SIM,fips=yes"
sim "OPENSSL_CONF=$VARIANT" -- "$OPENSSL_BIN" rand -hex 16
if openssl_at_least 4 0; then
    check "$t: openssl rand fails closed (4.0)" exited_fail
    check "$t: openssl rand says the fetch failed" \
        stderr_has 'rand_new_seed:unable to fetch drbg'
else
    check "$t: openssl rand exits 0 (3.x seeds from the OS)" exited_ok
fi
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "$t: rdrand-check exits 2" exited_with 2
if openssl_at_least 4 0; then
    check "$t: the draw failed for want of the seed source" \
        stdout_has '^misconfigured: drawing random bytes failed: OpenSSL cannot fetch the seed source'
else
    check "$t: no seed request reached the provider" \
        stdout_has '^misconfigured: .* seed requests: OpenSSL seeded from another source'
fi
check "$t: not called unhealthy" stdout_lacks '^unhealthy: '
check "$t: not live" stdout_lacks '^seed source: live'

# conditioning = reduce512 on a CPU without AES-NI: a good file, a CPU
# that cannot run it: latched at load, every seed refused, naming AES-NI.
make_variant 's/^conditioning = none$/conditioning = reduce512/'
RDRAND_SIM_SPEC=aesni=absent sim "OPENSSL_CONF=$VARIANT" -- \
    "$OPENSSL_BIN" rand -hex 16
check "reduce512 without AES-NI: openssl rand fails" exited_fail
check "reduce512 without AES-NI: names AES-NI and the alternative" \
    stderr_has 'needs AES-NI .*conditioning = none'
check "reduce512 without AES-NI: and prints no bytes" stdout_lacks '[0-9a-f]{8}'
RDRAND_SIM_SPEC=aesni=absent sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "reduce512 without AES-NI: rdrand-check exits 1 (unhealthy)" \
    exited_with 1
check "reduce512 without AES-NI: rdrand-check says why" \
    stdout_has '^unhealthy: .*needs AES-NI'

# What rdrand-check shows of conditioning when the section is refused:
# the mode written when that value is valid, "refused" when it is the
# value refused; and the CPU vendor, whose reseed claim reduce512 rests
# on (the simulated CPU is an AMD one unless a CoCo kind says otherwise).
make_variant 's/^warn = stderr$/warn = loud/;s/^conditioning = none$/conditioning = reduce512/'
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "warn refused, conditioning = reduce512: rdrand-check exits 2" \
    exited_with 2
check "warn refused: conditioning shown as written" \
    stdout_has '^  conditioning = reduce512$'
check "cpu-vendor shown (simulated AMD)" stdout_has '^  cpu-vendor = AuthenticAMD$'
make_variant 's/^conditioning = none$/conditioning = reduce512x/'
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "conditioning = reduce512x: shown as refused" \
    stdout_has '^  conditioning = refused$'
RDRAND_SIM_SPEC=coco=intel-vm sim -- "$CHECK" --here -c "$CONF/rdrand-sim.cnf" \
    --provider $SIM --prometheus
check "--prometheus: the CPU vendor as a label of rdrand_info" \
    stdout_has '^rdrand_info\{.*,conditioning="none",cpu_vendor="GenuineIntel",'
check "--prometheus: family, model, stepping, microcode, errata as labels" \
    stdout_has ',cpu_vendor="GenuineIntel",cpu_family="6",cpu_model="143",cpu_stepping="8",cpu_microcode="",cpu_errata="none",health_verdict="ok"\} 1$'

# mix = os (docs/mix.md): conf/sim-mix.cnf works and says so, through
# openssl rand and rdrand-check (text and Prometheus); a bad value is
# refused naming what is accepted, the mode shown as refused.
sim "OPENSSL_CONF=$CONF/sim-mix.cnf" -- "$OPENSSL_BIN" rand -hex 16
check "mix = os: openssl rand works" stdout_has '^[0-9a-f]{32}$'
sim -- "$CHECK" --here -c "$CONF/sim-mix.cnf" --provider $SIM
check "mix = os: rdrand-check exits 0" exited_with 0
check "mix = os: shown" stdout_has '^  mix = os$'
check "mix = os: os-bytes counted" stdout_has '^  os-bytes = [1-9][0-9]*$'
check "mix = os: os-failures 0" stdout_has '^  os-failures = 0$'
RDRAND_SIM_SPEC=os-fail-from=1,os-errno=ENOSYS sim -- "$CHECK" --here \
    -c "$CONF/sim-mix.cnf" --provider $SIM --prometheus
check "mix = os, getrandom failing: rdrand-check exits 1 (unhealthy)" \
    exited_with 1
check "mix = os, getrandom failing: rdrand_os_failures_total counts" \
    stdout_has '^rdrand_os_failures_total\{provider="rdrand-sim"\} [1-9]'
check "mix = os, getrandom failing: rdrand_mix_info says os" \
    stdout_has '^rdrand_mix_info\{provider="rdrand-sim",mix="os"\} 1$'
check "mix = os, getrandom failing: the warning names ENOSYS" \
    stderr_has 'getrandom of [0-9]+ bytes failed \(ENOSYS'
for bad in OS yes ''; do
    make_variant "s/^warn = stderr\$/warn = stderr\nmix = $bad/"
    sim "OPENSSL_CONF=$VARIANT" -- "$OPENSSL_BIN" rand -hex 16
    check "mix = '$bad': openssl rand fails" exited_fail
    check "mix = '$bad': names what is accepted" \
        stderr_has "mix = \"$bad\" is not accepted.*use none \| os"
    sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
    check "mix = '$bad': rdrand-check exits 2" exited_with 2
    check "mix = '$bad': shown as refused" stdout_has '^  mix = refused$'
done

# The CPU and the errata verdict (provider/cpu_errata.c).  An unlisted
# CPU (the simulated default, AMD family 19h model 11h stepping 1, no
# microcode file): its numbers, none listed, no warning.  A listed one
# (Zen 2, 17h/71h): one warning from the provider at load, a warning line
# from the checker, and still exit 0: the health tests decide.
ERRATUM="^rdrand-provider: CPU erratum amd-17h-70h-7fh \(AuthenticAMD family 17h model 71h stepping 0, microcode 0x8701013\): "
sim -- "$CHECK" --here -c "$CONF/rdrand-sim.cnf" --provider $SIM
check "unlisted CPU: rdrand-check exits 0" exited_with 0
check "unlisted CPU: cpu-family shown" stdout_has '^  cpu-family = 25$'
check "unlisted CPU: cpu-model shown" stdout_has '^  cpu-model = 17$'
check "unlisted CPU: cpu-stepping shown" stdout_has '^  cpu-stepping = 1$'
check "unlisted CPU: no microcode file, cpu-microcode empty" \
    stdout_has '^  cpu-microcode = $'
check "unlisted CPU: cpu-errata = none" stdout_has '^  cpu-errata = none$'
check "unlisted CPU: no errata warning" \
    stdout_lacks '^warning: .*known RDRAND errata'
check "unlisted CPU: no provider warning" stderr_lacks '^rdrand-provider: '
RDRAND_SIM_SPEC=cpu=amd:17:71:0,microcode=8701013 \
    sim -- "$CHECK" --here -c "$CONF/rdrand-sim.cnf" --provider $SIM
check "Zen 2 17h/71h: rdrand-check exits 0 (a warning only)" exited_with 0
check "Zen 2 17h/71h: seed source live" stdout_has '^seed source: live: '
check "Zen 2 17h/71h: the numbers in decimal" \
    stdout_has '^  cpu-family = 23$'
check "Zen 2 17h/71h: cpu-model = 113" stdout_has '^  cpu-model = 113$'
check "Zen 2 17h/71h: cpu-stepping = 0" stdout_has '^  cpu-stepping = 0$'
check "Zen 2 17h/71h: cpu-microcode from the kernel's file" \
    stdout_has '^  cpu-microcode = 0x8701013$'
check "Zen 2 17h/71h: cpu-errata names the entry" \
    stdout_has '^  cpu-errata = amd-17h-70h-7fh$'
check "Zen 2 17h/71h: the checker's warning line" \
    stdout_has '^warning: this CPU \(AuthenticAMD family 17h model 71h, microcode 0x8701013\) is in provider rdrand-sim.s table of known RDRAND errata: amd-17h-70h-7fh; RDRAND stays in use'
check "Zen 2 17h/71h: exactly one provider warning line on stderr" \
    test "$(grep -c '^rdrand-provider: ' "$OUT/stderr")" -eq 1
check "Zen 2 17h/71h: and it is the erratum's" stderr_has "$ERRATUM"
RDRAND_SIM_SPEC=cpu=amd:17:71:0,microcode=8701013 \
    sim -- "$CHECK" --here -c "$CONF/rdrand-sim.cnf" --provider $SIM --prometheus
check "Zen 2 17h/71h: --prometheus labels" \
    stdout_has ',cpu_vendor="AuthenticAMD",cpu_family="23",cpu_model="113",cpu_stepping="0",cpu_microcode="0x8701013",cpu_errata="amd-17h-70h-7fh",health_verdict="ok"\} 1$'

# From code: OSSL_PROVIDER_load succeeds with a refused value (as from
# openssl.cnf), latched; the first random byte fails naming it.
load=("OPENSSL_MODULES=$SIM_MODULES" "OPENSSL_CONF=$CONF/sim-coco-load.cnf"
    "RDRAND_TEST_ON_COCO_FAILURE=fail-closed" "RDRAND_TEST_COCO=auto"
    "RDRAND_TEST_COCO_SEED_BITS=0256" "RDRAND_SIM=")
run "${load[@]}" -- "$PROBE" -l -p $SIM status health-state
check "OSSL_PROVIDER_load, coco_seed_bits = 0256: succeeds" exited_ok
check "OSSL_PROVIDER_load: loaded with status 0" line_is 1 0
check "OSSL_PROVIDER_load: health-state names key and value" \
    stdout_has '^invalid value .*: coco_seed_bits = "0256" is not accepted'
run "${load[@]}" -- "$PROBE" -l -p $SIM -n 16
check "OSSL_PROVIDER_load: RAND_bytes then fails" exited_with 1
check "OSSL_PROVIDER_load: naming it" stderr_has 'seed request of .* refused: coco_seed_bits = "0256"'

# activate = 0: any value loads the provider before OpenSSL 3.3, none
# does from 3.3 on; either way the checker names the line.
make_variant '/^\[rdrand_sect\]/,/^\[/s/^activate = 1$/activate = 0/'
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
version=$("$OPENSSL_BIN" version | awk '{print $2}')
if [ "$(printf '%s\n3.3.0\n' "$version" | sort -V | head -1)" = 3.3.0 ]; then
    check "activate = 0 on OpenSSL $version: exit 2" exited_with 2
else
    check "activate = 0 on OpenSSL $version: loads, exit 0" exited_with 0
    check "activate = 0 on OpenSSL $version: warns" \
        stdout_has '^warning: .*activate = 0 loads the provider'
fi
check "activate = 0: names the line" names_line "$(line_of 'activate = 0')"

# random_provider (3.5+) routes RAND_bytes past the seed source.
make_variant 's/^seed = RDRAND$/&\nrandom_provider = default/'
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "random_provider: flagged on its line" \
    names_line "$(line_of 'random_provider = default')"

# A second instance of the module under another entry name, refused by
# its own bad value, listed first (/tmp/r8/two2.cnf): both register
# provider=rdrand-sim, an application's seed comes from the refused one.
# rdrand-check draws before any OSSL_PROVIDER_* call (which would change
# the instance picked) and names both sections: exit 2, never 0.
make_variant 's/^default = default_sect$/zz = zz_sect\n&/'
printf '[zz_sect]\nmodule = rdrand-sim.so\nactivate = 1\ncoco_seed_bits = 128\n' \
    >>"$VARIANT"
check "two instances: the variant lists zz first" \
    test "$(line_of 'zz = zz_sect')" -lt "$(line_of 'default = default_sect')"
sim "OPENSSL_CONF=$VARIANT" -- "$OPENSSL_BIN" rand -hex 16
check "two instances: openssl rand fails (seeded by zz)" exited_fail
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "two instances: rdrand-check exits 2" exited_with 2
check "two instances: names both sections" \
    stdout_has '^misconfigured: .*\[zz_sect\] and \[rdrand_sect\] both load rdrand-sim\.so'
check "two instances: the draw failed as the application's did" \
    stdout_has '^unhealthy: drawing random bytes failed: .*coco_seed_bits = "128"'
check "two instances: zz's bad value named on its line" \
    names_line "$(line_of 'coco_seed_bits = 128')"
check "two instances: not live" stdout_lacks '^seed source: live'

# Lines of any length, and continuations.  A comment of 1023 bytes then
# "warn = bogus" on one line (/tmp/r8/longc2.cnf): no second warn key; a
# comment ending in a backslash swallows the next line, as NCONF joins
# before cutting comments; a value continued with a backslash is one
# key, named on the line it starts on.
long=$(printf 'x%.0s' {1..1021})
make_variant "s/^coco = auto\$/# $long""warn = bogus\n&/"
check "long comment: the variant has a 1035-byte line" \
    test "$(awk 'length($0) == 1035' "$VARIANT" | wc -l)" -eq 1
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "long comment: rdrand-check exits 0" exited_with 0
check "long comment: no problem reported" \
    stdout_lacks '^(warning|unhealthy|misconfigured): '
make_variant 's/^coco = auto$/# a comment continued \\\nwarn = bogus\n&/'
check "continued comment: the variant has it" grep -qx 'warn = bogus' "$VARIANT"
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "continued comment: its second line is no key, exit 0" exited_with 0
make_variant 's/^coco_seed_bits = 256$/coco_seed_bits = 12\\\n8/'
check "continued value: the variant splits it" grep -qx '8' "$VARIANT"
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "continued value: exit 2 (128 is refused)" exited_with 2
check "continued value: named on its first line" \
    names_line "$(line_of "coco_seed_bits = 12\\")"

# A directory where the module should be is no module.
mkdir -p "$OUT/dir.so"
make_variant "s|^module = rdrand-sim.so\$|module = $OUT/dir.so|"
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "module is a directory: exit 2" exited_with 2
check "module is a directory: named on its line" \
    names_line "$(line_of "module = $OUT/dir.so")"

# No such file.
sim -- "$CHECK" --here -c "$OUT/nonexistent.cnf" --provider $SIM
check "no such file: exit 2" exited_with 2
check "no such file: says OpenSSL cannot read it" \
    stdout_has 'OpenSSL cannot read this file'

# --- the simulated CPU failing or without RDRAND: exit 1, the reason ---
for row in "fail-from=1|RDRAND reported failure \\(CF=0\\)" \
    "rdrand=absent|RDRAND is not available on this CPU"; do
    IFS='|' read -r spec reason <<<"$row"
    RDRAND_SIM_SPEC=$spec sim -- "$CHECK" --here -c "$CONF/rdrand-sim.cnf" \
        --provider $SIM
    check "RDRAND_SIM=$spec: exit 1" exited_with 1
    check "RDRAND_SIM=$spec: the reason" stdout_has "^unhealthy: .*$reason"
    check "RDRAND_SIM=$spec: verdict unhealthy" stdout_has '^verdict: 1 '
done

# No RDRAND, in a CoCo guest under on_coco_failure = fail-closed and
# outside one: requests only raise, so the provider warns once, at load,
# on the warn channel (stderr here).
coco=("RDRAND_TEST_ON_COCO_FAILURE=fail-closed" "RDRAND_TEST_COCO=auto"
    "RDRAND_TEST_COCO_SEED_BITS=256")
for row in "sim-coco.cnf|coco=tdx,rdrand=absent|confidential-computing guest without RDRAND: .*on_coco_failure = fail-closed" \
    "rdrand-sim.cnf|rdrand=absent|RDRAND is not available on this CPU .*every seed request from this provider fails"; do
    IFS='|' read -r cnf spec warning <<<"$row"
    run "OPENSSL_MODULES=$SIM_MODULES" "OPENSSL_CONF=$CONF/$cnf" "${coco[@]}" \
        "RDRAND_SIM=$spec" -- "$OPENSSL_BIN" rand -hex 16
    check "RDRAND_SIM=$spec, openssl rand: fails closed" exited_fail
    check "RDRAND_SIM=$spec, openssl rand: warned on stderr" \
        stderr_has "^rdrand-provider: $warning"
    check "RDRAND_SIM=$spec, openssl rand: warned once" \
        test "$(grep -c '^rdrand-provider: ' "$OUT/stderr")" -eq 1
done

# A CoCo guest whose check fails under on_coco_failure = refuse: OpenSSL
# skips the provider; the refusal is on the warning channel.  RDRAND is
# failing, not the file: exit 1 with the provider's reason, though
# OpenSSL applies the file and drops that reason from the error queue
# (the checker loads the provider again, after its draw, to get it).
for row in "sim-coco.cnf|coco=tdx,fail-at=9|confidential-computing guest: RDRAND failed the check at load" \
    "rdrand-sim.cnf|coco=tdx,rdrand=absent|confidential-computing guest without RDRAND"; do
    IFS='|' read -r cnf spec reason <<<"$row"
    # The values written in, not read from $ENV:: (a finding of its own).
    sed -e 's/\$ENV::RDRAND_TEST_ON_COCO_FAILURE$/refuse/' \
        -e 's/\$ENV::RDRAND_TEST_COCO_SEED_BITS$/256/' \
        -e 's/\$ENV::RDRAND_TEST_COCO$/auto/' "$CONF/$cnf" >"$OUT/$cnf"
    run "OPENSSL_MODULES=$SIM_MODULES" "OPENSSL_CONF=$OUT/$cnf" \
        "RDRAND_SIM=$spec" -- "$CHECK" --here --provider $SIM
    check "refused load, $cnf, $spec: exit 1" exited_with 1
    check "refused load, $cnf, $spec: the reason" \
        stdout_has "^unhealthy: .*$reason"
    check "refused load, $cnf, $spec: not called a misconfiguration" \
        stdout_lacks '^misconfigured: '
    check "refused load, $cnf, $spec: warned on the warn channel (stderr)" \
        stderr_has '^rdrand-provider: confidential-computing guest.*refused to load'
done

# The module loaded under another name ("rd = rdrand_sect"): found by
# what it loads, and its advice keeps the property its module registers.
make_variant 's/^rdrand-sim = rdrand_sect$/rd = rdrand_sect/'
check "renamed entry: the variant loads rdrand-sim.so as rd" grep -qx 'rd = rdrand_sect' "$VARIANT"
sim "OPENSSL_CONF=$VARIANT" -- "$PROBE" -p rd -n 16 seed-requests
check "renamed entry: OpenSSL seeds from it (the probe's draw reached it)" line_at_least 1 1
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "renamed entry, -p $SIM: exit 0, live" exited_with 0
check "  ... the draw's seeds came from it" stdout_has '^seed source: live: '
sim -- "$CHECK" --here -c "$VARIANT" --provider rd
check "renamed entry, -p rd: exit 0, live" exited_with 0
check "  ... no advice to select provider=rd (the module registers provider=$SIM)" \
    stdout_lacks 'provider=rd[^-]|provider=rd$'
make_variant 's/^rdrand-sim = rdrand_sect$/rd = rdrand_sect/;s/^seed_properties = .*/seed_properties = provider=rd/'
sim -- "$CHECK" --here -c "$VARIANT" --provider rd
check "renamed entry, seed_properties = provider=rd: exit 2" exited_with 2
check "  ... the advice names the module's property" \
    stdout_has "seed_properties = provider=rd does not select provider $SIM: .*did you mean provider=$SIM\?"
sed -i "s/^seed_properties = provider=rd\$/seed_properties = provider=$SIM/" "$VARIANT"
sim -- "$CHECK" --here -c "$VARIANT" --provider rd
check "  ... and applied, the check passes (exit 0)" exited_with 0

# --- JSON and Prometheus, parsed by real parsers ---
sim -- "$CHECK" --here -c "$CONF/rdrand-sim.cnf" --provider $SIM --json -n 3
check "--json -n 3: exit 0" exited_with 0
check "--json: python3's json.tool parses it" \
    "$PY" -m json.tool "$OUT/stdout"
has_keys() {
    "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
keys = {"exit_code", "verdict", "provider", "config", "openssl_version",
        "provider_loaded", "seed_source_live", "draw", "problems", "params"}
assert keys <= d.keys(), keys - d.keys()
assert d["exit_code"] == 0 and d["seed_source_live"] is True
assert d["draw"]["prediction_resistant_requests"] == 4, d["draw"]
assert d["draw"]["seed_requests"] >= 4 and d["draw"]["seed_failures"] == 0
assert d["params"]["health-state"] == "ok" and d["params"]["status"] == 1
' "$OUT/stdout"
}
check "--json: documented keys; -n 3 made 4 requests, each a seed" has_keys
make_variant 's/^coco_seed_bits = 256$/coco_seed_bits = 128/'
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM --json
check "--json, misconfigured: exit 2" exited_with 2
check "--json, misconfigured: parses (quotes escaped)" \
    "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit_code"] == 2 and d["problems"][0]["line"] > 0
assert "coco_seed_bits" in d["problems"][0]["message"]' "$OUT/stdout"

PROM=$OUT/rdrand.prom
for row in "|0" "fail-from=1|1"; do
    IFS='|' read -r spec want <<<"$row"
    RDRAND_SIM_SPEC=$spec sim -- "$CHECK" --here -c "$CONF/rdrand-sim.cnf" \
        --provider $SIM --prometheus -o "$PROM"
    check "--prometheus -o, RDRAND_SIM=$spec: exit $want" exited_with "$want"
    check "--prometheus -o: nothing on stdout" test ! -s "$OUT/stdout"
    check "--prometheus -o: no temporary file left" \
        test "$(find "$OUT" -name 'rdrand.prom.*' | wc -l)" -eq 0
    check "--prometheus, RDRAND_SIM=$spec: promtool check metrics accepts it" \
        promtool check metrics <"$PROM"
    check "--prometheus: gauge rdrand_seed_source_live = $((1 - want))" \
        grep -qx "rdrand_seed_source_live{provider=\"$SIM\"} $((1 - want))" \
        "$PROM"
    check "--prometheus: counter rdrand_failures_total" \
        grep -qx '# TYPE rdrand_failures_total counter' "$PROM"
    # fail-from=1: the load's self-test meets CF=0 (a trip), the checker's
    # request recovers and meets it again: permanent, two trips.
    verdict=ok trips=0
    [ "$want" = 0 ] || verdict=permanent trips=2
    check "--prometheus, RDRAND_SIM=$spec: health_verdict=\"$verdict\"" \
        grep -q "^rdrand_info{.*,health_verdict=\"$verdict\"} 1\$" "$PROM"
    check "--prometheus, RDRAND_SIM=$spec: rdrand_health_trips_total $trips" \
        grep -qx "rdrand_health_trips_total{provider=\"$SIM\"} $trips" "$PROM"
    check "--prometheus: gauge rdrand_coco_enforced 0 outside a guest" \
        grep -qx "rdrand_coco_enforced{provider=\"$SIM\"} 0" "$PROM"
done
make_variant 's/^coco_seed_bits = 256$/coco_seed_bits = 128/'
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM --prometheus
check "--prometheus, latched: promtool accepts the escaped health_state" \
    promtool check metrics <"$OUT/stdout"

# on_coco_failure = abort aborts every process loading the file, and
# would abort rdrand-check before it wrote anything: the check runs in a
# child, and the parent reports the abort (exit 1, with the provider's
# reason) into a fresh file, replacing the last good one.
aborting=("OPENSSL_MODULES=$SIM_MODULES" "OPENSSL_CONF=$CONF/sim-coco.cnf"
    "RDRAND_TEST_ON_COCO_FAILURE=abort" "RDRAND_TEST_COCO=auto"
    "RDRAND_TEST_COCO_SEED_BITS=256" "RDRAND_SIM=coco=tdx,fail-at=9")
printf 'stale\n' >"$PROM"
run "${aborting[@]}" -- "$CHECK" --here --provider $SIM --prometheus -o "$PROM"
check "abort config: exit 1" exited_with 1
check "abort config: promtool accepts the file written" \
    promtool check metrics <"$PROM"
check "abort config: rdrand_check_exit_code 1" \
    grep -qx "rdrand_check_exit_code{provider=\"$SIM\"} 1" "$PROM"
check "abort config: the provider's reason still on stderr" \
    stderr_has '^rdrand-provider: .*aborting$'
run "${aborting[@]}" -- "$CHECK" --here --provider $SIM
check "abort config, text: names the signal and the reason" \
    stdout_has '^unhealthy: the check process was killed by signal 6 .*last words on stderr: rdrand-provider: .*aborting'
check "abort config, text: verdict unhealthy" stdout_has '^verdict: 1 '

# A refused value with a byte that is not UTF-8, a quote and a backslash
# (/tmp/r8/j.cnf): both outputs stay valid for their parsers.
make_variant 's/^warn = stderr$/warn = lo\xffud"x\\y/'
check "non-UTF-8 value: the variant holds the byte" grep -q $'\xff' "$VARIANT"
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM --json
check "non-UTF-8 value, --json: exit 2" exited_with 2
check "non-UTF-8 value, --json: python3 parses it as UTF-8 JSON" \
    "$PY" -c 'import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
assert any("lo\ufffdud" in p["message"] for p in d["problems"])' \
    "$OUT/stdout"
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM --prometheus
check "non-UTF-8 value, --prometheus: promtool accepts it" \
    promtool check metrics <"$OUT/stdout"
check "non-UTF-8 value, --prometheus: valid UTF-8" \
    "$PY" -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' \
    "$OUT/stdout"

# --- the systemd example: valid units, and its command line works ---
UNITS=$OUT/units
TEXTFILE=$OUT/textfile
mkdir -p "$UNITS" "$TEXTFILE"
sed "s|/usr/local/bin/rdrand-check|$CHECK|" "$CONF/rdrand-check.service" \
    >"$UNITS/rdrand-check.service"
cp "$CONF/rdrand-check.timer" "$UNITS/"
run -- systemd-analyze verify "$UNITS/rdrand-check.service" \
    "$UNITS/rdrand-check.timer"
check "systemd-analyze verify: the service and timer are valid" exited_ok
check "systemd-analyze verify: not a single complaint" \
    test ! -s "$OUT/stderr"
check "the service runs as the textfile directory's owner, not a DynamicUser" \
    test "$(grep -cx -e 'User=prometheus' -e 'DynamicUser=yes' "$UNITS/rdrand-check.service")" -eq 1 -a \
    "$(grep -cx 'User=prometheus' "$UNITS/rdrand-check.service")" -eq 1
exec_start=$(sed -n 's/^ExecStart=//p' "$UNITS/rdrand-check.service" |
    sed "s|/var/lib/prometheus/node-exporter|$TEXTFILE|")
# shellcheck disable=SC2086 # the unit's command line, split as systemd does
sim "OPENSSL_CONF=$CONF/rdrand-sim.cnf" -- $exec_start --here --provider $SIM
check "the unit's ExecStart: exit 0" exited_with 0
check "the unit's ExecStart: promtool accepts its rdrand.prom" \
    promtool check metrics <"$TEXTFILE/rdrand.prom"
check "the unit's ExecStart: exactly one file in the directory" \
    test "$(find "$TEXTFILE" -type f | wc -l)" -eq 1

# --- the report reads as one story (issue 20) ---
# A duplicated key: the draw reached the provider and the file is wrong
# all the same; the verdict names the finding that made it 2, on its
# line, instead of saying the seeds do not come from the provider.
make_variant 's/^conditioning = none$/conditioning = reduce512\nconditioning = none/'
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
n=$(line_of 'conditioning = reduce512')
check "duplicated key: exit 2" exited_with 2
check "duplicated key: the draw reached the provider" \
    stdout_has "^live draw: RAND_bytes: 1 seed request reached provider $SIM, 0 failed$"
check "duplicated key: the verdict names the duplicate on its line" \
    stdout_has "^verdict: 2 misconfigured, because $VARIANT:$n: \[rdrand_sect\] conditioning: given twice"
check "duplicated key: no claim that seeds come from elsewhere" \
    stdout_lacks 'seeds do not come from this provider'

# Counts in the singular and the plural: -n 0 makes 1 prediction-
# resistant request, -n 1 two; a seed source that served 0 is plural.
sim -- "$CHECK" --here -c "$CONF/rdrand-sim.cnf" --provider $SIM -n 0
check "-n 0: 1 request, 1 seed, in the singular" \
    stdout_has "^live draw: 1 prediction-resistant request on libcrypto's public DRBG: 1 seed request reached provider $SIM, 0 failed$"
sim -- "$CHECK" --here -c "$CONF/rdrand-sim.cnf" --provider $SIM -n 1
check "-n 1: 2 requests, 2 seeds, in the plural" \
    stdout_has "^live draw: 2 prediction-resistant requests on libcrypto's public DRBG: 2 seed requests reached provider $SIM, 0 failed$"
if ! openssl_at_least 4 0; then
    make_variant 's/^seed_properties = .*/&,fips=yes/'
    sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
    check "0 seed requests: in the plural" \
        stdout_has "1 prediction-resistant request succeeded but provider $SIM served 0 seed requests:"
fi
check "no '1 ... requests' anywhere" stdout_lacks '(^|[^0-9])1 [a-z-]+ requests'

# The file the operator edits: a link is named once, with its target;
# the findings name the target's lines.
make_variant 's/^coco_seed_bits = 256$/coco_seed_bits = 128/'
ln -s "$VARIANT" "$OUT/link.cnf"
sim -- "$CHECK" --here -c "$OUT/link.cnf" --provider $SIM
check "through a symlink: exit 2" exited_with 2
check "through a symlink: the header names the link and the file" \
    stdout_has "^rdrand-check: provider $SIM, configuration $OUT/link\.cnf -> $VARIANT, "
check "through a symlink: the finding names the real file's line" \
    names_line "$(line_of 'coco_seed_bits = 128')"
check "through a symlink: never the link's lines" \
    stdout_lacks "$OUT/link\.cnf:[0-9]"
rm "$OUT/link.cnf"

# --- .include, followed as NCONF follows it ---
# Each case through openssl itself first (config_diagnostics = 1 in the
# file), then the checker: the same outcome, the line named.
inc_case() { # inc_case NAME: openssl rand and rdrand-check on $VARIANT
    sim "OPENSSL_CONF=$VARIANT" -- "$OPENSSL_BIN" rand -hex 16
    rand_status=$status
    sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
}
provider_runs() { # provider_runs VALUE: conditioning as the provider got it
    sim "OPENSSL_CONF=$VARIANT" -- "$PROBE" -p "$SIM" conditioning
    [ "$(cat "$OUT/stdout")" = "$1" ]
}

# (a) A duplicate across files: the included file's value wins.
printf 'conditioning = none\n' >"$OUT/inc_a.cnf"
make_variant "s|^conditioning = none\$|conditioning = reduce512\n.include $OUT/inc_a.cnf|"
check "include (a): OpenSSL runs the included value" provider_runs none
inc_case
n=$(line_of 'conditioning = reduce512')
check "include (a): openssl rand exits 0 (OpenSSL hides it)" test "$rand_status" -eq 0
check "include (a): rdrand-check exits 2" exited_with 2
check "include (a): names both files' lines" \
    stdout_has "^misconfigured: $VARIANT:$n: \[rdrand_sect\] conditioning: given twice \(line $n and $OUT/inc_a\.cnf:1\): OpenSSL uses only $OUT/inc_a\.cnf:1"
# The same through .pragma includedir and a relative name: no warning
# about the working directory, the same finding.
make_variant "s|^conditioning = none\$|conditioning = reduce512\n.pragma includedir:$OUT\n.include inc_a.cnf|"
inc_case
check "include (a), includedir: exit 2" exited_with 2
check "include (a), includedir: the file found there" \
    stdout_has "given twice \(line $n and $OUT/inc_a\.cnf:1\)"
check "include (a), includedir: no working-directory warning" \
    stdout_lacks 'relative to the working directory'
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM --json
check "include (a), --json: the verdict's finding names the file checked" \
    "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
p = d["problems"][d["because"]]
assert d["exit_code"] == 2 and p["file"] == sys.argv[2], p
assert "inc_a.cnf:1" in p["message"], p' "$OUT/stdout" "$VARIANT"

# (b) A key after an .include whose file ends in another section: NCONF
# files it there, the provider never sees it.
printf '[req]\ndistinguished_name = dn\n' >"$OUT/inc_b.cnf"
make_variant "s|^conditioning = none\$|.include $OUT/inc_b.cnf\nconditioning = reduce512|"
check "include (b): the provider runs its default, not reduce512" \
    provider_runs none
inc_case
n=$(line_of 'conditioning = reduce512')
check "include (b): openssl rand exits 0" test "$rand_status" -eq 0
check "include (b): rdrand-check exits 2" exited_with 2
check "include (b): the key's line, the section it lands in, and why" \
    stdout_has "^misconfigured: $VARIANT:$n: \[req\] conditioning: key 'conditioning' lands in section \[req\] \(the included $OUT/inc_b\.cnf ends in \[req\], opened at $OUT/inc_b\.cnf:1\), not in \[rdrand_sect\]"
# Between two sections the check does not read: a warning only.
make_variant "\$a[other_sect]\n.include $OUT/inc_b.cnf\nfoo = bar"
inc_case
check "include (b), other sections: exit 0" exited_with 0
check "include (b), other sections: a warning on the line" \
    stdout_has "^warning: $VARIANT:$(line_of 'foo = bar'): \[req\] foo: key 'foo' lands in section \[req\]"

# (c) A file including itself: OpenSSL nests it until the descriptors
# run out, filing its first keys in [rdrand_sect]; with
# config_diagnostics = 1 every program fails.  The checker ends, exit 2.
make_variant "s|^conditioning = none\$|&\n.include $OUT/variant.cnf|"
inc_case
check "include (c) self: openssl rand fails" test "$rand_status" -ne 0
check "include (c) self: rdrand-check exits 2" exited_with 2
check "include (c) self: named on the .include line" \
    stdout_has "^misconfigured: $VARIANT:$(line_of ".include $OUT/variant.cnf"): \.include: .* includes a file being read"
check "include (c) self: the keys it moves, named" \
    stdout_has "^misconfigured: $VARIANT:$(line_of "openssl_conf = openssl_init"): \[rdrand_sect\] openssl_conf: unknown key"
# A relative include: another working directory, or an environment
# without this OPENSSL_CONF_INCLUDE, reads another file: exit 2.
make_variant "s|^conditioning = none\$|&\n.include inc_a.cnf|"
(cd "$OUT" && sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM && echo "$status" >"$OUT/status")
status=$(cat "$OUT/status")
check "relative .include, from its directory: exit 2" exited_with 2
check "  ... names the line and the working directory" \
    stdout_has "^misconfigured: $VARIANT:$(line_of ".include inc_a.cnf"): \.include: inc_a\.cnf is relative to the working directory \(here $OUT\)"
sim "OPENSSL_CONF_INCLUDE=$OUT" -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "relative .include resolved by OPENSSL_CONF_INCLUDE: exit 2" exited_with 2
check "  ... says which file this environment reads, and a service's" \
    stdout_has "inc_a\.cnf is read as $OUT/inc_a\.cnf because OPENSSL_CONF_INCLUDE=$OUT in this environment: a process without it \(a service\) reads inc_a\.cnf from its working directory"
make_variant "s|^conditioning = none\$|&\n.pragma includedir:/nonexistent\n.include inc_a.cnf|"
sim "OPENSSL_CONF_INCLUDE=$OUT" -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "relative .include under includedir, OPENSSL_CONF_INCLUDE set: exit 2, the pragma's file named" \
    stdout_has "a process without it \(a service\) reads /nonexistent/inc_a\.cnf;"

# The same through "section::.include = FILE": NCONF's include too (the
# prefix only picks the $-section of the path).
make_variant "s|^conditioning = none\$|&\nx::.include = $OUT/variant.cnf|"
inc_case
check "include (c) self via x::.include: openssl rand fails" test "$rand_status" -ne 0
check "include (c) self via x::.include: rdrand-check exits 2" exited_with 2
check "include (c) self via x::.include: named on that line" \
    stdout_has "^misconfigured: $VARIANT:$(line_of "x::.include = $OUT/variant.cnf"): \.include: .* includes a file being read"
make_variant "s|^conditioning = none\$|conditioning = reduce512\nrdrand_sect::.include = $OUT/inc_a.cnf|"
n=$(line_of 'conditioning = reduce512')
check "include (a) via rdrand_sect::.include: OpenSSL runs the included value" provider_runs none
inc_case
check "include (a) via rdrand_sect::.include: rdrand-check exits 2" exited_with 2
check "include (a) via rdrand_sect::.include: names both files' lines" \
    stdout_has "given twice \(line $n and $OUT/inc_a\.cnf:1\)"
# A symlink loop, a missing file, a directory from a directory: OpenSSL
# skips each without a word and loads the rest (exit 0); the checker
# warns on the line, exit 0.
ln -s "$OUT/loop2" "$OUT/loop1"
ln -s "$OUT/loop1" "$OUT/loop2"
mkdir -p "$OUT/d1" "$OUT/d2"
printf '.include %s\n' "$OUT/d2" >"$OUT/d1/a.cnf"
for row in "$OUT/loop1|is a symlink loop" "$OUT/missing.cnf|No such file or directory: OpenSSL skips it" \
    "$OUT/d1|is a directory included while directory $OUT/d1 is read"; do
    IFS='|' read -r target why <<<"$row"
    make_variant "s|^conditioning = none\$|&\n.include $target|"
    inc_case
    check "include (c) $target: openssl rand exits 0" test "$rand_status" -eq 0
    check "include (c) $target: rdrand-check exits 0" exited_with 0
    check "include (c) $target: a warning, why" stdout_has "^warning: .*: \.include: .*$why"
done
# Unreadable: as an unprivileged user when run as root.
printf 'conditioning = reduce512\n' >"$OUT/unread.cnf"
chmod 000 "$OUT/unread.cnf"
make_variant "s|^conditioning = none\$|&\n.include $OUT/unread.cnf|"
as=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    chmod 0755 "$OUT"
    chmod 0644 "$VARIANT"
    as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
sim "OPENSSL_CONF=$VARIANT" -- "${as[@]}" "$OPENSSL_BIN" rand -hex 16
check "include (c) unreadable: openssl rand exits 0" exited_ok
sim -- "${as[@]}" "$CHECK" --here -c "$VARIANT" --provider $SIM
check "include (c) unreadable: rdrand-check exits 0" exited_with 0
check "include (c) unreadable: a warning, why" \
    stdout_has "^warning: $VARIANT:$(line_of ".include $OUT/unread.cnf"): \.include: .*cannot be opened: Permission denied"

# ---- a verdict true for every user and every environment ----
# Root can read what a service's user cannot: the same file, checked by
# root, is a finding (a service skips the include, or runs without the
# whole file), never "live".
if [ "$(id -u)" = 0 ]; then
    sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
    check "include closed to others, checked by root: exit 2" exited_with 2
    check "  ... names the include's line, its mode, and the fix" \
        stdout_has "^misconfigured: $VARIANT:$(line_of ".include $OUT/unread.cnf"): \.include: $OUT/unread\.cnf is not readable by every user \(file mode 0000, .*OpenSSL skips it there.*chmod o\+r\)"
fi
make_variant ''
chmod 0600 "$VARIANT"
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "file mode 0600: exit 2" exited_with 2
check "  ... says a service runs without it" \
    stdout_has "^misconfigured: $VARIANT is not readable by every user \(file mode 0600, .*runs with no configuration, seeded from the OS"
chmod 0644 "$VARIANT"
mkdir -p "$OUT/closed"
make_variant ''
cp "$VARIANT" "$OUT/closed/c.cnf"
chmod 0700 "$OUT/closed"
sim -- "$CHECK" --here -c "$OUT/closed/c.cnf" --provider $SIM
check "file in a 0700 directory: a warning (exit 0)" exited_with 0
check "  ... names the directory" \
    stdout_has "^warning: $OUT/closed/c\.cnf: its directory $OUT/closed is not readable by every user \(directory mode 0700, .*chmod o\+rx\)"
chmod 0755 "$OUT/closed"
sim -- "$CHECK" --here -c "$OUT/closed/c.cnf" --provider $SIM
check "the same directory opened (0755): no such warning" \
    stdout_lacks "is not readable by every user"

# A symlink in a closed directory is as closed (the path as written),
# and an included directory must be listable (r and x) by every user.
mkdir -p "$OUT/closed2" "$OUT/open" "$OUT/d711"
printf 'conditioning = reduce512\n' >"$OUT/open/part.cnf"
ln -sf "$OUT/open/part.cnf" "$OUT/closed2/link.cnf"
chmod 0700 "$OUT/closed2"
make_variant "s|^conditioning = none\$|&\n.include $OUT/closed2/link.cnf|"
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "include through a symlink in a 0700 directory: exit 2" exited_with 2
check "  ... names that directory" \
    stdout_has "^misconfigured: $VARIANT:$(line_of ".include $OUT/closed2/link.cnf"): \.include: $OUT/closed2/link\.cnf: its directory $OUT/closed2 is not readable by every user"
cp "$OUT/open/part.cnf" "$OUT/d711/part.cnf"
chmod 0711 "$OUT/d711"
make_variant "s|^conditioning = none\$|&\n.include $OUT/d711|"
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "included directory of mode 0711 (others cannot list it): exit 2" exited_with 2
check "  ... says so" \
    stdout_has "$OUT/d711 is not readable by every user \(included directory mode 0711"
chmod 0755 "$OUT/closed2" "$OUT/d711"
# As a user who cannot list an included directory, or read a file in
# it: OpenSSL skips them; the checker warns on the .include line.
if [ ${#as[@]} -gt 0 ]; then
    chmod 0711 "$OUT/d711"
    make_variant "s|^conditioning = none\$|&\n.include $OUT/d711|"
    sim -- "${as[@]}" "$CHECK" --here -c "$VARIANT" --provider $SIM
    check "included directory 0711, checked by nobody: a warning, why" \
        stdout_has "^warning: $VARIANT:$(line_of ".include $OUT/d711"): \.include: directory $OUT/d711 cannot be read: Permission denied: OpenSSL skips it"
    chmod 0755 "$OUT/d711"
    chmod 0000 "$OUT/d711/part.cnf"
    sim -- "${as[@]}" "$CHECK" --here -c "$VARIANT" --provider $SIM
    check "unreadable file in an included directory, checked by nobody: a warning, why" \
        stdout_has "^warning: $VARIANT:$(line_of ".include $OUT/d711"): \.include: $OUT/d711/part\.cnf cannot be opened: Permission denied"
    chmod 0644 "$OUT/d711/part.cnf"
fi

# Files OpenSSL cannot load: the checker reports that, and reads the
# lines as written (no variable expanded) without following them.
# .pragma abspath:true and a relative .include: the load fails there.
make_variant "s|^conditioning = none\$|&\n.pragma abspath:true\n.include inc_a.cnf|"
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "abspath, relative .include: OpenSSL's failure reported, on its line" \
    names_line "$(line_of ".include inc_a.cnf")"
check "  ... the walk stops at that .include (no working-directory finding)" \
    stdout_lacks "is relative to the working directory"
# A variable without a value: the path is read as written.
make_variant "s|^conditioning = none\$|&\n.include \$nosuch/x.cnf|"
sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "include of an undefined variable: the path as written" \
    stdout_has "\\\$nosuch/x\.cnf is relative to the working directory"
# .include without a path, .pragma without a colon, [ without ], a key
# ending in an escaped blank and no "=", one colon after a key: not
# followed, not filed.
for bad in '.include' '.pragma abspath' '[rdrand_sect' 'k\ ' 'k:x = v'; do
    make_variant "s|^conditioning = none\$|&\n${bad//\\/\\\\}|"
    sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM
    check "'$bad': OpenSSL's failure reported, on its line" \
        stdout_has "^misconfigured: $VARIANT:$(line_of "$bad"): OpenSSL cannot parse this file"
done

# A relative .include checked from a working directory since removed.
make_variant "s|^conditioning = none\$|&\n.include inc_a.cnf|"
mkdir "$OUT/gone"
(cd "$OUT/gone" && rmdir "$OUT/gone" && sim -- "$CHECK" --here -c "$VARIANT" --provider $SIM)
check "relative .include, working directory removed: named unknown" \
    stdout_has "inc_a\.cnf is relative to the working directory \(here unknown\)"

# A value from each process's environment: a service without HOME fails
# to load the whole file (NCONF: "variable has no value").
make_variant 's|^openssl_conf = openssl_init$|&\nrandfile = $ENV::HOME/.rnd|'
sim "HOME=/root" -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "\$ENV::HOME in a value: exit 2 (with HOME set here)" exited_with 2
check "  ... names the line and the variable" \
    stdout_has "^misconfigured: $VARIANT:$(line_of 'randfile = $ENV::HOME/.rnd'): \[default\] randfile: the value reads \\\$ENV::HOME, .*fails to load the whole file"
# ... and so OpenSSL does: the provider is loaded with HOME, not without.
sim "HOME=/root" "OPENSSL_CONF=$VARIANT" -- "$PROBE" -p $SIM seed-requests
check "  ... OpenSSL with HOME: the provider answers" exited_ok
sim "OPENSSL_CONF=$VARIANT" -- env -u HOME "$PROBE" -p $SIM seed-requests
check "  ... OpenSSL without HOME: no provider (the whole file not loaded)" exited_fail
for quoted in "'\$ENV::HOME'" '"\$ENV::HOME"' '\\$ENV::HOME' '`\$ENV::HOME`'; do
    make_variant "s|^openssl_conf = openssl_init\$|&\nrandfile = $quoted|"
    sim "HOME=/root" -- "$CHECK" --here -c "$VARIANT" --provider $SIM
    check "$quoted (no expansion): exit 0" exited_with 0
done
make_variant 's|^openssl_conf = openssl_init$|&\nrandfile = ${ENV::HOME}|;$a[ENV]\nHOME = /nowhere'
sim "HOME=/root" -- "$CHECK" --here -c "$VARIANT" --provider $SIM
check "\${ENV::HOME} with an [ENV] HOME below it (NCONF reads the environment there): exit 2" exited_with 2

# An include directory: its *.cnf and *.conf files, nothing else.
mkdir -p "$OUT/incdir"
printf 'conditioning = reduce512x\n' >"$OUT/incdir/b.conf"
printf 'conditioning = bogus\n' >"$OUT/incdir/notes.txt"
make_variant "s|^conditioning = none\$|.include $OUT/incdir|"
inc_case
check "include directory: openssl rand fails on b.conf's value" \
    test "$rand_status" -ne 0
check "include directory: rdrand-check exits 2" exited_with 2
check "include directory: names b.conf's line" \
    stdout_has "^misconfigured: $OUT/incdir/b\.conf:1: \[rdrand_sect\] conditioning: .*reduce512x"
check "include directory: not the .txt file" stdout_lacks 'bogus'

# --- --help, --version ---
for args in -h --help; do
    sim -- "$CHECK" --here $args
    check "rdrand-check $args: exit 0" exited_with 0
    check "rdrand-check $args: usage on stdout" stdout_has '^usage: .*rdrand-check '
done
sim "OPENSSL_CONF=/dev/null" -- "$PROBE" -l -p $SIM version
version=$(cat "$OUT/stdout")
sim -- "$CHECK" --here --version
check "--version: exit 0" exited_with 0
check "--version: the release (the module's version, $version)" \
    stdout_has "^rdrand-check $version "
check "--version: the OpenSSL it runs with" \
    stdout_has "^OpenSSL: OpenSSL $("$OPENSSL_BIN" version | awk '{print $2}') "

# --- usage ---
for args in "--bogus" "-n -1" "-n x" "-n +5" "--json --prometheus" "extra"; do
    # shellcheck disable=SC2086 # the arguments are a list
    sim -- "$CHECK" --here $args
    check "usage error ($args): exit 3" exited_with 3
done
sim -- "$CHECK" --here -n " 5"
check "usage error (-n ' 5'): exit 3" exited_with 3

# --- rdrand-stat, removed: its name is no longer rdrand-check's ---
ln -s "$CHECK" "$OUT/rdrand-stat"
sim -- "$OUT/rdrand-stat" -l -n 32 -r seed-requests
check "rdrand-check named rdrand-stat: the old command line is a usage error (exit 3)" \
    exited_with 3

finish
