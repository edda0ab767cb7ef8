/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conditioning = reduce512 at load: whether the mode can run here (AES-NI,
 * RDRAND not failed) and its key, drawn through the calling thread's
 * health tests.  A policy of the load sequence, kept out of the AES code
 * (conditioning.c), which knows only the draw, the tests and the counters.
 */
#include "conditioning.h"

#include <openssl/crypto.h>

#include "draw.h"
#include "errors.h"
#include "fault.h"
#include "load.h"
#include "prov.h"
#include "source.h"

/* Refuse the instance: this mode cannot run here, and none was not asked. */
static void rdrand_cond_refuse(struct rdrand_prov *prov, int reason,
                               const char *why, int warn)
{
    rdrand_fault_refuse(prov, reason, why);
    if (warn)
        rdrand_warn(prov, "%s", rdrand_fault_state_text(prov));
}

/*
 * The key is drawn from RDRAND itself, per instance, and never leaves
 * the process: a CBC-MAC used as a conditioning function needs no secret
 * key (SP 800-90B 3.1.5.1.1 lists it among the vetted functions, whose
 * entropy accounting does not rest on the key's secrecy), only one
 * chosen before, and so independently of, the samples it conditions.
 * docs/conditioning.md argues it.
 */
void rdrand_cond_init(struct rdrand_prov *prov)
{
    unsigned char key[RDRAND_COND_KEY_BYTES];
    int reason;

    if (prov->config.conditioning != RDRAND_CONDITIONING_REDUCE512
        || rdrand_fault_refused(prov) || !prov->rdrand_available)
        return; /* no RDRAND: every request says so already */
    if (!rdrand_aes_present()) {
        rdrand_cond_refuse(prov, RDRAND_R_NO_AESNI,
                           "conditioning = reduce512 refused at load (no "
                           "AES-NI); conditioning = none works here",
                           1);
        return;
    }
    if ((reason = rdrand_fault_latched(prov)) != RDRAND_R_OK) {
        /*
         * The load's one line: the fault (its reason) and the refusal,
         * unless a line already said the fault (the CoCo check's, or an
         * earlier one in the process).
         */
        rdrand_cond_refuse(prov, reason,
                           "conditioning = reduce512: no CBC-MAC key was "
                           "drawn, because RDRAND has failed in this process "
                           "(health-state, health-verdict); restart the "
                           "process on working hardware",
                           rdrand_fault_warn_claim(prov));
        return;
    }
    reason = rdrand_draw(rdrand_source_health(), key, sizeof(key));
    if (reason == RDRAND_R_OK)
        rdrand_aes_set_key(&prov->cond_key, key);
    OPENSSL_cleanse(key, sizeof(key));
    if (reason == RDRAND_R_OK)
        return;
    /*
     * A fact about the CPU, recorded as any fault is; but the operator
     * gets one line saying both the fault and what it costs this
     * instance (the refusal's, which starts with the reason), so the
     * process's one-shot warning is spent on it.
     */
    rdrand_fault_record(prov, reason, NULL);
    rdrand_cond_refuse(prov, reason,
                       "conditioning = reduce512 refused: drawing the CBC-MAC "
                       "key from RDRAND at load failed, so every request from "
                       "this instance fails; restart the process on working "
                       "hardware",
                       rdrand_fault_warn_claim(prov));
}
