/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rdrand-provider: the names applications use.
 *
 * Load the provider and make it the seed source of a library context:
 *
 *     OSSL_PROVIDER_load(libctx, RDRAND_PROVIDER_NAME);
 *     RAND_set_seed_source_type(libctx, RDRAND_ALGORITHM_NAME,
 *                               RDRAND_PROPERTY_QUERY);
 *
 * then read its state with OSSL_PROVIDER_get_params() and the parameter
 * names below.  Every counter is a process-wide uint64_t that only grows.
 */
#ifndef RDRAND_PROVIDER_H
#define RDRAND_PROVIDER_H

/* Module file rdrand.so; provider name in openssl.cnf and OSSL_PROVIDER_load */
#define RDRAND_PROVIDER_NAME "rdrand"
/* The one RAND algorithm: a seed source fed by the RDRAND instruction. */
#define RDRAND_ALGORITHM_NAME "RDRAND"
/* Property query that selects this provider's implementation. */
#define RDRAND_PROPERTY_QUERY "provider=rdrand"
/*
 * The same for a library context whose default properties are "fips=yes"
 * (EVP_default_properties_enable_fips, or default_properties = fips=yes):
 * "-fips" lifts that default for this fetch.  RDRAND is not a FIPS
 * algorithm, and with RDRAND_PROPERTY_QUERY there the fetch fails:
 * OpenSSL 3.0-3.6 then silently seed from the OS; on 4.0
 * RAND_get0_primary fails, but RAND_bytes and FIPS key generation (the
 * FIPS provider's own DRBGs) are still seeded silently from the OS
 * (docs/compatibility.md).
 */
#define RDRAND_PROPERTY_QUERY_FIPS "provider=rdrand,-fips"

/*
 * Provider parameters (OSSL_PROVIDER_get_params).  Text ones are served
 * as UTF8 pointers (OSSL_PARAM_UTF8_PTR): ask with
 * OSSL_PARAM_construct_utf8_ptr(); a utf8_string request fails.
 */
/* uint64: RDRAND instructions executed. */
#define RDRAND_PARAM_RDRAND_WORDS "rdrand-words"
/* uint64: executions that returned CF=0 (the hardware said "failed"). */
#define RDRAND_PARAM_RDRAND_FAILURES "rdrand-failures"
/* uint64: get_seed calls. */
#define RDRAND_PARAM_SEED_REQUESTS "seed-requests"
/* uint64: get_seed calls that delivered nothing. */
#define RDRAND_PARAM_SEED_FAILURES "seed-failures"
/* uint64: seed bytes delivered. */
#define RDRAND_PARAM_SEED_BYTES "seed-bytes"
/* uint64: generate calls (raw RDRAND output for EVP_RAND_generate users). */
#define RDRAND_PARAM_GENERATE_REQUESTS "generate-requests"
/* uint64: generate calls that delivered nothing. */
#define RDRAND_PARAM_GENERATE_FAILURES "generate-failures"
/* int: 1 if CPUID reports RDRAND, else 0. */
#define RDRAND_PARAM_RDRAND_AVAILABLE "rdrand-available"

/* Confidential computing (docs/coco.md). */
/*
 * UTF8 pointer: none, sev, sev-es, sev-snp, tdx, hyperv-snp, hyperv-tdx,
 * hyperv-vbs, unknown-cvm
 */
#define RDRAND_PARAM_COCO_PLATFORM "coco-platform"
/* UTF8 pointer: the input that decided coco-platform ("cpuinfo:tdx_guest"). */
#define RDRAND_PARAM_COCO_SIGNAL "coco-signal"
/* uint64: bits drawn and checked at load; 0 when no check ran or it failed. */
#define RDRAND_PARAM_COCO_SEED_BITS "coco-seed-bits"

/* Conditioning (docs/conditioning.md). */
/*
 * UTF8 pointer: the conditioning config value, none or reduce512, or
 * "refused" when that value itself was refused (the provider is then
 * latched and every request fails).  A section refused for another key
 * still reports the conditioning value written, if that value is valid.
 */
#define RDRAND_PARAM_CONDITIONING "conditioning"
/*
 * UTF8 pointer: the CPU vendor (CPUID leaf 0), e.g. "GenuineIntel" or
 * "AuthenticAMD"; "" without CPUID.  Whether reduce512's derivation
 * applies depends on it (docs/conditioning.md).
 */
#define RDRAND_PARAM_CPU_VENDOR "cpu-vendor"
/*
 * uint64: 16-byte conditioned blocks (each the CBC-MAC of 1024 RDRAND
 * words) delivered by successful requests in reduce512 mode; a truncated
 * last block counts as one.
 */
#define RDRAND_PARAM_CONDITIONED_BLOCKS "conditioned-blocks"

/* The OS's entropy in every seed (docs/mix.md). */
/*
 * UTF8 pointer: the mix config value, none or os, or "refused" when that
 * value itself was refused (the provider is then latched and every
 * request fails), as for conditioning.
 */
#define RDRAND_PARAM_MIX "mix"
/*
 * uint64: bytes read from the OS's getrandom by reads that returned all
 * they were asked for (mix = os), including those of requests that then
 * failed on RDRAND.
 */
#define RDRAND_PARAM_OS_BYTES "os-bytes"
/*
 * uint64: getrandom reads that failed or came back short (mix = os):
 * each failed its request closed, and the first in a process warned.
 */
#define RDRAND_PARAM_OS_FAILURES "os-failures"

/*
 * uint64: the seed requests of seed-requests that instances loaded into
 * the process's default library context served (RAND_bytes, TLS, every
 * NULL libctx); the rest went to library contexts an application made
 * itself (OSSL_LIB_CTX_new).  0 with seed-requests above 0: the module
 * seeds only private contexts, and the default one is seeded elsewhere.
 */
#define RDRAND_PARAM_DEFAULT_SEED_REQUESTS "default-context-seed-requests"

/* The CPU and its known RDRAND errata (docs/health-tests.md). */
/*
 * uint (unsigned int): family, model and stepping from CPUID leaf 1 EAX,
 * extended family and model applied by the vendor's rules (AMD family
 * 17h model 71h reads 23 and 113); 0 without CPUID leaf 1.
 */
#define RDRAND_PARAM_CPU_FAMILY "cpu-family"
#define RDRAND_PARAM_CPU_MODEL "cpu-model"
#define RDRAND_PARAM_CPU_STEPPING "cpu-stepping"
/*
 * UTF8 pointer: CPU 0's microcode revision as the kernel shows it in
 * /sys/devices/system/cpu/cpu0/microcode/version ("0xa201016"); "" where
 * that file is missing or not in the kernel's format, as in most virtual
 * machines.  Read at load.
 */
#define RDRAND_PARAM_CPU_MICROCODE "cpu-microcode"
/*
 * UTF8 pointer: the ids of the provider's errata table entries this CPU
 * is in, comma-separated (e.g. "amd-17h-70h-7fh"), or "none".  A listed
 * CPU gets one warning per process at load and nothing else: RDRAND is
 * still used while the health tests pass.
 */
#define RDRAND_PARAM_CPU_ERRATA "cpu-errata"

/* Health tests (docs/health-tests.md). */
/* uint64: words or self-tests that failed a health test. */
#define RDRAND_PARAM_HEALTH_FAILURES "health-failures"
/*
 * UTF8 pointer: "ok", or the reason string of the failure that holds the
 * source in error (or of the missing RDRAND): what the next request would
 * meet.
 */
#define RDRAND_PARAM_HEALTH_STATE "health-state"
/*
 * UTF8 pointer: the process's verdict, the same in every instance:
 * "ok" (no trip), "intermittent" (trips, each answered by a recovery
 * that passed) or "permanent" (a trip again within 2^20 words of the
 * last, a failed recovery, or any trip under CoCo rules: no request is
 * served again in this process).
 */
#define RDRAND_PARAM_HEALTH_VERDICT "health-verdict"
/* uint64: faults the process has met (CF=0 and health-test trips). */
#define RDRAND_PARAM_HEALTH_TRIPS "health-trips"
/*
 * int: 1 when CoCo rules bind the process (a confidential guest was
 * detected, or an instance set coco = require), in every instance,
 * whatever this one's section says.
 */
#define RDRAND_PARAM_COCO_ENFORCED "coco-enforced"

#endif
