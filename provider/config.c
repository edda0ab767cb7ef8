/* SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/params.h>

#include "errors.h"

struct rdrand_choice {
    const char *name;
    int value;
};

static const struct rdrand_choice rdrand_warn_choices[] = {
    {"syslog", RDRAND_WARN_SYSLOG},
    {"stderr", RDRAND_WARN_STDERR},
    {"none", RDRAND_WARN_NONE},
    {NULL, 0}};

/* No value turns the CoCo check off: configuration only tightens it. */
static const struct rdrand_choice rdrand_coco_choices[] = {
    {"auto", RDRAND_COCO_AUTO}, {"require", RDRAND_COCO_REQUIRE}, {NULL, 0}};

static const struct rdrand_choice rdrand_on_coco_failure_choices[] = {
    {"refuse", RDRAND_ON_COCO_FAILURE_REFUSE},
    {"fail-closed", RDRAND_ON_COCO_FAILURE_FAIL_CLOSED},
    {"abort", RDRAND_ON_COCO_FAILURE_ABORT},
    {NULL, 0}};

static int rdrand_bad_value(const struct rdrand_prov *prov, const char *key,
                            const char *value, const char *accepted)
{
    RDRAND_RAISE(prov, RDRAND_R_BAD_CONFIG,
                 "rdrand provider config: %s = \"%s\" is not accepted; use "
                 "%s",
                 key, value, accepted);
    return 0;
}

static int rdrand_parse_choice(const struct rdrand_prov *prov, const char *key,
                               const char *value,
                               const struct rdrand_choice *choices, int *out)
{
    char accepted[128] = "";

    if (value == NULL)
        return 1;
    for (const struct rdrand_choice *c = choices; c->name != NULL; c++) {
        if (strcmp(value, c->name) == 0) {
            *out = c->value;
            return 1;
        }
        size_t used = strlen(accepted);

        snprintf(accepted + used, sizeof(accepted) - used, "%s%s",
                 used != 0 ? " | " : "", c->name);
    }
    return rdrand_bad_value(prov, key, value, accepted);
}

/* Decimal digits only: no sign, no spaces, no hex, no trailing text. */
static int rdrand_parse_seed_bits(const struct rdrand_prov *prov,
                                  const char *value, unsigned int *out)
{
    static const char accepted[] =
        "a multiple of 64 from 256 (the default) to 4096";
    unsigned long bits = 0;

    if (value == NULL)
        return 1;
    if (value[0] == '\0' || strspn(value, "0123456789") != strlen(value)
        || strlen(value) > 5)
        return rdrand_bad_value(prov, "coco_seed_bits", value, accepted);
    bits = strtoul(value, NULL, 10);
    if (bits < RDRAND_COCO_SEED_BITS_MIN || bits > RDRAND_COCO_SEED_BITS_MAX
        || bits % 64 != 0)
        return rdrand_bad_value(prov, "coco_seed_bits", value, accepted);
    *out = (unsigned int)bits;
    return 1;
}

int rdrand_config_load(struct rdrand_prov *prov)
{
    char *warn = NULL, *coco = NULL, *seed_bits = NULL, *on_failure = NULL;
    OSSL_PARAM keys[] = {OSSL_PARAM_utf8_ptr("warn", &warn, 0),
                         OSSL_PARAM_utf8_ptr("coco", &coco, 0),
                         OSSL_PARAM_utf8_ptr("coco_seed_bits", &seed_bits, 0),
                         OSSL_PARAM_utf8_ptr("on_coco_failure", &on_failure, 0),
                         OSSL_PARAM_END};
    struct rdrand_config *cfg = &prov->config;
    int warn_mode = RDRAND_WARN_SYSLOG, coco_mode = RDRAND_COCO_AUTO;
    int on_coco_failure = RDRAND_ON_COCO_FAILURE_REFUSE;

    cfg->coco_seed_bits = RDRAND_COCO_SEED_BITS_MIN;
    if (!prov->core_get_params(prov->handle, keys)) {
        RDRAND_RAISE(prov, RDRAND_R_CONFIG_UNREADABLE,
                     "core_get_params failed: check this provider's "
                     "section in openssl.cnf");
        return 0;
    }
    if (!rdrand_parse_choice(prov, "warn", warn, rdrand_warn_choices,
                             &warn_mode)
        || !rdrand_parse_choice(prov, "coco", coco, rdrand_coco_choices,
                                &coco_mode)
        || !rdrand_parse_seed_bits(prov, seed_bits, &cfg->coco_seed_bits)
        || !rdrand_parse_choice(prov, "on_coco_failure", on_failure,
                                rdrand_on_coco_failure_choices,
                                &on_coco_failure))
        return 0;
    cfg->warn = warn_mode;
    cfg->coco = coco_mode;
    cfg->on_coco_failure = on_coco_failure;
    return 1;
}
