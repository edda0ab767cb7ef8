/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer: the provider's config section.  The input is a set of
 * "key=value" lines handed to OSSL_provider_init (and so to
 * rdrand_config_load) through the fake core, keys drawn mostly from the
 * real ones.  Checked on every input: init loads (a refused value latches,
 * never refuses to load), a latch carries a config reason and raises
 * nothing at load, and every setting stays in its range.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_dispatch.h>

#include "errors.h"
#include "fake_core.h"
#include "load.h"
#include "prov.h"
#include "sim.h"

#define MAX_PAIRS 8

static const char *const keys[] = {
    "warn", "coco", "coco_seed_bits", "on_coco_failure", "conditioning", "mix"};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * One healthy simulated CPU for the whole run: configuring it again
 * would replay its stream, which the health tests rightly refuse.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char err[128];

    (void)argc, (void)argv;
    if (!rdrand_sim_configure("", err, sizeof(err)))
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *kv[2 * MAX_PAIRS + 1] = {0};
    char *text, *line, *next;
    size_t n = 0;
    void *provctx;
    const OSSL_DISPATCH *prov;
    int ok, fails;

    if (size < 1)
        return 0;
    fails = data[0] & 1;
    if ((text = malloc(size)) == NULL)
        abort();
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    for (next = text; (line = strsep(&next, "\n")) != NULL && n < MAX_PAIRS;) {
        char *eq = strchr(line, '=');

        if (eq == NULL)
            continue;
        *eq = '\0';
        /* "#k" names real key k ('0' + k, mod NKEYS); else as is. */
        kv[2 * n] = line[0] == '#' && line[1] != '\0'
                        ? keys[(unsigned char)(line[1] - '0') % NKEYS]
                        : line;
        kv[2 * n + 1] = eq + 1;
        n++;
    }
    fake_core_reset(kv);
    fake_core_get_params_fails = fails;
    ok = OSSL_provider_init((const OSSL_CORE_HANDLE *)&n, fake_core_dispatch(),
                            &prov, &provctx);
    if (!ok)
        abort(); /* a config never refuses to load: it latches (fault.c) */
    {
        const struct rdrand_prov *p = provctx;
        const struct rdrand_config *c = &p->config;
        int refused = rdrand_fault_refused(p);

        if (fails && refused != RDRAND_R_CONFIG_UNREADABLE)
            abort(); /* an unreadable section must latch as such */
        if (refused != 0 && !rdrand_reason_has(refused, RDRAND_REASON_CONFIG))
            abort(); /* latched without saying why */
        if (refused != 0 && fake_error_count != 0)
            abort(); /* nothing is raised at load: each request raises it */
        if (c->warn > RDRAND_WARN_NONE || c->coco > RDRAND_COCO_REQUIRE
            || c->on_coco_failure > RDRAND_ON_COCO_FAILURE_ABORT
            || c->coco_seed_bits < RDRAND_COCO_SEED_BITS_MIN
            || c->coco_seed_bits > RDRAND_COCO_SEED_BITS_MAX
            || c->coco_seed_bits % 64 != 0
            || c->conditioning > RDRAND_CONDITIONING_REFUSED
            || (c->conditioning == RDRAND_CONDITIONING_REFUSED && refused == 0)
            || c->mix > RDRAND_MIX_REFUSED
            || (c->mix == RDRAND_MIX_REFUSED && refused == 0))
            abort(); /* took something out of range */
        /* The core answers with the last; a value refused shows so. */
        for (size_t i = n; !fails && i-- > 0;)
            if (strcmp(kv[2 * i], "conditioning") == 0) {
                unsigned int v;
                char why[224];

                if (!rdrand_config_parse(RDRAND_KEY_CONDITIONING, kv[2 * i + 1],
                                         &v, why, sizeof(why))
                    && c->conditioning != RDRAND_CONDITIONING_REFUSED)
                    abort(); /* a refused value reported as a mode */
                break;
            }
        for (size_t i = n; !fails && i-- > 0;)
            if (strcmp(kv[2 * i], "mix") == 0) {
                unsigned int v;
                char why[224];
                int parsed = rdrand_config_parse(RDRAND_KEY_MIX, kv[2 * i + 1],
                                                 &v, why, sizeof(why));

                /* A probe (MIX, mix.KEY) may refuse a valid value too. */
                if (c->mix != RDRAND_MIX_REFUSED
                    && (!parsed || c->mix != (enum rdrand_mix)v))
                    abort(); /* the mode is not the one written */
                break;
            }
        ((OSSL_FUNC_provider_teardown_fn *)fake_dispatch_fn(
            prov, OSSL_FUNC_PROVIDER_TEARDOWN))(provctx);
    }
    free(text);
    return 0;
}
