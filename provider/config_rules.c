/* SPDX-License-Identifier: Apache-2.0 */
#include "config_rules.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "prov.h"

const char *const rdrand_config_key_names[RDRAND_KEY_COUNT] = {
    "warn", "coco", "coco_seed_bits", "on_coco_failure", "conditioning", "mix"};

struct rdrand_choice {
    const char *name;
    unsigned int value;
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

static const struct rdrand_choice rdrand_conditioning_choices[] = {
    {"none", RDRAND_CONDITIONING_NONE},
    {"reduce512", RDRAND_CONDITIONING_REDUCE512},
    {NULL, 0}};

/* os only adds an input: no value mixes RDRAND out (docs/mix.md). */
static const struct rdrand_choice rdrand_mix_choices[] = {
    {"none", RDRAND_MIX_NONE}, {"os", RDRAND_MIX_OS}, {NULL, 0}};

static int rdrand_refuse(enum rdrand_config_key key, const char *value,
                         const char *wrong, const char *accepted, char *why,
                         size_t why_len)
{
    snprintf(why, why_len, "%s = \"%.64s\"%s is not accepted%s%s%s; use %s",
             rdrand_config_key_names[key], value,
             strlen(value) > 64 ? "..." : "", wrong[0] ? " (" : "", wrong,
             wrong[0] ? ")" : "", accepted);
    return 0;
}

static int rdrand_parse_choice(enum rdrand_config_key key, const char *value,
                               const struct rdrand_choice *choices,
                               unsigned int *out, char *why, size_t why_len)
{
    char accepted[64] = "";
    const char *wrong = "";

    for (const struct rdrand_choice *c = choices; c->name != NULL; c++) {
        if (strcmp(value, c->name) == 0) {
            *out = c->value;
            return 1;
        }
        if (strcasecmp(value, c->name) == 0)
            wrong = "values are case-sensitive";
        snprintf(accepted + strlen(accepted),
                 sizeof(accepted) - strlen(accepted), "%s%s",
                 accepted[0] ? " | " : "", c->name);
    }
    return rdrand_refuse(key, value, wrong, accepted, why, why_len);
}

/*
 * One spelling per number: decimal digits, no sign, spaces, hex or
 * leading zeros, so "0256" and "00000256" are refused alike.
 */
static int rdrand_parse_seed_bits(const char *value, unsigned int *out,
                                  char *why, size_t why_len)
{
    static const char accepted[] =
        "a multiple of 64 from 256 (the default) to 4096";
    size_t len = strlen(value);
    unsigned int bits = 0;
    const char *wrong = NULL;

    if (len == 0)
        wrong = "empty";
    else if (strspn(value, "0123456789") != len)
        wrong = "decimal digits only: no sign, spaces or hex";
    else if (value[0] == '0')
        wrong = "leading zero";
    else if (len > 4)
        wrong = "above 4096";
    else {
        for (const char *c = value; *c != '\0'; c++)
            bits = bits * 10 + (unsigned int)(*c - '0');
        if (bits < RDRAND_COCO_SEED_BITS_MIN)
            wrong = "below 256";
        else if (bits > RDRAND_COCO_SEED_BITS_MAX)
            wrong = "above 4096";
        else if (bits % 64 != 0)
            wrong = "not a multiple of 64";
    }
    if (wrong != NULL)
        return rdrand_refuse(RDRAND_KEY_COCO_SEED_BITS, value, wrong, accepted,
                             why, why_len);
    *out = bits;
    return 1;
}

static const struct rdrand_choice *rdrand_choices_of(enum rdrand_config_key key)
{
    switch (key) {
    case RDRAND_KEY_WARN:
        return rdrand_warn_choices;
    case RDRAND_KEY_COCO:
        return rdrand_coco_choices;
    case RDRAND_KEY_ON_COCO_FAILURE:
        return rdrand_on_coco_failure_choices;
    case RDRAND_KEY_CONDITIONING:
        return rdrand_conditioning_choices;
    case RDRAND_KEY_MIX:
        return rdrand_mix_choices;
    case RDRAND_KEY_COCO_SEED_BITS: /* a number */
    case RDRAND_KEY_COUNT:
        break;
    }
    return NULL;
}

const char *rdrand_config_value_name(enum rdrand_config_key key,
                                     unsigned int value)
{
    const struct rdrand_choice *c = rdrand_choices_of(key);

    for (; c != NULL && c->name != NULL; c++)
        if (c->value == value)
            return c->name;
    return "refused";
}

int rdrand_config_parse(enum rdrand_config_key key, const char *value,
                        unsigned int *out, char *why, size_t why_len)
{
    const struct rdrand_choice *choices = rdrand_choices_of(key);

    if (key == RDRAND_KEY_COCO_SEED_BITS)
        return rdrand_parse_seed_bits(value, out, why, why_len);
    if (choices != NULL)
        return rdrand_parse_choice(key, value, choices, out, why, why_len);
    snprintf(why, why_len, "internal error: config key %d", (int)key);
    return 0;
}
