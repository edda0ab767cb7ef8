/* SPDX-License-Identifier: Apache-2.0 */
#include "load.h"

#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include <openssl/crypto.h>

#include "coco.h"
#include "config_rules.h"
#include "draw.h"
#include "errors.h"
#include "fault.h"
#include "source.h"

int rdrand_coco_seed_check(struct rdrand_prov *prov, unsigned char *scratch,
                           size_t scratch_len)
{
    size_t len = prov->config.coco_seed_bits / 8;
    /*
     * The process's verdict, whichever instance met it, at load or after:
     * no draw again: a fault is a fact about the CPU, not a moment.
     */
    int reason = rdrand_fault_permanent();

    if (reason != RDRAND_R_OK)
        return reason; /* the caller latches it with its CoCo reason */
    if (!prov->rdrand_available)
        reason = RDRAND_R_NO_RDRAND;
    else if ((reason = rdrand_fault_latched(prov)) != RDRAND_R_OK)
        ; /* the startup self-test already failed */
    else if (len > scratch_len)
        return RDRAND_R_INTERNAL;
    else {
        /* It continues the self-test's state: no fresh start. */
        reason = rdrand_draw(rdrand_source_health(), scratch, len);
        OPENSSL_cleanse(scratch, scratch_len);
        if (reason == RDRAND_R_OK)
            prov->coco_seed_bits = prov->config.coco_seed_bits;
        else
            /* permanent here; the load's line says it (init_check) */
            rdrand_fault_record(prov, reason, NULL);
    }
    return reason;
}

/*
 * In a confidential-computing guest the host is outside the trust
 * boundary: it can observe or steer every entropy source the guest sees
 * (interrupt timing, virtual devices, the RNG it offers) except the CPU's
 * own RDRAND.  So there, RDRAND must be shown to work before anything is
 * seeded from it.  Like Linux's cc_random_init(), draw 256 bits (more if
 * configured) at load, one attempt per word, each word health-checked,
 * after the startup self-test has passed.  If any of it fails the
 * provider does not come up as a working seed source: it refuses to load,
 * latches every request in error, or aborts, as configured; no setting
 * skips the check.  Detection errs towards "CoCo" (coco_detect.c): a
 * false positive costs one 256-bit draw, a false negative skips it.
 */
int rdrand_coco_init_check(struct rdrand_prov *prov)
{
    unsigned char scratch[RDRAND_COCO_SEED_BITS_MAX / 8];
    struct rdrand_coco_inputs inputs;
    const char *platform, *cause;
    int reason, coco_reason;

    rdrand_coco_gather(&inputs);
    rdrand_coco_detect(&inputs, &prov->coco);
    /*
     * Once any instance enforces the rules (a guest, or coco = require:
     * a SEV guest's host can hide it), they are the process's: every
     * later load is checked too, whatever its own section says, and a
     * trip anywhere, before or after, is the process's verdict
     * (fault.c).  Otherwise an OSSL_PROVIDER_load from code, or a new
     * library context, would serve from the RDRAND that just failed.
     */
    if (prov->coco.platform == RDRAND_COCO_NONE
        && prov->config.coco != RDRAND_COCO_REQUIRE
        && !rdrand_fault_coco_enforced(prov))
        return 1;
    rdrand_fault_enforce_coco(prov);
    reason = rdrand_coco_seed_check(prov, scratch, sizeof(scratch));
    if (reason == RDRAND_R_OK)
        return 1;

    /* Failed: latch, then refuse, stay loaded but latched, or abort. */
    coco_reason = rdrand_fault_coco_failed(prov, reason);
    platform = prov->coco.platform != RDRAND_COCO_NONE
                   ? rdrand_coco_platform_name(prov->coco.platform)
               : prov->config.coco == RDRAND_COCO_REQUIRE
                   ? "none detected, coco = require"
                   : "none detected, CoCo rules set by an earlier instance "
                     "in this process";
    cause = reason == RDRAND_R_NO_RDRAND ? "CPUID reports no RDRAND"
                                         : rdrand_reason_text(reason);
    if (prov->config.on_coco_failure == RDRAND_ON_COCO_FAILURE_FAIL_CLOSED) {
        /*
         * Every request will raise coco_reason with the cause: say so now,
         * as this process's one warning, which rdrand_fault_coco_failed
         * took (a fork()ed child gives its own).
         */
        rdrand_warn(prov,
                    "%s; platform %s (decided by %s); cause: %s; every seed "
                    "request fails (on_coco_failure = fail-closed): restart "
                    "the process on working hardware",
                    rdrand_reason_text(coco_reason), platform,
                    prov->coco.signal, cause);
        return 1;
    }
    /* Self-contained: a refused provider's reason strings never load. */
    RDRAND_RAISE(
        prov, coco_reason, "%s; platform %s (decided by %s); cause: %s",
        rdrand_reason_text(coco_reason), platform, prov->coco.signal, cause);
    if (prov->config.on_coco_failure == RDRAND_ON_COCO_FAILURE_ABORT) {
        fprintf(stderr,
                "rdrand-provider: %s; platform %s; cause: %s; "
                "aborting\n",
                rdrand_reason_text(coco_reason), platform, cause);
        syslog(LOG_USER | LOG_CRIT,
               "rdrand-provider: %s; platform %s; "
               "cause: %s; aborting",
               rdrand_reason_text(coco_reason), platform, cause);
        abort();
    }
    /*
     * From openssl.cnf OpenSSL skips us without a word (errors.h,
     * RDRAND_TEXT_UNSERVED): say it where it shows.  With the longest
     * reason, cause, platform and signal this is 535 bytes, within
     * RDRAND_WARN_MAX.
     */
    rdrand_warn(
        prov,
        "%s; platform %s (decided by %s); cause: %s; refused to "
        "load (on_coco_failure = refuse); from openssl.cnf OpenSSL "
        "skips it, and where [random] seed = RDRAND, " RDRAND_TEXT_UNSERVED,
        rdrand_reason_text(coco_reason), platform, prov->coco.signal, cause);
    return 0;
}
