/* SPDX-License-Identifier: Apache-2.0 */
#include "source.h"

#include <stdint.h>
#include <stdio.h>

#include <openssl/crypto.h>

#include "config.h"
#include "counters.h"
#include "draw.h"
#include "errors.h"

/*
 * The continuous tests must see the stream this process draws, not one
 * context's slice of it: state kept in a RAND context, a provider
 * instance or a library context would give a defective CPU a fresh start
 * with every new context (an application creating one per request got
 * a constant served indefinitely).  Shared process-wide state would need
 * a lock or an atomic on every word, bouncing a cache line between cores
 * on the seed path.  So the state is per thread: every context, provider
 * instance and library context on a thread feeds the same tests, nothing
 * resets them, and a thread's first draw runs the full self-test into its
 * state before anything is delivered, so a new thread is no fresh start
 * either.  Default TLS model: the module is dlopen()ed.
 */
static _Thread_local struct rdrand_health rdrand_thread_health;

struct rdrand_health *rdrand_source_health(void)
{
    return &rdrand_thread_health;
}

int rdrand_source_selftest(void)
{
    uint64_t words[RDRAND_SELFTEST_WORDS];
    int reason = rdrand_draw(NULL, (unsigned char *)words, sizeof(words));

    if (reason == RDRAND_R_OK)
        reason = rdrand_health_selftest(&rdrand_thread_health, words,
                                        RDRAND_SELFTEST_WORDS);
    OPENSSL_cleanse(words, sizeof(words));
    return reason;
}

static int rdrand_is_health_reason(int reason)
{
    return reason == RDRAND_R_STUCK_ZERO || reason == RDRAND_R_STUCK_ONES
           || reason == RDRAND_R_REPEATED_WORD || reason == RDRAND_R_SHORT_CYCLE
           || reason == RDRAND_R_STUCK_BIT || reason == RDRAND_R_BIASED_BIT
           || reason == RDRAND_R_ADAPTIVE_PROPORTION
           || reason == RDRAND_R_SELFTEST_FAILED;
}

#define RDRAND_FAULT_REASON(state) ((int)((state)&0xffffffffu))

/* Latch reason (an earlier one is kept unless replace); bump the generation. */
static void rdrand_source_latch(struct rdrand_prov *prov, int reason,
                                int replace)
{
    uint64_t state = atomic_load(&prov->fault_state), next;

    do {
        int kept = RDRAND_FAULT_REASON(state);

        if (replace || kept == RDRAND_R_OK)
            kept = reason;
        next = ((state >> 32) + 1) << 32 | (uint32_t)kept;
    } while (!atomic_compare_exchange_weak(&prov->fault_state, &state, next));
}

int rdrand_source_latched(const struct rdrand_prov *prov)
{
    return RDRAND_FAULT_REASON(atomic_load(&prov->fault_state));
}

void rdrand_source_latch_coco(struct rdrand_prov *prov, int coco_reason)
{
    rdrand_source_latch(prov, coco_reason, 1);
}

void rdrand_source_fault(struct rdrand_prov *prov, int reason, const char *what)
{
    /* The first fault is the one worth reporting: it is kept. */
    rdrand_source_latch(prov, reason, 0);
    if (rdrand_is_health_reason(reason))
        rdrand_counter_add(RDRAND_CTR_HEALTH_FAILURES, 1);
    if (what != NULL)
        RDRAND_RAISE(prov, reason, "%s", what);
    rdrand_warn_once(prov, reason);
}

/*
 * Recovery policy.  Outside a confidential guest a fault is latched until
 * a later request finds the hardware healthy again: that request first
 * runs the full startup self-test and proceeds only if it passes (a
 * thread's first request runs it too).  The test state is not reset by a
 * fault: a failing APT window or bit run starts over (one defect, one
 * failure), the history goes on.  Inside
 * one (coco_enforced) the first fault latches for the life of the
 * provider, as the kernel would have panicked instead.
 */
int rdrand_source_fill(struct rdrand_prov *prov, unsigned char *out, size_t len,
                       const char *request)
{
    uint64_t state = atomic_load(&prov->fault_state);
    int latched = RDRAND_FAULT_REASON(state);
    int reason = RDRAND_R_OK;
    char what[96];

    if (rdrand_config_refuses(prov, request, len))
        return 0; /* before anything a recovery could clear */
    if (latched != RDRAND_R_OK && prov->coco_enforced) {
        RDRAND_RAISE(prov, latched,
                     "latched in a confidential guest (%s)%s%s: restart the "
                     "process on working hardware",
                     rdrand_coco_platform_name(prov->coco.platform),
                     prov->coco_cause ? " since: " : "",
                     prov->coco_cause ? rdrand_reason_text(prov->coco_cause)
                                      : "");
        return 0;
    }
    if (!prov->rdrand_available) {
        RDRAND_RAISE(prov, RDRAND_R_NO_RDRAND, "%s of %zu bytes failed",
                     request, len);
        return 0;
    }
    if (latched != RDRAND_R_OK || !rdrand_thread_health.warm) {
        reason = rdrand_source_selftest();
        /* Clear only if no fault came while the self-test ran. */
        if (reason == RDRAND_R_OK && latched != RDRAND_R_OK
            && !atomic_compare_exchange_strong(&prov->fault_state, &state,
                                               state >> 32 << 32)
            && (latched = RDRAND_FAULT_REASON(state)) != RDRAND_R_OK) {
            RDRAND_RAISE(prov, latched,
                         "%s of %zu bytes failed: another request met "
                         "this fault during recovery",
                         request, len);
            return 0;
        }
    }
    if (reason == RDRAND_R_OK)
        reason = rdrand_draw(&rdrand_thread_health, out, len);
    if (reason == RDRAND_R_OK)
        return 1;
    snprintf(what, sizeof(what),
             "%s of %zu bytes failed closed: nothing was delivered", request,
             len);
    rdrand_source_fault(prov, reason, what);
    return 0;
}

int rdrand_source_usable(const struct rdrand_prov *prov)
{
    return rdrand_config_ok(prov) && prov->rdrand_available
           && rdrand_source_latched(prov) == RDRAND_R_OK;
}

const char *rdrand_source_state_text(const struct rdrand_prov *prov)
{
    int fault = rdrand_source_latched(prov);

    if (!rdrand_config_ok(prov))
        return prov->config.state;
    if (fault != RDRAND_R_OK)
        return rdrand_reason_text(fault);
    return prov->rdrand_available ? "ok"
                                  : rdrand_reason_text(RDRAND_R_NO_RDRAND);
}
