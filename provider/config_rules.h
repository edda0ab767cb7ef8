/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The keys of the provider's config section and the values each accepts:
 * pure functions, shared by the provider (config.c) and the operator's
 * checker (tools/rdrand-check), so the two can never disagree.
 */
#ifndef RDRAND_CONFIG_RULES_H
#define RDRAND_CONFIG_RULES_H

#include <stddef.h>

#define RDRAND_COCO_SEED_BITS_MIN 256
#define RDRAND_COCO_SEED_BITS_MAX 4096

enum rdrand_config_key {
    RDRAND_KEY_WARN,
    RDRAND_KEY_COCO,
    RDRAND_KEY_COCO_SEED_BITS,
    RDRAND_KEY_ON_COCO_FAILURE,
    RDRAND_KEY_CONDITIONING,
    RDRAND_KEY_MIX,
    RDRAND_KEY_COUNT
};

/*
 * "warn", "coco", "coco_seed_bits", "on_coco_failure", "conditioning",
 * "mix".
 */
extern const char *const rdrand_config_key_names[RDRAND_KEY_COUNT];

/*
 * Parse value (not NULL) of key: 1 with *out set (an enum value of
 * prov.h, or the number of bits), or 0 with why set to
 * `KEY = "VALUE" is not accepted[ (what is wrong)]; use ACCEPTED`.
 */
int rdrand_config_parse(enum rdrand_config_key key, const char *value,
                        unsigned int *out, char *why, size_t why_len);

/*
 * The spelling of value (an enum value of prov.h) of a key that takes
 * words, as the parameters and rdrand-check say it; "refused" for the
 * marker a refused value leaves (RDRAND_CONDITIONING_REFUSED,
 * RDRAND_MIX_REFUSED) and for anything else not accepted.
 */
const char *rdrand_config_value_name(enum rdrand_config_key key,
                                     unsigned int value);

#endif
