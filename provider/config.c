/* SPDX-License-Identifier: Apache-2.0 */
#include "load.h"

#include <stdio.h>

#include <openssl/params.h>

#include "errors.h"
#include "fault.h"

/*
 * What the core cannot show us directly.  It answers only the exact keys
 * asked for, so a key in another case ("WARN") is not seen, and a value
 * that names a section ("on_coco_failure = default_sect") reaches us as
 * that section's keys under dotted names ("on_coco_failure.activate"),
 * never as a value.  Ask for the usual spellings and the keys of the
 * sections an openssl.cnf for this provider has; tools/rdrand-check reads
 * the whole file and catches the rest (and duplicated keys, of which the
 * core passes only the last).
 */
#define RDRAND_PROBES(upper, capital, key)                                     \
    upper, capital, key ".activate", key ".module", key ".seed",               \
        key ".providers", key ".random", key ".default"
static const char *const rdrand_probes[] = {
    RDRAND_PROBES("WARN", "Warn", "warn"),
    RDRAND_PROBES("COCO", "Coco", "coco"),
    RDRAND_PROBES("COCO_SEED_BITS", "Coco_seed_bits", "coco_seed_bits"),
    RDRAND_PROBES("ON_COCO_FAILURE", "On_coco_failure", "on_coco_failure"),
    RDRAND_PROBES("CONDITIONING", "Conditioning", "conditioning"),
    RDRAND_PROBES("MIX", "Mix", "mix"),
};
#define RDRAND_NPROBES (sizeof(rdrand_probes) / sizeof(rdrand_probes[0]))
#define RDRAND_PROBES_PER_KEY (RDRAND_NPROBES / RDRAND_KEY_COUNT)

/*
 * A refused section latches the instance (fault.c keeps the first
 * refusal: the one the operator fixes first).
 */
static void rdrand_config_refuse(struct rdrand_prov *prov, int reason, int key,
                                 const char *why)
{
    if (rdrand_fault_refused(prov) != 0)
        return;
    prov->config.warn_invalid = key == RDRAND_KEY_WARN;
    rdrand_fault_refuse(prov, reason, why);
}

static void rdrand_config_probe(struct rdrand_prov *prov, size_t i,
                                const char *found)
{
    const char *key = rdrand_config_key_names[i / RDRAND_PROBES_PER_KEY];
    char why[sizeof(prov->fault.why)];

    if (i % RDRAND_PROBES_PER_KEY < 2)
        snprintf(why, sizeof(why),
                 "%s = \"%.64s\" is not accepted (keys are case-sensitive); "
                 "write %s",
                 rdrand_probes[i], found, key);
    else
        snprintf(why, sizeof(why),
                 "%s is a section name, not a value (OpenSSL passes that "
                 "section's keys, e.g. %s, instead); write the value itself",
                 key, rdrand_probes[i]);
    rdrand_config_refuse(prov, RDRAND_R_BAD_CONFIG,
                         (int)(i / RDRAND_PROBES_PER_KEY), why);
}

int rdrand_config_load(struct rdrand_prov *prov)
{
    char *values[RDRAND_KEY_COUNT] = {NULL}, *probed[RDRAND_NPROBES] = {NULL};
    OSSL_PARAM keys[RDRAND_KEY_COUNT + RDRAND_NPROBES + 1];
    unsigned int parsed[RDRAND_KEY_COUNT] = {
        RDRAND_WARN_SYSLOG,        RDRAND_COCO_AUTO,
        RDRAND_COCO_SEED_BITS_MIN, RDRAND_ON_COCO_FAILURE_REFUSE,
        RDRAND_CONDITIONING_NONE,  RDRAND_MIX_NONE};
    struct rdrand_config *cfg = &prov->config;
    char why[sizeof(prov->fault.why)];
    /* The keys whose parameter reports "refused" (the others: defaults). */
    int refused[RDRAND_KEY_COUNT] = {0};
    size_t n = 0;

    for (size_t k = 0; k < RDRAND_KEY_COUNT; k++)
        keys[n++] = OSSL_PARAM_construct_utf8_ptr(rdrand_config_key_names[k],
                                                  &values[k], 0);
    for (size_t i = 0; i < RDRAND_NPROBES; i++)
        keys[n++] = OSSL_PARAM_construct_utf8_ptr((char *)rdrand_probes[i],
                                                  &probed[i], 0);
    keys[n] = OSSL_PARAM_construct_end();

    if (prov->core_get_params == NULL
        || !prov->core_get_params(prov->handle, keys))
        rdrand_config_refuse(prov, RDRAND_R_CONFIG_UNREADABLE, -1,
                             "the core did not answer get_params for this "
                             "provider's section");
    /*
     * Every key is parsed even after a refusal (only the first is kept as
     * the reason), so that a parameter such as conditioning still reports
     * what the operator wrote when that value itself was valid.
     */
    for (size_t k = 0; k < RDRAND_KEY_COUNT; k++)
        if (values[k] != NULL
            && !rdrand_config_parse((enum rdrand_config_key)k, values[k],
                                    &parsed[k], why, sizeof(why))) {
            rdrand_config_refuse(prov, RDRAND_R_BAD_CONFIG, (int)k, why);
            refused[k] = 1;
        }
    for (size_t i = 0; i < RDRAND_NPROBES; i++)
        if (probed[i] != NULL) {
            rdrand_config_probe(prov, i, probed[i]);
            refused[i / RDRAND_PROBES_PER_KEY] = 1;
        }

    cfg->warn = (enum rdrand_warn_mode)parsed[RDRAND_KEY_WARN];
    cfg->coco = (enum rdrand_coco_mode)parsed[RDRAND_KEY_COCO];
    cfg->coco_seed_bits = parsed[RDRAND_KEY_COCO_SEED_BITS];
    cfg->on_coco_failure =
        (enum rdrand_coco_failure)parsed[RDRAND_KEY_ON_COCO_FAILURE];
    cfg->conditioning =
        refused[RDRAND_KEY_CONDITIONING]
            ? RDRAND_CONDITIONING_REFUSED
            : (enum rdrand_conditioning)parsed[RDRAND_KEY_CONDITIONING];
    cfg->mix = refused[RDRAND_KEY_MIX]
                   ? RDRAND_MIX_REFUSED
                   : (enum rdrand_mix)parsed[RDRAND_KEY_MIX];
    if (rdrand_fault_refused(prov) == 0)
        return 1;
    /* A refused section never refuses to load: OpenSSL would skip it. */
    if (cfg->warn_invalid)
        cfg->warn = RDRAND_WARN_SYSLOG;
    cfg->on_coco_failure = RDRAND_ON_COCO_FAILURE_FAIL_CLOSED;
    return 0;
}
