/* SPDX-License-Identifier: Apache-2.0 */
#include "coco_policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include <openssl/crypto.h>

#include "coco.h"
#include "config.h"
#include "draw.h"
#include "errors.h"
#include "source.h"

/*
 * In a confidential-computing guest the host is outside the trust
 * boundary: it can observe or steer every entropy source the guest sees
 * (interrupt timing, virtual devices, the RNG it offers) except the CPU's
 * own RDRAND.  So there, RDRAND must work before anything is seeded.
 * Like Linux's cc_random_init(), draw 256 bits (or more, if configured)
 * at load, one attempt per word, each word health-checked, after the
 * startup self-test has passed; if any of it fails, the provider does not
 * come up as a working seed source.  Detection errs towards "CoCo": a
 * false positive costs one check, a false negative skips it.
 */
static int rdrand_coco_draw(struct rdrand_prov *prov)
{
    unsigned char seed[RDRAND_COCO_SEED_BITS_MAX / 8];
    size_t len = prov->config.coco_seed_bits / 8;
    struct rdrand_health health;
    int reason;

    if (!prov->rdrand_available)
        return RDRAND_R_NO_RDRAND;
    if ((reason = atomic_load(&prov->fault)) != RDRAND_R_OK)
        return reason; /* the startup self-test already failed */
    rdrand_health_init(&health);
    reason = rdrand_draw(&health, seed, len);
    OPENSSL_cleanse(seed, sizeof(seed));
    OPENSSL_cleanse(&health, sizeof(health));
    if (reason == RDRAND_R_OK)
        prov->coco_seed_bits = prov->config.coco_seed_bits;
    return reason;
}

int rdrand_coco_init_check(struct rdrand_prov *prov)
{
    struct rdrand_coco_inputs inputs;
    const char *platform;
    int reason, coco_reason;

    rdrand_coco_gather(&inputs);
    rdrand_coco_detect(&inputs, &prov->coco);
    if (prov->coco.platform == RDRAND_COCO_NONE
        && prov->config.coco != RDRAND_COCO_REQUIRE)
        return 1;

    prov->coco_enforced = 1;
    if ((reason = rdrand_coco_draw(prov)) == RDRAND_R_OK)
        return 1;

    platform = prov->coco.platform == RDRAND_COCO_NONE
                   ? "coco = require"
                   : rdrand_coco_platform_name(prov->coco.platform);
    coco_reason = reason == RDRAND_R_NO_RDRAND ? RDRAND_R_COCO_NO_RDRAND
                                               : RDRAND_R_COCO_SEED_FAILED;
    if (reason != RDRAND_R_NO_RDRAND)
        rdrand_source_fault(prov, reason, NULL);
    RDRAND_RAISE(prov, coco_reason, "platform %s (decided by %s): %s", platform,
                 prov->coco.signal, rdrand_reason_text(reason));
    switch (prov->config.on_coco_failure) {
    case RDRAND_ON_COCO_FAILURE_FAIL_CLOSED:
        atomic_store(&prov->fault, coco_reason);
        return 1;
    case RDRAND_ON_COCO_FAILURE_ABORT:
        fprintf(stderr, "rdrand-provider: %s on %s (%s); aborting\n",
                rdrand_reason_text(coco_reason), platform,
                rdrand_reason_text(reason));
        syslog(LOG_USER | LOG_CRIT, "rdrand-provider: %s on %s; aborting",
               rdrand_reason_text(coco_reason), platform);
        abort();
    case RDRAND_ON_COCO_FAILURE_REFUSE:
    default:
        return 0;
    }
}
