/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Provider entry: OSSL_provider_init, the algorithm table and the
 * provider parameters (counters and state for OSSL_PROVIDER_get_params).
 */
#include <string.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>
#include <openssl/params.h>

#include "rdrand_provider.h"

#include "coco.h"
#include "conditioning.h"
#include "config_rules.h"
#include "counters.h"
#include "cpu_errata.h"
#include "errors.h"
#include "fault.h"
#include "hw.h"
#include "load.h"
#include "params.h"
#include "prov.h"
#include "rand.h"
#include "seen.h"
#include "source.h"
#include "status.h"

#ifndef RDRAND_PROVIDER_VERSION
#define RDRAND_PROVIDER_VERSION "0.0.0"
#endif

static OSSL_FUNC_provider_teardown_fn rdrand_teardown;
static OSSL_FUNC_provider_gettable_params_fn rdrand_gettable_params;
static OSSL_FUNC_provider_get_params_fn rdrand_get_params;
static OSSL_FUNC_provider_query_operation_fn rdrand_query_operation;
static OSSL_FUNC_provider_get_reason_strings_fn rdrand_get_reason_strings;

static void rdrand_teardown(void *provctx)
{
    struct rdrand_prov *prov = provctx;

    rdrand_status_unloaded(prov);
    rdrand_aes_forget(&prov->cond_key); /* the expanded key, explicitly */
    OPENSSL_clear_free(prov, sizeof(*prov));
}

static const OSSL_PARAM *rdrand_gettable_params(void *provctx)
{
    static const OSSL_PARAM known[] = {
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, NULL, 0),
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, NULL, 0),
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, NULL, 0),
        OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, NULL),
        OSSL_PARAM_uint64(RDRAND_PARAM_RDRAND_WORDS, NULL),
        OSSL_PARAM_uint64(RDRAND_PARAM_RDRAND_FAILURES, NULL),
        OSSL_PARAM_uint64(RDRAND_PARAM_SEED_REQUESTS, NULL),
        OSSL_PARAM_uint64(RDRAND_PARAM_SEED_FAILURES, NULL),
        OSSL_PARAM_uint64(RDRAND_PARAM_SEED_BYTES, NULL),
        OSSL_PARAM_uint64(RDRAND_PARAM_GENERATE_REQUESTS, NULL),
        OSSL_PARAM_uint64(RDRAND_PARAM_GENERATE_FAILURES, NULL),
        OSSL_PARAM_uint64(RDRAND_PARAM_CONDITIONED_BLOCKS, NULL),
        OSSL_PARAM_utf8_ptr(RDRAND_PARAM_CONDITIONING, NULL, 0),
        OSSL_PARAM_utf8_ptr(RDRAND_PARAM_MIX, NULL, 0),
        OSSL_PARAM_uint64(RDRAND_PARAM_OS_BYTES, NULL),
        OSSL_PARAM_uint64(RDRAND_PARAM_OS_FAILURES, NULL),
        OSSL_PARAM_uint64(RDRAND_PARAM_DEFAULT_SEED_REQUESTS, NULL),
        OSSL_PARAM_utf8_ptr(RDRAND_PARAM_CPU_VENDOR, NULL, 0),
        OSSL_PARAM_uint(RDRAND_PARAM_CPU_FAMILY, NULL),
        OSSL_PARAM_uint(RDRAND_PARAM_CPU_MODEL, NULL),
        OSSL_PARAM_uint(RDRAND_PARAM_CPU_STEPPING, NULL),
        OSSL_PARAM_utf8_ptr(RDRAND_PARAM_CPU_MICROCODE, NULL, 0),
        OSSL_PARAM_utf8_ptr(RDRAND_PARAM_CPU_ERRATA, NULL, 0),
        OSSL_PARAM_int(RDRAND_PARAM_RDRAND_AVAILABLE, NULL),
        OSSL_PARAM_utf8_ptr(RDRAND_PARAM_COCO_PLATFORM, NULL, 0),
        OSSL_PARAM_utf8_ptr(RDRAND_PARAM_COCO_SIGNAL, NULL, 0),
        OSSL_PARAM_uint64(RDRAND_PARAM_COCO_SEED_BITS, NULL),
        OSSL_PARAM_uint64(RDRAND_PARAM_HEALTH_FAILURES, NULL),
        OSSL_PARAM_utf8_ptr(RDRAND_PARAM_HEALTH_STATE, NULL, 0),
        OSSL_PARAM_utf8_ptr(RDRAND_PARAM_HEALTH_VERDICT, NULL, 0),
        OSSL_PARAM_uint64(RDRAND_PARAM_HEALTH_TRIPS, NULL),
        OSSL_PARAM_int(RDRAND_PARAM_COCO_ENFORCED, NULL),
        OSSL_PARAM_END};

    (void)provctx;
    return known;
}

static const struct {
    const char *name;
    enum rdrand_counter counter;
} rdrand_counter_params[] = {
    {RDRAND_PARAM_RDRAND_WORDS, RDRAND_CTR_RDRAND_WORDS},
    {RDRAND_PARAM_RDRAND_FAILURES, RDRAND_CTR_RDRAND_FAILURES},
    {RDRAND_PARAM_SEED_REQUESTS, RDRAND_CTR_SEED_REQUESTS},
    {RDRAND_PARAM_SEED_FAILURES, RDRAND_CTR_SEED_FAILURES},
    {RDRAND_PARAM_SEED_BYTES, RDRAND_CTR_SEED_BYTES},
    {RDRAND_PARAM_HEALTH_FAILURES, RDRAND_CTR_HEALTH_FAILURES},
    {RDRAND_PARAM_GENERATE_REQUESTS, RDRAND_CTR_GENERATE_REQUESTS},
    {RDRAND_PARAM_GENERATE_FAILURES, RDRAND_CTR_GENERATE_FAILURES},
    {RDRAND_PARAM_CONDITIONED_BLOCKS, RDRAND_CTR_CONDITIONED_BLOCKS},
    {RDRAND_PARAM_OS_BYTES, RDRAND_CTR_OS_BYTES},
    {RDRAND_PARAM_OS_FAILURES, RDRAND_CTR_OS_FAILURES},
    {RDRAND_PARAM_DEFAULT_SEED_REQUESTS, RDRAND_CTR_DEFAULT_SEED_REQUESTS},
};

/*
 * CPUID leaf 0's vendor string, so an operator can see whose reseed
 * claim conditioning rests on (docs/conditioning.md); "" without CPUID.
 */
static void rdrand_read_cpu_vendor(struct rdrand_prov *prov)
{
    struct rdrand_cpuid leaf0;

    if (!rdrand_hw_cpuid(0, 0, &leaf0))
        return;
    memcpy(prov->cpu_vendor, &leaf0.ebx, 4);
    memcpy(prov->cpu_vendor + 4, &leaf0.edx, 4);
    memcpy(prov->cpu_vendor + 8, &leaf0.ecx, 4);
    prov->cpu_vendor[12] = '\0';
}

static int rdrand_get_params(void *provctx, OSSL_PARAM params[])
{
    struct rdrand_prov *prov = provctx;
    uint64_t verdict = rdrand_fault_verdict();
    /* The text parameters whose values cost nothing to name up front. */
    const char *const texts[][2] = {
        {OSSL_PROV_PARAM_NAME,
         "rdrand-provider: " RDRAND_ALGORITHM_NAME " seed source"},
        {OSSL_PROV_PARAM_VERSION, RDRAND_PROVIDER_VERSION},
        {OSSL_PROV_PARAM_BUILDINFO, rdrand_module_description},
        {RDRAND_PARAM_CONDITIONING,
         rdrand_config_value_name(RDRAND_KEY_CONDITIONING,
                                  prov->config.conditioning)},
        {RDRAND_PARAM_MIX,
         rdrand_config_value_name(RDRAND_KEY_MIX, prov->config.mix)},
        {RDRAND_PARAM_CPU_VENDOR, prov->cpu_vendor},
        {RDRAND_PARAM_CPU_MICROCODE, prov->cpu.microcode_text},
        {RDRAND_PARAM_CPU_ERRATA, prov->cpu_errata},
        {RDRAND_PARAM_COCO_PLATFORM,
         rdrand_coco_platform_name(prov->coco.platform)},
        {RDRAND_PARAM_COCO_SIGNAL, prov->coco.signal},
        {RDRAND_PARAM_HEALTH_VERDICT, rdrand_status_verdict_text(verdict)},
    };
    const char *const cpu_names[] = {RDRAND_PARAM_CPU_FAMILY,
                                     RDRAND_PARAM_CPU_MODEL,
                                     RDRAND_PARAM_CPU_STEPPING};
    const unsigned int cpu_values[] = {prov->cpu.family, prov->cpu.model,
                                       prov->cpu.stepping};
    OSSL_PARAM *p;
    size_t i;

    for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        if ((p = OSSL_PARAM_locate(params, texts[i][0])) != NULL
            && !OSSL_PARAM_set_utf8_ptr(p, texts[i][1]))
            goto bad;
    if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != NULL
        && !OSSL_PARAM_set_int(p, rdrand_fault_usable(prov)))
        goto bad;
    for (i = 0;
         i < sizeof(rdrand_counter_params) / sizeof(rdrand_counter_params[0]);
         i++)
        if ((p = OSSL_PARAM_locate(params, rdrand_counter_params[i].name))
                != NULL
            && !rdrand_param_set_uint64(
                p, rdrand_counter_get(rdrand_counter_params[i].counter)))
            goto bad;
    if ((p = OSSL_PARAM_locate(params, RDRAND_PARAM_RDRAND_AVAILABLE)) != NULL
        && !OSSL_PARAM_set_int(p, prov->rdrand_available))
        goto bad;
    for (i = 0; i < sizeof(cpu_names) / sizeof(cpu_names[0]); i++)
        if ((p = OSSL_PARAM_locate(params, cpu_names[i])) != NULL
            && !rdrand_param_set_uint64(p, cpu_values[i]))
            goto bad;
    if ((p = OSSL_PARAM_locate(params, RDRAND_PARAM_COCO_SEED_BITS)) != NULL
        && !rdrand_param_set_uint64(p, prov->coco_seed_bits))
        goto bad;
    if ((p = OSSL_PARAM_locate(params, RDRAND_PARAM_HEALTH_TRIPS)) != NULL
        && !rdrand_param_set_uint64(p, RDRAND_VERDICT_TRIPS(verdict)))
        goto bad;
    if ((p = OSSL_PARAM_locate(params, RDRAND_PARAM_COCO_ENFORCED)) != NULL
        && !OSSL_PARAM_set_int(p, rdrand_fault_coco_enforced(prov)))
        goto bad;
    if ((p = OSSL_PARAM_locate(params, RDRAND_PARAM_HEALTH_STATE)) != NULL
        && !OSSL_PARAM_set_utf8_ptr(p, rdrand_fault_state_text(prov)))
        goto bad;
    return 1;
bad:
    rdrand_bad_param(prov, "provider parameter",
                     "OSSL_PROVIDER_gettable_params",
                     rdrand_gettable_params(NULL), p);
    return 0;
}

static const OSSL_ALGORITHM *
rdrand_query_operation(void *provctx, int operation_id, int *no_cache)
{
    static const OSSL_ALGORITHM rands[] = {
        {RDRAND_ALGORITHM_NAME, rdrand_module_property, rdrand_rand_functions,
         rdrand_module_description},
        {NULL, NULL, NULL, NULL}};

    (void)provctx;
    *no_cache = 0;
    return operation_id == OSSL_OP_RAND ? rands : NULL;
}

static const OSSL_ITEM *rdrand_get_reason_strings(void *provctx)
{
    (void)provctx;
    return rdrand_reason_strings();
}

static const OSSL_DISPATCH rdrand_provider_functions[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))rdrand_teardown},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS,
     (void (*)(void))rdrand_gettable_params},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))rdrand_get_params},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION,
     (void (*)(void))rdrand_query_operation},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS,
     (void (*)(void))rdrand_get_reason_strings},
    {0, NULL}};

/*
 * Is the library context loading this instance the process's default?
 * The core hands out the pointer it was given (core_get_libctx): NULL
 * for OSSL_PROVIDER_load(NULL, ...), the concrete default when loaded
 * from openssl.cnf.  libcrypto's global default is
 * OSSL_LIB_CTX_get0_global_default from 3.2; before it, the current
 * thread's default (OSSL_LIB_CTX_set0_default with NULL changes nothing
 * and returns it), the global one unless the thread set another.
 */
static int rdrand_in_default_ctx(const OSSL_CORE_HANDLE *handle,
                                 OSSL_FUNC_core_get_libctx_fn *get_libctx)
{
#if OPENSSL_VERSION_NUMBER >= 0x30200000L
    OSSL_LIB_CTX *global = OSSL_LIB_CTX_get0_global_default();
#else
    OSSL_LIB_CTX *global = OSSL_LIB_CTX_set0_default(NULL);
#endif
    void *mine;

    if (get_libctx == NULL)
        return 0;
    /*
     * OSSL_PROVIDER_load(NULL, ...): the core keeps the NULL it was given.
     * A global NULL (libcrypto's default context failed to initialise)
     * matches no libctx but that NULL, which the first test answers.
     */
    mine = (void *)get_libctx(handle);
    return mine == NULL || mine == (void *)global;
}

static void rdrand_take_core_functions(struct rdrand_prov *prov,
                                       const OSSL_DISPATCH *in)
{
    OSSL_FUNC_core_get_libctx_fn *get_libctx = NULL;

    for (; in->function_id != 0; in++) {
        switch (in->function_id) {
        case OSSL_FUNC_CORE_GET_LIBCTX:
            get_libctx = OSSL_FUNC_core_get_libctx(in);
            break;
        case OSSL_FUNC_CORE_GET_PARAMS:
            prov->core_get_params = OSSL_FUNC_core_get_params(in);
            break;
        case OSSL_FUNC_CORE_NEW_ERROR:
            prov->core_new_error = OSSL_FUNC_core_new_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            prov->core_set_error_debug = OSSL_FUNC_core_set_error_debug(in);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            prov->core_vset_error = OSSL_FUNC_core_vset_error(in);
            break;
        }
    }
    if (prov->core_new_error == NULL || prov->core_set_error_debug == NULL
        || prov->core_vset_error == NULL)
        prov->core_new_error = NULL; /* cannot report; rdrand_raise no-ops */
    prov->default_ctx = rdrand_in_default_ctx(prov->handle, get_libctx);
}

/*
 * The module's one exported symbol (hidden is the default here).
 *
 * It refuses to load (returns 0) only when it cannot allocate, or when a
 * confidential guest's check fails under on_coco_failure = refuse; every
 * refusal also goes out on the warning channel, because OpenSSL skips a
 * provider that refuses while loading openssl.cnf without a word.  A
 * config section it cannot accept is not a refusal: it loads latched
 * (status 0) and every request fails, naming what to fix (config.c
 * reports it, fault.c refuses).
 *
 * One straight load sequence: the process's verdict (another copy of
 * the module may hold it), configuration, the CPU (RDRAND, vendor,
 * errata), the self-test, the CoCo check, the conditioning key, then the
 * warnings for what the load met; each step reports faults to fault.c.
 */
__attribute__((visibility("default"))) int
OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
                   const OSSL_DISPATCH **out, void **provctx)
{
    struct rdrand_prov *prov;
    int reason, own;
    enum rdrand_seen_unshared unshared;

    rdrand_fault_join_copies();
    if ((prov = OPENSSL_zalloc(sizeof(*prov))) == NULL) {
        struct rdrand_prov boot = {.handle = handle}; /* warn = syslog */

        rdrand_take_core_functions(&boot, in);
        RDRAND_RAISE(&boot, RDRAND_R_OUT_OF_MEMORY, "provider context");
        rdrand_warn(&boot, "%s: provider context; refused to load",
                    rdrand_reason_text(RDRAND_R_OUT_OF_MEMORY));
        return 0;
    }
    prov->handle = handle;
    rdrand_take_core_functions(prov, in);
    if (!rdrand_config_load(prov))
        rdrand_warn(prov, "%s%s", rdrand_fault_state_text(prov),
                    prov->config.warn_invalid
                        ? "; this warning went to syslog, the default, "
                          "because the warn setting itself was refused"
                        : "");

    prov->coco.signal = "none";
    prov->rdrand_available = rdrand_hw_leaf1_ecx(30);
    rdrand_read_cpu_vendor(prov);
    rdrand_errata_check(prov);
    /* After a permanent verdict nothing is drawn again, not even here. */
    if (prov->rdrand_available && rdrand_fault_permanent() == RDRAND_R_OK
        && (reason = rdrand_source_selftest()) != RDRAND_R_OK)
        rdrand_fault_record(prov, reason, NULL);
    if (!rdrand_coco_init_check(prov)) {
        rdrand_status_coco_refused(prov);
        OPENSSL_clear_free(prov, sizeof(*prov));
        return 0;
    }
    rdrand_cond_init(prov);
    /*
     * One line for what the load met, unless a line above (the CoCo
     * check's, reduce512's) already said it and took the warning.
     */
    if ((reason = rdrand_fault_latched(prov)) != RDRAND_R_OK)
        rdrand_fault_warn(prov, reason);
    /*
     * Tables the process's own: a degraded test, said at every load (a
     * seccomp filter refusing a shared mapping, say).
     */
    if (prov->rdrand_available
        && (unshared = rdrand_seen_share(&own, &reason)) != RDRAND_SEEN_SHARED)
        rdrand_warn(
            prov,
            "the health tests' tables of words seen could not be shared "
            "with fork()ed processes (%s): %s; %s, or set mix = os",
            unshared == RDRAND_SEEN_NO_AESNI
                ? "the CPU reports no AES-NI, and without it the "
                  "tables would give each process of the tree its "
                  "siblings' words"
                : strerror(reason),
            own ? "each process compares RDRAND's words with its own "
                  "only, so a CPU that repeats across children "
                  "forked per request is not caught"
                : "nor could tables of the process's own be made, so "
                  "each word is compared with the one before only",
            unshared == RDRAND_SEEN_NO_AESNI
                ? "enable AES-NI (the BIOS, or the VM's CPU model)"
                : "allow mmap(MAP_SHARED | MAP_ANONYMOUS) of 1,152 "
                  "KiB in the process's seccomp filter and memory "
                  "limit");
    /* Requests only raise no_rdrand: warn once, here (a CoCo guest did). */
    if (!prov->rdrand_available && !prov->fault.coco_enforced)
        rdrand_warn(prov,
                    "%s: every seed request from this provider fails; run on "
                    "a CPU with RDRAND or remove the provider from "
                    "openssl.cnf",
                    rdrand_reason_text(RDRAND_R_NO_RDRAND));

    rdrand_status_loaded(prov);
    *out = rdrand_provider_functions;
    *provctx = prov;
    return 1;
}
